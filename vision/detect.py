"""Find die centres in a photo with the heat-map detector, in passes.

Pass 1 looks at the whole photo shrunk to 192 pixels and finds where die-like things are.
They are grouped into clusters; the cluster with the most heat is most likely the board,
but on a busy tablecloth it may be the clutter, so up to ``MAX_REGIONS`` clusters are
tried in turn. For each, pass 2 looks again at a square window around it, so small boards
in large photos are seen at a useful resolution, and pass 3 re-centres on what pass 2
found. Peaks of a heat map are die centres; the caller fits a grid to each pass's peaks,
the latest pass of the likeliest cluster first, until one fits. When none does, the same
passes run on the whole photo seen smaller: a close-up's dice are bigger than any the
detector was trained on, and shrunk they are not.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from vision.errors import GridNotFoundError
from vision.lattice import merge_close
from vision.nets import DETECTOR_INPUT, DETECTOR_STRIDE
from vision.runtime import compiled_predict

# Heat above which a heat-map peak is taken as a die centre.
PEAK_THRESHOLD = 0.3
# Peaks with at least this share of the best peak's heat outline the board.
REGION_SHARE = 0.5
# Peaks closer than this many die spacings belong to one board (generous: a board seen at
# a low angle has rows far closer together than columns).
CLUSTER_LINK = 2.6
# Clusters of pass 1 looked at more closely, the most heat first, before giving up.
MAX_REGIONS = 3
# Side of the first pass's view of the whole photo (the network takes any multiple of 16).
COARSE_INPUT = 192
# Window side for passes 2 and 3, relative to the found dice region's larger side.
WINDOW_MARGIN = 1.3
# Padding value of letter-boxed windows (mid grey).
PAD_VALUE = 114
# Close-ups (the phone just above the board, the dice filling the frame and cut by it)
# show dice bigger than the detector ever saw them: the whole photo is looked at again
# shrunk to these shares of the window, grey around it, where their dice have the sizes it
# knows. Only when nothing else fits: the die size comes from the dice themselves.
ZOOMED_OUT = (0.6, 0.4)


@dataclass(frozen=True)
class Window:
    """A square view of a photo: ``transform`` maps photo pixels to window pixels."""

    pixels: np.ndarray
    transform: np.ndarray

    def to_photo(self, points: np.ndarray) -> np.ndarray:
        """Map window pixel points (N, 2) back to the photo."""
        inverse = np.linalg.inv(self.transform)
        flat = np.asarray(points, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(flat, inverse).reshape(-1, 2)


def square_window(
    image: np.ndarray, center: tuple[float, float], side: float, out: int = DETECTOR_INPUT
) -> Window:
    """The square of ``side`` pixels around ``center`` resized to ``out`` x ``out``.

    Parts outside the photo are padded grey. Shrinking uses area averaging, so a 12 MP
    photo gives the same picture as a small one.
    """
    height, width = image.shape[:2]
    side = max(float(side), 8.0)
    x0, y0 = center[0] - side / 2, center[1] - side / 2
    scale = out / side
    # Crop the part inside the photo first (cheap), resize it, then pad.
    ix0, iy0 = max(int(np.floor(x0)), 0), max(int(np.floor(y0)), 0)
    ix1, iy1 = min(int(np.ceil(x0 + side)), width), min(int(np.ceil(y0 + side)), height)
    canvas = np.full((out, out, 3), PAD_VALUE, np.uint8)
    transform = np.array([[scale, 0, -x0 * scale], [0, scale, -y0 * scale], [0, 0, 1]])
    if ix1 <= ix0 or iy1 <= iy0:
        return Window(canvas, transform)
    part = image[iy0:iy1, ix0:ix1]
    left, top = (ix0 - x0) * scale, (iy0 - y0) * scale
    right, bottom = (ix1 - x0) * scale, (iy1 - y0) * scale
    px0, py0 = max(round(left), 0), max(round(top), 0)
    px1, py1 = min(round(right), out), min(round(bottom), out)
    if px1 <= px0 or py1 <= py0:
        return Window(canvas, transform)
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    canvas[py0:py1, px0:px1] = cv2.resize(part, (px1 - px0, py1 - py0), interpolation=interpolation)
    # The integer placement moves the picture slightly: keep the transform exact.
    transform = np.array(
        [
            [(px1 - px0) / (ix1 - ix0), 0, px0 - ix0 * (px1 - px0) / (ix1 - ix0)],
            [0, (py1 - py0) / (iy1 - iy0), py0 - iy0 * (py1 - py0) / (iy1 - iy0)],
            [0, 0, 1],
        ]
    )
    return Window(canvas, transform)


def heat_to_pixel(points: np.ndarray) -> np.ndarray:
    """Heat-map cell coordinates (x, y) -> detector input pixel coordinates."""
    return (points + 0.5) * DETECTOR_STRIDE - 0.5


def find_peaks(
    heat: np.ndarray, threshold: float = PEAK_THRESHOLD
) -> tuple[np.ndarray, np.ndarray]:
    """Local maxima of a 2-D heat map above ``threshold``: points (N, 2) (x, y) and heats.

    Each peak is refined to sub-cell precision by the heat-weighted mean of its 3x3
    neighbourhood.
    """
    dilated = cv2.dilate(heat, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero((heat >= dilated) & (heat > threshold))
    padded = np.pad(heat, 1)
    dy, dx = np.mgrid[-1:2, -1:2]
    points, scores = [], []
    for y, x in zip(ys, xs, strict=True):
        patch = padded[y : y + 3, x : x + 3]
        total = patch.sum()
        points.append((x + (patch * dx).sum() / total, y + (patch * dy).sum() / total))
        scores.append(float(heat[y, x]))
    return np.array(points, np.float64).reshape(-1, 2), np.array(scores, np.float64)


def dice_region(points: np.ndarray, scores: np.ndarray) -> tuple[float, float, float, float] | None:
    """Box (x0, y0, x1, y1), in heat-map cells, around the main cluster of die peaks (the
    first of ``dice_regions``), or None."""
    regions = dice_regions(points, scores)
    return regions[0] if regions else None


def dice_regions(
    points: np.ndarray, scores: np.ndarray, limit: int = MAX_REGIONS
) -> list[tuple[float, float, float, float]]:
    """Boxes (x0, y0, x1, y1), in heat-map cells, around clusters of die peaks, the
    cluster with the most heat first, at most ``limit`` of them.

    Only confident peaks (``REGION_SHARE`` of the best heat) take part. Peaks closer than
    ``CLUSTER_LINK`` spacings are one cluster (a board, or a patch of clutter).
    """
    if len(points) == 0 or scores.max() < PEAK_THRESHOLD:
        return []
    keep = scores >= REGION_SHARE * scores.max()
    points, scores = merge_close(points[keep], scores[keep])
    if len(points) < 2:
        x, y = points[0]
        return [(x - 2, y - 2, x + 2, y + 2)]
    distance = np.linalg.norm(points[:, None] - points[None], axis=-1)
    np.fill_diagonal(distance, np.inf)
    # The die spacing, from the strongest peaks: dice outscore strays, which may be many
    # and far apart (a patterned tablecloth) and would link everything together.
    top = np.argsort(-scores)[:16]
    spacing = float(np.median(distance[top].min(axis=1)))
    linked = distance < CLUSTER_LINK * spacing
    label = np.arange(len(points))
    for _ in range(len(points)):  # propagate the smallest label through the links
        neighbour = np.where(linked, label[None, :], len(points)).min(axis=1)
        updated = np.minimum(label, neighbour)
        if np.array_equal(updated, label):
            break
        label = updated
    totals = np.bincount(label, weights=scores)
    regions = []
    for cluster in np.argsort(-totals)[:limit]:
        if totals[cluster] <= 0:
            break
        members = points[label == int(cluster)]
        low = members.min(axis=0) - 0.7 * spacing
        high = members.max(axis=0) + 0.7 * spacing
        regions.append((float(low[0]), float(low[1]), float(high[0]), float(high[1])))
    return regions


@dataclass(frozen=True)
class Candidate:
    """One pass's die centres (N, 2) in photo pixels and their heats: of the whole photo
    (``whole``, pass 1) or of a closer look at a cluster, seen at ``share`` of its size."""

    points: np.ndarray
    scores: np.ndarray
    share: float
    whole: bool


class DiceDetector:
    """Wraps the heat-map model: ``candidates`` gives die centres in photo pixels."""

    def __init__(self, model: object) -> None:
        self._predict = compiled_predict(model)

    def heat(self, window: np.ndarray) -> np.ndarray:
        """Heat map (side/4, side/4) for one square window (side, side, 3) uint8."""
        batch = window[None].astype(np.float32)
        return np.asarray(self._predict(batch))[0, ..., 0]

    def candidates(self, image: np.ndarray) -> Iterator[Candidate]:
        """Die centres in photo pixels with their heats, pass after pass, computed only as
        the caller asks for more: passes 3 then 2 around the likeliest cluster of pass 1,
        then around the next clusters, and pass 1 itself; then the same for the whole photo
        seen smaller (``ZOOMED_OUT``), for close-ups.
        Raises GridNotFoundError when no pass finds any dice at all.
        """
        height, width = image.shape[:2]
        found_any = False
        for share in (1.0, *ZOOMED_OUT):
            side = max(width, height) / share
            view = square_window(image, (width / 2, height / 2), side, COARSE_INPUT)
            points, scores = find_peaks(self.heat(view.pixels))
            if len(points) == 0:
                continue
            found_any = True
            for region in dice_regions(points, scores):
                for closer, heats in self._closer_looks(image, view, region):
                    yield Candidate(closer, heats, share, whole=False)
            yield Candidate(view.to_photo(heat_to_pixel(points)), scores, share, whole=True)
        if not found_any:
            raise GridNotFoundError("no grid found")

    def _closer_looks(
        self, image: np.ndarray, window: Window, region: tuple[float, float, float, float]
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Passes 2 and 3 around ``region`` of ``window``'s heat map, the latest first."""
        found: list[tuple[np.ndarray, np.ndarray]] = []
        for _ in range(2):
            corners = window.to_photo(heat_to_pixel(np.array(region).reshape(2, 2)))
            center = corners.mean(axis=0)
            side = WINDOW_MARGIN * float((corners[1] - corners[0]).max())
            window = square_window(image, (center[0], center[1]), side)
            points, scores = find_peaks(self.heat(window.pixels))
            if len(points) == 0:
                break
            found.insert(0, (window.to_photo(heat_to_pixel(points)), scores))
            next_region = dice_region(points, scores)
            if next_region is None:
                break
            region = next_region
        return found
