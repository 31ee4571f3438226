"""Grid fitting on die centres: sizes, perspective, missing and stray dice, orientation."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.errors import DiceCountError, GridNotFoundError
from vision.lattice import fit_grid


def _project(side: int, angle_degrees: float, tilt: float = 0.0) -> np.ndarray:
    """Centres of a side x side lattice seen turned by ``angle`` and tilted (rows, cols, 2)."""
    cols, rows = np.meshgrid(np.arange(side), np.arange(side))
    lattice = np.stack([cols, rows], -1).reshape(-1, 1, 2).astype(np.float64)
    angle = np.radians(angle_degrees)
    rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    homography = np.eye(3)
    homography[:2, :2] = 30 * rotation
    homography[:2, 2] = (200, 200)
    homography[2, :2] = (tilt, tilt / 2)
    return cv2.perspectiveTransform(lattice, homography).reshape(side, side, 2)


@pytest.mark.parametrize("side", [4, 5, 6])
@pytest.mark.parametrize("angle", [0, 17, 45, 90, 200])
def test_finds_every_size_at_any_angle(side: int, angle: float) -> None:
    """The grid size and every centre are recovered, turned and in perspective."""
    centers = _project(side, angle, tilt=0.02)
    rng = np.random.default_rng(side)
    points = rng.permutation(centers.reshape(-1, 2))
    fit = fit_grid(points)
    assert (fit.grid.rows, fit.grid.cols) == (side, side)
    assert fit.missing == 0
    found = fit.grid.centers().reshape(-1, 2)
    assert np.abs(np.sort(found, axis=0) - np.sort(centers.reshape(-1, 2), axis=0)).max() < 0.5


def test_rows_run_down_the_photo() -> None:
    """Whatever the lattice's own order, row 0 is the top row and column 0 the left."""
    centers = _project(4, 90)
    fit = fit_grid(centers.reshape(-1, 2))
    grid = fit.grid.centers()
    assert grid[0, :, 1].mean() < grid[-1, :, 1].mean()
    assert grid[:, 0, 0].mean() < grid[:, -1, 0].mean()


def test_one_missing_die_is_filled_in() -> None:
    """A die the detector missed is placed from the grid and marked as not observed."""
    centers = _project(5, 10).reshape(-1, 2)
    fit = fit_grid(np.delete(centers, 7, axis=0))
    assert fit.grid.rows == 5
    assert fit.missing == 1
    assert np.linalg.norm(fit.grid.centers().reshape(-1, 2) - centers[7], axis=1).min() < 0.5


def test_stray_point_is_ignored() -> None:
    """A detection far from the lattice is left out."""
    centers = _project(4, 30).reshape(-1, 2)
    points = np.vstack([centers, [[600.0, 600.0]]])
    assert fit_grid(points).grid.rows == 4


def test_wrong_count_is_reported() -> None:
    """Fourteen dice in a 4x4 layout (two missing) is a clear dice-count error."""
    centers = _project(4, 0).reshape(-1, 2)
    with pytest.raises(DiceCountError, match="found 14 dice, expected 16, 25 or 36"):
        fit_grid(centers[2:])


def test_size_hint_is_enforced() -> None:
    """A 4x4 board read with a 5x5 hint says what was expected."""
    with pytest.raises(DiceCountError, match="found 16 dice, expected 25"):
        fit_grid(_project(4, 0).reshape(-1, 2), sides=(5,))


def test_rectangular_layout_is_not_a_board() -> None:
    """Fifteen dice in 3 rows of 5 are not a supported board."""
    cols, rows = np.meshgrid(np.arange(5), np.arange(3))
    points = np.stack([cols, rows], -1).reshape(-1, 2) * 30.0 + 100
    with pytest.raises(DiceCountError, match="found 15 dice"):
        fit_grid(points)


def test_too_few_or_scattered_points_find_no_grid() -> None:
    """A handful of points, or points with no lattice, are not a grid."""
    with pytest.raises(GridNotFoundError, match="no grid found"):
        fit_grid(np.array([[10.0, 10.0], [50.0, 12.0]]))
    scattered = np.random.default_rng(3).uniform(0, 400, (12, 2))
    with pytest.raises((GridNotFoundError, DiceCountError)):
        fit_grid(scattered)
