"""Cut each die of a fitted grid out of a photo as a small, rectified grayscale crop.

A crop covers ``CROP_CELLS`` cells around the die's lattice position, warped so the grid's
rows are horizontal: the die's letter appears in one of four quarter turns. Large photos are
first shrunk (area averaging) so the warp never samples more sparsely than it should.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.lattice import Grid
from vision.nets import CLASSIFIER_INPUT

# Side of a crop in cells: a little more than one die, so a slightly off grid still holds
# the whole letter.
CROP_CELLS = 1.1


def _board_window(image: np.ndarray, grid: Grid, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The board's region of ``image`` in grayscale, shrunk so a cell is about 1.5 crops.

    Returns the window and the 3x3 transform from photo pixels to window pixels.
    """
    corners = grid.to_image(
        np.array([[-1, -1], [grid.cols, -1], [grid.cols, grid.rows], [-1, grid.rows]], np.float64)
    )
    height, width = image.shape[:2]
    x0, y0 = np.floor(corners.min(axis=0)).astype(int)
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int)
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, width), min(y1, height)
    if x1 <= x0 or y1 <= y0:
        x0, y0, x1, y1 = 0, 0, width, height
    window = image[y0:y1, x0:x1]
    if window.ndim == 3:
        window = cv2.cvtColor(window, cv2.COLOR_RGB2GRAY)
    cell = grid.spacing() * CROP_CELLS
    scale = min(1.0, 1.5 * size / max(cell, 1e-6))
    if scale < 1.0:
        new_size = (max(1, round(window.shape[1] * scale)), max(1, round(window.shape[0] * scale)))
        scale_x, scale_y = new_size[0] / window.shape[1], new_size[1] / window.shape[0]
        window = cv2.resize(window, new_size, interpolation=cv2.INTER_AREA)
    else:
        scale_x = scale_y = 1.0
    transform = np.array([[scale_x, 0, -x0 * scale_x], [0, scale_y, -y0 * scale_y], [0, 0, 1]])
    return window, transform


def cut_dice(
    image: np.ndarray,
    grid: Grid,
    size: int = CLASSIFIER_INPUT,
    jitter: np.ndarray | None = None,
) -> np.ndarray:
    """Grayscale crops of every die, row by row: ``uint8`` (rows * cols, size, size).

    ``jitter`` (training only) is an optional (rows * cols, 3, 3) array of lattice-space
    transforms applied around each die centre, to imitate an imperfect grid fit.
    """
    window, to_window = _board_window(image, grid, size)
    homography = to_window @ grid.homography
    step = CROP_CELLS / size
    crops = np.empty((grid.rows * grid.cols, size, size), np.uint8)
    for index in range(grid.rows * grid.cols):
        row, col = divmod(index, grid.cols)
        # crop pixel (u, v) -> lattice point around (col, row)
        local = np.array(
            [
                [step, 0, -CROP_CELLS / 2 + step / 2],
                [0, step, -CROP_CELLS / 2 + step / 2],
                [0, 0, 1],
            ]
        )
        if jitter is not None:
            local = jitter[index] @ local
        place = np.array([[1, 0, col], [0, 1, row], [0, 0, 1]], np.float64)
        crops[index] = cv2.warpPerspective(
            window,
            homography @ place @ local,
            (size, size),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        )
    return crops


def standardise(crops: np.ndarray) -> np.ndarray:
    """Per-crop zero mean, unit variance, as float32 (N, size, size, 1): the model's input."""
    values = crops.astype(np.float32)
    mean = values.mean(axis=(1, 2), keepdims=True)
    std = values.std(axis=(1, 2), keepdims=True)
    return ((values - mean) / np.maximum(std, 8.0))[..., None]
