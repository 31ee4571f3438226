"""End to end: synthetic boards with known faces and turns, real photos, and refusals."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from PIL import Image

from vision import synth
from vision.confidence import DOUBTFUL_BELOW
from vision.errors import DiceCountError, GridNotFoundError
from vision.evaluate import score_reading
from vision.recognize import BoardReader, BoardReading
from vision.synth import render_board

# Validation photos (held out by board) of each size; all read right by the shipped model.
REAL_PHOTOS = {
    4: "4fe17c0c80c316d5acef1eb07f3ec5a6.jpg",  # small board on a textured mat
    5: "a5a29557a133061ab6e77bdf1d53b700.jpg",
    6: "1684601d72024ec4c88e4bbc63facb59.jpg",
}


def _read_faces_by_position(reading: BoardReading, centers: np.ndarray) -> list[str]:
    """The face read nearest to each true centre (orientation-free comparison)."""
    read = np.array(reading.centers, np.float64).reshape(-1, 2)
    faces = [face for row in reading.letters for face in row]
    nearest = np.linalg.norm(centers[:, None] - read[None], axis=-1).argmin(axis=1)
    return [faces[index] for index in nearest]


@pytest.mark.parametrize(("side", "seed"), [(4, 1), (5, 2), (6, 3)])
def test_synthetic_board_with_turned_dice(reader: BoardReader, side: int, seed: int) -> None:
    """A rendered board with every die turned at random is found and read."""
    rng = np.random.default_rng(seed)
    faces: list[list[str]] | None = [
        ["e", "qu", "m", "w"],
        ["n", "z", "th", "a"],
        ["#", "r", "s", "t"],
        ["in", "o", "he", "l"],
    ]
    if side != 4:
        faces = None
    board = render_board(rng, side, faces=faces, fill=0.75)
    reading = reader.read(board.image)
    assert (reading.rows, reading.cols) == (side, side)
    centers = board.centers.reshape(-1, 2)
    read = np.array(reading.centers).reshape(-1, 2)
    spacing = board.grid.spacing()
    assert np.linalg.norm(centers[:, None] - read[None], axis=-1).min(axis=1).max() < spacing / 3
    truth = [face for row in board.faces for face in row]
    got = _read_faces_by_position(reading, centers)
    right = sum(a == b for a, b in zip(truth, got, strict=True))
    assert right >= len(truth) - 1, list(zip(truth, got, strict=True))
    assert all(0 <= value <= 1 for row in reading.confidence for value in row)


def test_reading_orientation_follows_the_photo(reader: BoardReader) -> None:
    """An unturned board photographed square-on reads in the printed order."""
    faces = [["a", "b", "c", "d"], ["e", "f", "g", "h"], ["i", "j", "k", "l"], ["o", "p", "r", "s"]]
    rng = np.random.default_rng(7)
    board = render_board(rng, 4, faces=faces, turns=np.zeros((4, 4), int), fill=0.8)
    # Undo the random placement's turn: re-render until the board is near upright.
    for _ in range(50):
        down = board.grid.to_image(np.array([[1.5, 2.5]])) - board.grid.to_image(
            np.array([[1.5, 1.5]])
        )
        if down[0, 1] > 0.9 * np.linalg.norm(down):
            break
        board = render_board(rng, 4, faces=faces, turns=np.zeros((4, 4), int), fill=0.8)
    reading = reader.read(board.image)
    assert reading.letters == faces


def test_blank_image_finds_no_grid(reader: BoardReader, encode) -> None:
    """A plain grey picture has no board."""
    with pytest.raises(GridNotFoundError, match="no grid found"):
        reader.read(encode(np.full((300, 400, 3), 128, np.uint8)))


def test_wrong_number_of_dice_is_reported(reader: BoardReader) -> None:
    """A 4x4 tray with two dice missing, or three rows of five: the message counts dice.

    The count itself is the detector's (it may see an empty hole as a die, and then count
    a board's number of dice that do not line up as one); what is tested here is that a
    tray with missing dice is refused with a count, not read as a board."""
    counted = r"^(found \d+ dice, expected 16, 25 or 36|no grid found: \d+ dice do not line up as a board)$"
    faces = [list("abcd"), ["e", "", "g", "h"], ["i", "j", "", "l"], list("mnop")]
    board = render_board(np.random.default_rng(1), 4, faces=faces, fill=0.7)
    with pytest.raises((DiceCountError, GridNotFoundError), match=counted):
        reader.read(board.image)
    faces = [list("abcde"), list("fghij"), list("klmno")]
    board = render_board(np.random.default_rng(0), 5, faces=faces, fill=0.7)
    with pytest.raises((DiceCountError, GridNotFoundError), match=counted):
        reader.read(board.image)


def test_size_hint(reader: BoardReader) -> None:
    """With the right hint the board reads; with a wrong one the error names the hint."""
    board = render_board(np.random.default_rng(11), 5, fill=0.75)
    assert reader.read(board.image, size=5).rows == 5
    with pytest.raises(DiceCountError, match="expected 16"):
        reader.read(board.image, size=4)


@pytest.mark.parametrize("side", [4, 5, 6])
def test_real_validation_photo(reader: BoardReader, validation_photos, side: int) -> None:
    """A real photo of a board never seen in training is read end to end."""
    photo = next(p for p in validation_photos if p.path.name == REAL_PHOTOS[side])
    reading = reader.read(photo.path)
    assert (reading.rows, reading.cols) == (side, side)
    result = score_reading(photo, reading)
    assert result.board_right, result.mistakes


def test_large_photo_centres_are_in_full_size_pixels(reader: BoardReader, encode) -> None:
    """A big JPEG is decoded at a reduced scale, but centres come back in its own pixels."""
    board = render_board(np.random.default_rng(4), 4, fill=0.7)
    factor = 2400 / 416
    large = cv2.resize(board.image, (2400, 2400), interpolation=cv2.INTER_CUBIC)
    reading = reader.read(encode(large, quality=90))
    read = np.array(reading.centers).reshape(-1, 2)
    truth = (board.centers.reshape(-1, 2) + 0.5) * factor - 0.5
    spacing = board.grid.spacing() * factor
    assert np.linalg.norm(truth[:, None] - read[None], axis=-1).min(axis=1).max() < spacing / 4


def test_exif_orientation_end_to_end(reader: BoardReader, encode) -> None:
    """A photo stored sideways with EXIF orientation 6 reads as the viewer sees it."""
    board = render_board(np.random.default_rng(5), 4, fill=0.75)
    upright = reader.read(encode(board.image, quality=92))
    exif = Image.Exif()
    exif[0x0112] = 6  # "turn 90 degrees clockwise to view"
    stored = np.ascontiguousarray(np.rot90(board.image))  # the sensor's sideways picture
    turned = reader.read(encode(stored, quality=92, exif=exif.tobytes()))
    assert turned.letters == upright.letters
    assert np.abs(np.array(turned.centers) - np.array(upright.centers)).max() < 3


@pytest.mark.parametrize("printed", ["Q", "Qu", "QU"])
def test_the_qu_die_reads_as_qu_however_the_set_prints_it(
    reader: BoardReader, monkeypatch: pytest.MonkeyPatch, printed: str
) -> None:
    """French and other sets print the Qu die as a plain "Q": it is the Qu die (O dice
    beside it still read as O), and a die the reader gets wrong is never a confident one."""
    monkeypatch.setattr(synth, "QU_PRINTS", ((printed, 1.0),))
    faces = [
        ["qu", "o", "a", "qu"],
        ["o", "e", "qu", "o"],
        ["t", "qu", "o", "s"],
        ["qu", "r", "o", "qu"],
    ]
    board = render_board(np.random.default_rng(21), 4, faces=faces, fill=0.75)
    reading = reader.read(board.image)
    read = np.array(reading.centers, np.float64).reshape(-1, 2)
    nearest = np.linalg.norm(board.centers.reshape(-1, 2)[:, None] - read[None], axis=-1)
    read_faces = [face for row in reading.letters for face in row]
    confidence = [value for row in reading.confidence for value in row]
    truth = [face for row in faces for face in row]
    got = [(read_faces[i], confidence[i]) for i in nearest.argmin(axis=1)]
    pairs = list(zip(truth, got, strict=True))
    assert sum(t == face for t, (face, _) in pairs if t == "qu") >= 5, pairs
    assert sum(t == face for t, (face, _) in pairs if t == "o") >= 5, pairs
    assert not [(t, face) for t, (face, c) in pairs if t != face and c >= DOUBTFUL_BELOW], pairs
