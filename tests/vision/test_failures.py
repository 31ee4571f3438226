"""When no board is read, the reader says what to change; clusters of die-like peaks are
tried in turn. The detector is a stub here: these are the decisions around it."""

from __future__ import annotations

import numpy as np
import pytest

from vision.classify import DieReading
from vision.detect import Candidate, dice_regions
from vision.errors import (
    BoardNotFoundError,
    ClutteredPhotoError,
    DiceCountError,
    DiceTooSmallError,
    GridNotFoundError,
)
from vision.recognize import MIN_DIE_PIXELS, BoardReader, peak_spacing, toned_down


def lattice(side: int, spacing: float, origin: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    cols, rows = np.meshgrid(np.arange(side), np.arange(side))
    points = np.stack([cols.ravel(), rows.ravel()], axis=-1).astype(np.float64) * spacing
    return points + np.array(origin)


def scattered(count: int, seed: int, extent: float = 400.0) -> np.ndarray:
    """Points of clutter: random, well apart from any lattice."""
    return np.random.default_rng(seed).uniform(0, extent, (count, 2))


class StubDetector:
    def __init__(self, passes: list[tuple[np.ndarray, np.ndarray]]) -> None:
        self.passes = passes
        self.asked = 0

    def candidates(self, image: np.ndarray):
        """The passes as given, the last one the whole photo's first pass."""
        for index, (points, scores) in enumerate(self.passes):
            self.asked += 1
            yield Candidate(points, scores, 1.0, whole=index == len(self.passes) - 1)


def reader_with(passes: list[tuple[np.ndarray, np.ndarray]]) -> BoardReader:
    reader = BoardReader.__new__(BoardReader)  # no models: only the grid decisions
    reader.detector = StubDetector(passes)  # type: ignore[assignment]
    return reader


def heats(points: np.ndarray, value: float = 0.9) -> np.ndarray:
    return np.full(len(points), value)


IMAGE = np.zeros((10, 10, 3), np.uint8)


def test_the_first_pass_that_fits_a_grid_wins_and_later_ones_are_not_computed():
    clutter = scattered(9, seed=1)
    board = lattice(4, 40.0, (100, 100))
    whole = np.concatenate([clutter, board])
    reader = reader_with([(clutter, heats(clutter)), (board, heats(board)), (whole, heats(whole))])
    fit = reader._fit(IMAGE, (4, 5, 6))
    assert (fit.grid.rows, fit.grid.cols) == (4, 4)
    assert reader.detector.asked == 2


def test_tiny_dice_ask_to_move_closer():
    tiny = lattice(4, MIN_DIE_PIXELS - 3, (50, 50))
    reader = reader_with([(tiny, heats(tiny))])
    with pytest.raises(DiceTooSmallError, match=r"too small in this photo \(9 pixels across\)"):
        reader._fit(IMAGE, (4, 5, 6))
    assert DiceTooSmallError.advice.startswith("move closer")


def test_a_grid_of_tiny_cells_gives_way_to_a_later_pass_of_real_dice():
    """In a close-up, a letter's strokes can line up as a grid of tiny cells; the view of
    the photo seen smaller then finds the dice."""
    strokes = lattice(4, MIN_DIE_PIXELS - 3, (50, 50))
    dice = lattice(4, 90.0, (60, 60))
    reader = reader_with([(strokes, heats(strokes)), (dice, heats(dice))])
    fit = reader._fit(IMAGE, (4, 5, 6))
    assert fit.grid.spacing() > 80


def test_many_peaks_and_no_grid_is_clutter():
    """The likeliest cluster is no board, and the whole photo holds many more such things."""
    patch = scattered(8, seed=4, extent=200.0)
    clutter = np.concatenate([patch, scattered(30, seed=2)])
    reader = reader_with([(patch, heats(patch)), (clutter, heats(clutter))])
    with pytest.raises(ClutteredPhotoError) as raised:
        reader._fit(IMAGE, (4, 5, 6))
    assert raised.value.advice.startswith("clear the table")


def test_a_board_of_many_dice_that_fits_no_grid_is_not_clutter():
    """Every peak of the whole photo is around the likeliest board: no clutter to clear."""
    board = lattice(5, 40.0)[:15] + np.random.default_rng(5).normal(0, 9, (15, 2))
    reader = reader_with([(board, heats(board)), (board, heats(board))])
    with pytest.raises(BoardNotFoundError) as raised:
        reader._fit(IMAGE, (4, 5, 6))
    assert not isinstance(raised.value, ClutteredPhotoError)


def test_a_few_stray_peaks_and_no_grid_is_no_grid():
    few = scattered(5, seed=3)
    reader = reader_with([(few, heats(few))])
    with pytest.raises(GridNotFoundError) as raised:
        reader._fit(IMAGE, (4, 5, 6))
    assert type(raised.value) is GridNotFoundError
    assert raised.value.advice.startswith("fill the frame")


def test_a_count_that_makes_no_board_keeps_its_count_and_advice():
    three_rows = lattice(5, 40.0)[:15]
    reader = reader_with([(three_rows, heats(three_rows))])
    with pytest.raises(DiceCountError, match="found 15 dice") as raised:
        reader._fit(IMAGE, (4, 5, 6))
    assert "straight above" in raised.value.advice


def test_peak_spacing_is_the_usual_neighbour_distance():
    assert peak_spacing(lattice(4, 25.0), heats(lattice(4, 25.0))) == pytest.approx(25.0)
    assert peak_spacing(lattice(1, 25.0), heats(lattice(1, 25.0))) is None


def test_clusters_come_with_the_most_heat_first():
    """A board of 16 strong peaks and a patch of 6 weaker ones far from it: two regions,
    the board's first, each around its own cluster."""
    board = lattice(4, 3.0, (5, 5))
    patch = lattice(3, 3.0, (30, 30))[:6]
    points = np.concatenate([patch, board])
    scores = np.concatenate([heats(patch, 0.6), heats(board, 0.9)])
    regions = dice_regions(points, scores)
    assert len(regions) == 2
    (x0, y0, x1, y1), (u0, v0, u1, v1) = regions
    assert x0 < 5 < 14 < x1 and y0 < 5 < 14 < y1
    assert u0 < 30 < 36 < u1 and v0 < 30 < 33 < v1


class BrightnessDetector:
    """Finds the board only in a photo whose mean is under ``darker_than``."""

    def __init__(self, darker_than: float, dark_finds: int = 16) -> None:
        self.darker_than = darker_than
        self.dark_finds = dark_finds  # peaks found in a darker photo
        self.means: list[float] = []

    def candidates(self, image: np.ndarray):
        self.means.append(float(image.mean()))
        # In the bright photo the highlights hide a row of dice: no board.
        found = 12 if image.mean() >= self.darker_than else self.dark_finds
        points = lattice(4, 40.0, (60, 60))[:found]
        yield Candidate(points, heats(points), 1.0, whole=True)


class StubClassifier:
    def read(self, crops: np.ndarray, memory=None) -> DieReading:
        return DieReading(["a"] * len(crops), [0.99] * len(crops))


def test_a_washed_out_photo_is_tried_again_darker():
    """No board in the photo as it is: a darker copy is read before giving up, and when
    that fails too the first reason is the one reported."""
    photo = np.full((300, 300, 3), 200, np.uint8)
    reader = BoardReader.__new__(BoardReader)
    reader.classifier = StubClassifier()
    reader.detector = BrightnessDetector(darker_than=180)
    reading = reader.read(photo)
    assert (reading.rows, reading.cols) == (4, 4)
    assert reader.detector.means[0] == 200 and reader.detector.means[1] < 180

    # The darker copy finds too little for a grid, and so does the negative (dark dice,
    # light letters): the photo's own reason is reported.
    reader.detector = BrightnessDetector(darker_than=180, dark_finds=2)
    with pytest.raises(DiceCountError, match="found 12 dice"):
        reader.read(photo)
    means = reader.detector.means
    assert means[0] == 200 and means[1] < 180 and means[2] == 55 and len(means) == 3


def test_the_darker_copy_keeps_black_and_white():
    photo = np.array([[[0, 128, 255]]], np.uint8)
    assert toned_down(photo).tolist() == [[[0, 64, 255]]]


def test_a_failed_reading_lets_its_pixels_go_without_the_cycle_collector() -> None:
    """The web process collects cycles rarely (web.gc_tuning): an unreadable photo
    must not stay in memory through its error's traceback."""
    import gc
    import weakref

    reader = reader_with([(scattered(30, seed=3), heats(scattered(30, seed=3)))])
    photo = np.zeros((400, 400, 3), np.uint8)
    alive = weakref.ref(photo)
    gc.disable()
    try:
        with pytest.raises(BoardNotFoundError) as raised:
            reader.read(photo)
        assert raised.value.__traceback__ is not None  # raised as usual to the caller
        del photo, raised
        assert alive() is None
        assert isinstance(reader.try_read(np.zeros((400, 400, 3), np.uint8)), BoardNotFoundError)
    finally:
        gc.enable()
