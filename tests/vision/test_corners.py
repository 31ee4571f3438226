"""Corners placed by hand: the dice inside four corners are read without detection."""

from __future__ import annotations

import numpy as np
import pytest

from vision import dataset
from vision.errors import CornersError
from vision.evaluate import score_reading
from vision.lattice import grid_from_corners
from vision.recognize import BoardReader

SQUARE = [[100.0, 100.0], [300.0, 100.0], [300.0, 300.0], [100.0, 300.0]]


def test_corners_make_the_grid_they_outline() -> None:
    grid = grid_from_corners(np.array(SQUARE), 4, 4)
    assert np.allclose(grid.corners(), SQUARE)
    assert np.allclose(grid.centers()[0, 0], [125, 125]) and grid.spacing() == pytest.approx(50)


@pytest.mark.parametrize(
    ("corners", "message"),
    [
        (SQUARE[:3], "four corners"),
        ([SQUARE[0], SQUARE[3], SQUARE[2], SQUARE[1]], "clockwise"),  # anticlockwise
        ([SQUARE[0], SQUARE[2], SQUARE[1], SQUARE[3]], "clockwise"),  # crossing
        ([[0, 0], [10, 0], [10, 10], [0, 10]], "too little"),
        ([[0, 0], [float("nan"), 0], [10, 10], [0, 10]], "four corners"),
    ],
)
def test_corners_that_frame_no_board_are_refused(corners: list, message: str) -> None:
    with pytest.raises(CornersError, match=message):
        grid_from_corners(np.array(corners, dtype=np.float64), 4, 4)


def test_the_dice_inside_the_corners_are_read(
    reader: BoardReader, validation_photos: list[dataset.LabelledPhoto]
) -> None:
    """The grid the reader found, given back as corners (as the page does when the host
    opens "Adjust the grid"), moved a little as a finger would: the same board."""
    photo = next(p for p in validation_photos if p.path.name.startswith("01013b59"))
    found = reader.read(photo.path)
    nudged = (np.array(found.corners) + np.random.default_rng(1).normal(0, 2, (4, 2))).tolist()
    again = reader.read(photo.path, size=found.rows, corners=nudged)
    assert again.letters == found.letters
    assert score_reading(photo, again).right == len(photo.dice)


def test_corners_need_a_size(reader: BoardReader) -> None:
    with pytest.raises(CornersError, match="size"):
        reader.read(np.zeros((400, 400, 3), np.uint8), corners=SQUARE)
