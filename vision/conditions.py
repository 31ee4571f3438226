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


CONDITIONS: dict[str, Condition] = {
    "plain": plain,
    "rotated": rotated,
    "small in clutter": small_in_clutter,
    "bright x1.6": bright,
    "blurred sigma 2": blurred,
}
