"""Photo conditions for measuring the reader: what a phone camera and a games table do to
a photo, applied to a labelled photo together with its die centres.

Each condition takes an RGB image and its labelled die centres (N, 2) and returns the
changed image and where those centres are in it. ``bench/vision.py`` reads the held-out
photos under each one.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

Condition = Callable[[np.random.Generator, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]

# The board's photo fills this share of the cluttered frame's area.
CLUTTER_AREA_SHARE = 0.10
BRIGHT_GAIN = 1.6
BLUR_SIGMA = 2.0  # pixels, at the data set's 416 x 416


def plain(
    rng: np.random.Generator, image: np.ndarray, centers: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    return image, centers


def rotated(
    rng: np.random.Generator, image: np.ndarray, centers: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Turned by any angle, on a canvas large enough to keep every corner."""
    height, width = image.shape[:2]
    angle = float(rng.uniform(0, 360))
    matrix = cv2.getRotationMatrix2D((width / 2, height / 2), angle, 1.0)
    cos, sin = abs(matrix[0, 0]), abs(matrix[0, 1])
    out_w, out_h = int(height * sin + width * cos), int(height * cos + width * sin)
    matrix[0, 2] += out_w / 2 - width / 2
    matrix[1, 2] += out_h / 2 - height / 2
    turned = cv2.warpAffine(
        image, matrix, (out_w, out_h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    moved = np.hstack([centers, np.ones((len(centers), 1))]) @ matrix.T
    return turned, moved


def small_in_clutter(
    rng: np.random.Generator, image: np.ndarray, centers: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The photo, at its own size, filling a tenth of a larger frame of busy tablecloth:
    coloured patterns, shapes and stray printed letters all around."""
    from vision.synth import random_background

    height, width = image.shape[:2]
    scale = (1 / CLUTTER_AREA_SHARE) ** 0.5
    out_h, out_w = int(height * scale), int(width * scale)
    frame = random_background(rng, out_h, out_w)
    top = int(rng.integers(0, out_h - height + 1))
    left = int(rng.integers(0, out_w - width + 1))
    frame[top : top + height, left : left + width] = image
    return frame, centers + np.array([left, top], np.float64)


def bright(
    rng: np.random.Generator, image: np.ndarray, centers: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Over-exposed: every value times 1.6, highlights blown out to white."""
    return np.clip(image.astype(np.float32) * BRIGHT_GAIN, 0, 255).astype(np.uint8), centers


def blurred(
    rng: np.random.Generator, image: np.ndarray, centers: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Out of focus: a Gaussian blur of sigma 2 pixels."""
    return cv2.GaussianBlur(image, (0, 0), BLUR_SIGMA), centers


# Close-ups: the frame ends this many die spacings beyond the outer dice's centres, each
# side on its own (0.4 is about a die's edge: below it the outer dice are cut; a letter
# reaches about 0.2 from the centre, so every letter stays whole).
CLOSE_UP_MARGIN = (0.25, 0.6)
# ... and the close-up's longer side, in pixels (a phone held just above the board: dice
# of 70 to 300 pixels).
CLOSE_UP_SIDE = (800, 1400)


def die_spacing(centers: np.ndarray) -> float:
    """The median distance from a die centre to its nearest neighbour (pixels)."""
    distance = np.linalg.norm(centers[:, None] - centers[None], axis=-1)
    np.fill_diagonal(distance, np.inf)
    return float(np.median(distance.min(axis=1)))


def close_up(
    rng: np.random.Generator, image: np.ndarray, centers: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Held just above the board: only the dice in view, the tray out of it, the outer
    dice touching or cut by the frame, at a phone's resolution."""
    spacing = die_spacing(centers)
    low, high = centers.min(axis=0), centers.max(axis=0)
    margins = rng.uniform(*CLOSE_UP_MARGIN, size=4) * spacing
    height, width = image.shape[:2]
    x0, y0 = max(0, int(low[0] - margins[0])), max(0, int(low[1] - margins[1]))
    x1 = min(width, int(np.ceil(high[0] + margins[2])))
    y1 = min(height, int(np.ceil(high[1] + margins[3])))
    part = image[y0:y1, x0:x1]
    scale = rng.uniform(*CLOSE_UP_SIDE) / max(part.shape[:2])
    size = (round(part.shape[1] * scale), round(part.shape[0] * scale))
    resized = cv2.resize(part, size, interpolation=cv2.INTER_CUBIC)
    moved = (centers - np.array([x0, y0], np.float64) + 0.5) * np.array(
        [size[0] / part.shape[1], size[1] / part.shape[0]]
    ) - 0.5
    return resized, moved


def recoloured(
    rng: np.random.Generator, image: np.ndarray, centers: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """A set of another look: light letters on dark dice of some colour (the photo's
    brightness turned over and its hues turned round), which no training photo has."""
    hsv = cv2.cvtColor(255 - image, cv2.COLOR_RGB2HSV)
    hsv[..., 0] = (hsv[..., 0].astype(np.int32) + int(rng.integers(0, 180))) % 180
    hsv[..., 1] = np.clip(hsv[..., 1].astype(np.float32) * rng.uniform(1.0, 2.5) + 40, 0, 255)
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB), centers


CONDITIONS: dict[str, Condition] = {
    "plain": plain,
    "rotated": rotated,
    "small in clutter": small_in_clutter,
    "bright x1.6": bright,
    "blurred sigma 2": blurred,
    "close-up": close_up,
    "another look": recoloured,
}
