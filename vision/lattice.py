"""Fit a square lattice (the board's grid) to detected die centres.

The dice of a board lie on a plane, so their centres are the image of the integer lattice
``(col, row)`` under one homography. ``fit_grid`` recovers that homography from a cloud of
detected centres that may miss a few dice or hold a few strays:

1. the median nearest-neighbour distance gives the die spacing, and the two dominant
   directions of neighbour-to-neighbour vectors give two lattice axes;
2. starting from the point nearest the cloud's centre, points are given integer lattice
   coordinates ring by ring, re-fitting the homography after each ring, so perspective
   that bends the lattice is followed rather than fought;
3. the assigned points' extent gives rows and columns; the count is checked against the
   supported boards, and a few undetected dice may be filled in from the homography;
4. the lattice is turned so that rows run top to bottom in the photo, without mirroring.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.errors import CornersError, DiceCountError, GridNotFoundError

SIDES = (4, 5, 6)
# Largest share of a board's dice that may go undetected and be filled in from the grid.
MAX_MISSING_SHARE = 0.07
# A point belongs to a lattice cell when it is this close to it (in cells).
SNAP_TOLERANCE = 0.3
# Points scoring at least this share of the upper-quartile score count as confident.
STRONG_SHARE = 0.6


@dataclass(frozen=True, eq=False)
class Grid:
    """A rows x cols lattice in a photo: ``homography`` maps ``(col, row)`` to pixels."""

    rows: int
    cols: int
    homography: np.ndarray

    def to_image(self, lattice: np.ndarray) -> np.ndarray:
        """Map lattice coordinates (..., 2) as (col, row) to pixel (x, y)."""
        flat = np.asarray(lattice, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(flat, self.homography).reshape(np.shape(lattice))

    def to_lattice(self, points: np.ndarray) -> np.ndarray:
        """Map pixel points (..., 2) to lattice coordinates (col, row)."""
        flat = np.asarray(points, np.float64).reshape(-1, 1, 2)
        inverse = np.linalg.inv(self.homography)
        return cv2.perspectiveTransform(flat, inverse).reshape(np.shape(points))

    def centers(self) -> np.ndarray:
        """Die centres in pixels, shape (rows, cols, 2) as (x, y)."""
        cols, rows = np.meshgrid(np.arange(self.cols), np.arange(self.rows))
        return self.to_image(np.stack([cols, rows], axis=-1).astype(np.float64))

    def corners(self) -> np.ndarray:
        """The board's outer corners in pixels (4, 2), clockwise from the top left."""
        return self.to_image(outer_corners(self.rows, self.cols))

    def spacing(self) -> float:
        """Mean distance in pixels between neighbouring die centres."""
        centers = self.centers()
        steps = [
            np.linalg.norm(np.diff(centers, axis=1), axis=-1).ravel(),
            np.linalg.norm(np.diff(centers, axis=0), axis=-1).ravel(),
        ]
        return float(np.concatenate(steps).mean())


# Lattice points of a board's outer corners, clockwise from the top left: the outer edges
# of the corner dice, half a cell beyond their centres.
def outer_corners(rows: int, cols: int) -> np.ndarray:
    return np.array(
        [[-0.5, -0.5], [cols - 0.5, -0.5], [cols - 0.5, rows - 0.5], [-0.5, rows - 0.5]],
        np.float64,
    )


# Corners given by hand must enclose at least this many pixels a cell (in the picture the
# reader works on), or the dice are too small to read.
MIN_CORNER_CELL_PIXELS = 8.0


def grid_from_corners(corners: np.ndarray, rows: int, cols: int) -> Grid:
    """The grid whose outer corners (clockwise from the top left, the board as the host
    sees it) are ``corners`` (4, 2) in pixels. Raises ``CornersError`` when they cannot
    frame a board: not a convex quadrilateral, turning the wrong way, or too small."""
    points = np.asarray(corners, np.float64)
    if points.shape != (4, 2) or not np.isfinite(points).all():
        raise CornersError("give four corners, each as [x, y]")
    edges = np.roll(points, -1, axis=0) - points
    following = np.roll(edges, -1, axis=0)
    turns = edges[:, 0] * following[:, 1] - edges[:, 1] * following[:, 0]
    if not (turns > 0).all():  # y grows downwards: clockwise on screen is a positive cross
        raise CornersError(
            "the corners must go round the board clockwise from its top left, without crossing"
        )
    x, y = points[:, 0], points[:, 1]
    area = 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))
    if area / (rows * cols) < MIN_CORNER_CELL_PIXELS**2:
        raise CornersError("the corners enclose too little of the photo to hold a board")
    homography = cv2.getPerspectiveTransform(
        outer_corners(rows, cols).astype(np.float32), points.astype(np.float32)
    )
    return Grid(rows, cols, homography.astype(np.float64))


@dataclass(frozen=True, eq=False)
class GridFit:
    """A fitted grid and which cells had a detected die (the others were filled in)."""

    grid: Grid
    observed: np.ndarray = field(repr=False)

    @property
    def missing(self) -> int:
        return int((~self.observed).sum())


def fit_grid(
    points: np.ndarray,
    sides: tuple[int, ...] = SIDES,
    scores: np.ndarray | None = None,
    max_missing_share: float = MAX_MISSING_SHARE,
) -> GridFit:
    """Fit a square grid of one of ``sides`` to die centres ``points`` (N, 2) in pixels.

    ``scores`` (N,), the detector's confidence per point, helps choose where to start and
    which points to keep when strays fit the lattice too. Raises ``GridNotFoundError`` when
    the points form no lattice and ``DiceCountError`` when they form one of the wrong size.
    """
    points = np.asarray(points, np.float64).reshape(-1, 2)
    scores = np.ones(len(points)) if scores is None else np.asarray(scores, np.float64)
    expected = tuple(side * side for side in sides)
    if len(points) < 4:
        raise GridNotFoundError("no grid found")
    points, scores = merge_close(points, scores)
    # Axes and the starting point come from confident points only: weak detections are
    # often strays (textures, letters on other things), and strays sit close together.
    strong = scores >= STRONG_SHARE * np.percentile(scores, 75)
    if strong.sum() < 4:
        raise GridNotFoundError("no grid found")
    _, axes = _lattice_axes(points[strong])
    if axes is None:
        raise GridNotFoundError("no grid found")
    cells = _grow_assignment(points, axes, strong)
    if cells is None or len(cells) < 4:
        raise GridNotFoundError("no grid found")
    lattice = _squared_up(np.array(list(cells.keys()), np.float64)).astype(int)
    indices = np.array(list(cells.values()))
    natural = _best_window(lattice, scores[indices], SIDES, max_missing_share)
    if natural and natural[0] > max(sides):  # a hint smaller than the board in the photo
        raise DiceCountError(int(natural[2].sum()), expected)
    chosen = _best_window(lattice, scores[indices], sides, max_missing_share)
    if chosen is None:
        # Say how many dice there are: those of a board of another size if one fits,
        # else the confident points on the lattice.
        found = int(natural[2].sum()) if natural else int(strong[indices].sum())
        if found in expected:  # the right number, in no grid we could fit
            raise GridNotFoundError(f"no grid found: {found} dice do not line up as a board")
        raise DiceCountError(found, expected)
    side, origin, inside = chosen
    # Confident dice in the ring just outside the block: a whole row or column of them
    # means a bigger board whose other dice were missed, not a smaller board.
    ring = ~inside & np.all((lattice >= origin - 1) & (lattice <= origin + side), axis=1)
    if int((ring & strong[indices]).sum()) > side // 2:
        raise DiceCountError(int(inside.sum() + ring.sum()), expected)
    lattice = (lattice[inside] - origin).astype(np.float64)
    homography = _fit_homography(lattice, points[indices[inside]])
    grid, lattice = _upright(Grid(side, side, homography), lattice)
    observed = np.zeros((side, side), bool)
    observed[lattice[:, 1].astype(int), lattice[:, 0].astype(int)] = True
    return GridFit(grid, observed)


def _best_window(
    lattice: np.ndarray, scores: np.ndarray, sides: tuple[int, ...], max_missing_share: float
) -> tuple[int, np.ndarray, np.ndarray] | None:
    """The largest side x side block of lattice cells that is (nearly) full of points.

    Returns (side, block origin, mask of the points inside), or None when no supported
    side has a block with few enough empty cells. Blocks are ranked by points inside, then
    by their summed scores; points outside the block are strays.
    """
    low, high = lattice.min(axis=0), lattice.max(axis=0)
    for side in sorted(sides, reverse=True):
        allowed = max(1, int(max_missing_share * side * side))
        best: tuple[int, float, np.ndarray, np.ndarray] | None = None
        for x in range(low[0], max(low[0], high[0] - side + 1) + 1):
            for y in range(low[1], max(low[1], high[1] - side + 1) + 1):
                origin = np.array([x, y])
                inside = np.all((lattice >= origin) & (lattice < origin + side), axis=1)
                count, weight = int(inside.sum()), float(scores[inside].sum())
                if best is None or (count, weight) > (best[0], best[1]):
                    best = (count, weight, origin, inside)
        if best is not None and best[0] >= side * side - allowed and best[0] > allowed:
            extent = lattice[best[3]].max(axis=0) - lattice[best[3]].min(axis=0) + 1
            if extent.min() == side and extent.max() == side:
                return side, best[2], best[3]
    return None


def merge_close(points: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drop points closer than half the typical spacing to a stronger one (two peaks on
    one die). Repeated until stable, since when most dice have two peaks the first
    estimate of the spacing is the distance between twins."""
    while len(points) > 2:
        distance = _pairwise(points)
        np.fill_diagonal(distance, np.inf)
        spacing = float(np.median(distance.min(axis=1)))
        keep: list[int] = []
        for index in np.argsort(-scores, kind="stable"):
            if all(distance[index, kept] >= 0.5 * spacing for kept in keep):
                keep.append(int(index))
        if len(keep) == len(points):
            break
        keep.sort()
        points, scores = points[keep], scores[keep]
    return points, scores


def _pairwise(points: np.ndarray) -> np.ndarray:
    difference = points[:, None, :] - points[None, :, :]
    return np.sqrt((difference**2).sum(-1))


def _lattice_axes(points: np.ndarray) -> tuple[float, np.ndarray | None]:
    """Die spacing and two lattice axis vectors (2, 2), from nearest-neighbour vectors."""
    distance = _pairwise(points)
    np.fill_diagonal(distance, np.inf)
    order = np.argsort(distance, axis=1)[:, :4]
    spacing = float(np.median(distance[np.arange(len(points)), order[:, 0]]))
    if not np.isfinite(spacing) or spacing <= 0:
        return spacing, None
    vectors = (points[order] - points[:, None, :]).reshape(-1, 2)
    lengths = np.linalg.norm(vectors, axis=1)
    vectors = vectors[(lengths < 2.2 * spacing) & (lengths > 0.5 * spacing)]
    if len(vectors) < 4:
        return spacing, None
    angles = np.mod(np.arctan2(vectors[:, 1], vectors[:, 0]), np.pi)
    bins = 36
    histogram = np.bincount((angles / np.pi * bins).astype(int) % bins, minlength=bins)
    smooth = histogram + 0.5 * (np.roll(histogram, 1) + np.roll(histogram, -1))
    first = int(np.argmax(smooth))
    separation = np.minimum(np.abs(np.arange(bins) - first), bins - np.abs(np.arange(bins) - first))
    masked = np.where(separation >= 6, smooth, -1)  # at least 30 degrees apart
    second = int(np.argmax(masked))
    if masked[second] <= 0:
        return spacing, None
    axes = []
    for peak in (first, second):
        centre = (peak + 0.5) / bins * np.pi
        offset = np.angle(np.exp(1j * (angles - centre) * 2)) / 2  # signed, mod pi
        members = vectors[np.abs(offset) < np.pi / 12]
        # Point every member the same way as the peak's direction before averaging.
        direction = np.array([np.cos(centre), np.sin(centre)])
        members = members * np.sign(members @ direction)[:, None]
        # The shorter members are the true neighbours (not two cells along).
        norms = np.linalg.norm(members, axis=1)
        members = members[norms < 1.4 * np.percentile(norms, 25)]
        axes.append(np.median(members, axis=0))
    basis = np.array(axes)
    if abs(np.linalg.det(basis)) < 0.2 * spacing**2:
        return spacing, None
    return spacing, basis


def _grow_assignment(
    points: np.ndarray, axes: np.ndarray, strong: np.ndarray
) -> dict[tuple[int, int], int] | None:
    """Integer lattice cells for the points that fit, grown ring by ring from the centre.

    The seed is the confident point nearest the confident points' centre; the axes are
    replaced by the seed's actual neighbours along them when it has them.
    """
    centre = points[strong].mean(axis=0)
    distance = np.linalg.norm(points - centre, axis=1)
    seed = int(np.argmin(np.where(strong, distance, np.inf)))
    axes = _local_axes(points[strong] - points[seed], axes)
    # Start with the affine lattice through the seed: (col, row) -> seed + col*u + row*v.
    affine = np.array(
        [[axes[0, 0], axes[1, 0], points[seed, 0]], [axes[0, 1], axes[1, 1], points[seed, 1]]]
    )
    transform = np.vstack([affine, [0, 0, 1]])
    cells: dict[tuple[int, int], int] = {}
    for radius in (1.5, 2.5, 3.5, 4.5, 5.5, 7.5, 7.5):
        try:
            inverse = np.linalg.inv(transform)
        except np.linalg.LinAlgError:
            return None
        lattice = cv2.perspectiveTransform(points.reshape(-1, 1, 2), inverse).reshape(-1, 2)
        rounded = np.round(lattice)
        residual = np.abs(lattice - rounded).max(axis=1)
        candidates: dict[tuple[int, int], int] = {}
        for index in np.argsort(residual):
            if residual[index] > SNAP_TOLERANCE or np.abs(rounded[index]).max() > radius:
                continue
            cell = (int(rounded[index, 0]), int(rounded[index, 1]))
            candidates.setdefault(cell, int(index))
        if len(candidates) < 3:
            return None
        cells = candidates
        source = np.array(list(cells.keys()), np.float64)
        target = points[list(cells.values())]
        transform = _fit_transform(source, target)
    return cells


# Integer 2x2 matrices of determinant +-1 with small entries: the changes of lattice basis
# that turn a sheared assignment (one axis taken along a diagonal) back into a square.
_UNIMODULAR = sorted(
    (
        np.array([[a, b], [c, d]], np.float64)
        for a in range(-2, 3)
        for b in range(-2, 3)
        for c in range(-2, 3)
        for d in range(-2, 3)
        if abs(a * d - b * c) == 1
    ),
    key=lambda matrix: float(np.abs(matrix - np.eye(2)).sum()),
)


def _squared_up(lattice: np.ndarray) -> np.ndarray:
    """Re-express lattice cells (N, 2) in the basis where their bounding box is smallest.

    Perspective can make a diagonal neighbour look closer than a true one, so the growth
    may use a diagonal as an axis; the cells then form a parallelogram, not a square.
    """
    best, best_area = lattice, np.inf
    for matrix in _UNIMODULAR:
        changed = lattice @ matrix.T
        extent = changed.max(axis=0) - changed.min(axis=0) + 1
        area = float(extent[0] * extent[1])
        if area < best_area - 1e-9:
            best, best_area = changed, area
    return best


def _local_axes(offsets: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """For each axis, the nearest offset (from the seed) pointing along it, if any."""
    local = axes.copy()
    lengths = np.linalg.norm(offsets, axis=1)
    for index, axis in enumerate(axes):
        size = np.linalg.norm(axis)
        cosine = offsets @ axis / np.maximum(lengths * size, 1e-9)
        along = (np.abs(cosine) > np.cos(np.radians(20))) & (lengths > 0.5 * size)
        along &= lengths < 1.8 * size
        if along.any():
            best = int(np.argmin(np.where(along, lengths, np.inf)))
            local[index] = offsets[best] * np.sign(cosine[best])
    if abs(np.linalg.det(local)) < 0.2 * abs(np.linalg.det(axes)):
        return axes
    return local


def _fit_transform(source: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Homography source -> target when the points allow it, else an affine map (3x3)."""
    spread = [len(np.unique(source[:, axis])) for axis in (0, 1)]
    if len(source) >= 6 and min(spread) >= 3:
        return _fit_homography(source, target)
    design = np.hstack([source, np.ones((len(source), 1))])
    solution, *_ = np.linalg.lstsq(design, target, rcond=None)
    return np.vstack([solution.T, [0, 0, 1]])


def _fit_homography(source: np.ndarray, target: np.ndarray) -> np.ndarray:
    homography, _ = cv2.findHomography(source.astype(np.float64), target.astype(np.float64), 0)
    if homography is None:
        raise GridNotFoundError("no grid found")
    return homography


def _upright(grid: Grid, lattice: np.ndarray) -> tuple[Grid, np.ndarray]:
    """Re-index the lattice so it is not mirrored and rows run down the photo.

    Returns the new grid and ``lattice`` (N, 2) re-indexed the same way.
    """
    side = grid.rows
    last = side - 1
    centre = np.array([last / 2, last / 2])
    ex, ey = _axes_at(grid.homography, centre)
    candidates = []
    mirror = np.eye(3)
    if ex[0] * ey[1] - ex[1] * ey[0] < 0:  # mirrored: flip the columns
        mirror = np.array([[-1, 0, last], [0, 1, 0], [0, 0, 1]], np.float64)
    for turns in range(4):
        angle = turns * np.pi / 2
        cos, sin = round(np.cos(angle)), round(np.sin(angle))
        rotation = np.array([[cos, -sin, 0], [sin, cos, 0], [0, 0, 1]], np.float64)
        shift = np.eye(3)
        shift[:2, 2] = centre
        unshift = np.eye(3)
        unshift[:2, 2] = -centre
        # new lattice -> old lattice
        change = mirror @ shift @ rotation @ unshift
        homography = grid.homography @ change
        _, down = _axes_at(homography, centre)
        candidates.append((down[1] / (np.linalg.norm(down) + 1e-9), turns, change, homography))
    _, _, change, homography = max(candidates, key=lambda item: item[0])
    old_to_new = np.linalg.inv(change)
    homogeneous = np.hstack([lattice, np.ones((len(lattice), 1))]) @ old_to_new.T
    return Grid(side, side, homography), np.round(homogeneous[:, :2])


def _axes_at(homography: np.ndarray, lattice: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Image directions of one step along columns and along rows at ``lattice``."""
    step = np.eye(2)
    probe = np.array([lattice, lattice + step[0], lattice + step[1]], np.float64).reshape(-1, 1, 2)
    mapped = cv2.perspectiveTransform(probe, homography).reshape(-1, 2)
    return mapped[1] - mapped[0], mapped[2] - mapped[0]
