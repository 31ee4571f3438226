"""Reading a set the classifier never saw: its letters printed light on dark, close-ups of
it, and what its host confirmed (the set's memory)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision import dataset
from vision.conditions import blurred, close_up
from vision.crops import cut_dice
from vision.evaluate import (
    SetBoard,
    board_crops_from_array,
    faces_by_cell,
    score_faces,
    score_reading,
)
from vision.loading import load_image
from vision.memory import MAX_PER_FACE, SetMemory, recall
from vision.polarity import dark_on_light, light_letter_share, light_letters
from vision.recognize import BoardReader

OTHER_SETS = dataset.DEFAULT_DATA_DIR.parent / "other-sets"
BOOGLE = OTHER_SETS / "boogle"


def crops_of(*faces: str) -> np.ndarray:
    """Plain 32x32 crops: a light face with a dark bar whose place depends on the face."""
    crops = np.full((len(faces), 32, 32), 230, np.uint8)
    for index, face in enumerate(faces):
        column = 6 + (ord(face[0]) - ord("a")) % 20
        crops[index, 8:24, column : column + 4] = 30
    return crops


# ---------------------------------------------------------------- light letters on dark dice


def test_light_letters_on_dark_dice_are_turned_over() -> None:
    dark_ink = crops_of("a", "b", "c")
    assert not light_letters(dark_ink)
    assert light_letters(255 - dark_ink)
    assert np.array_equal(dark_on_light(255 - dark_ink), dark_ink)
    assert dark_on_light(dark_ink) is dark_ink


def test_a_set_printed_light_on_dark_reads_as_its_negative(
    reader: BoardReader, validation_photos: list[dataset.LabelledPhoto]
) -> None:
    """The team's photos with every tone turned over (dark dice, light letters: no training
    die looks like that) read as the photos do."""
    photo = next(p for p in validation_photos if p.path.name.startswith("01013b59"))
    image = load_image(photo.path)
    as_taken = score_reading(photo, reader.read(image))
    turned = score_reading(photo, reader.read(255 - image))
    assert as_taken.right == as_taken.dice
    assert turned.right == turned.dice


@pytest.mark.parametrize(
    "name", ["12f33aab5f47ca0917cf86597a4c8f09.jpg", "bad46318fa8d574127a7e40623046353.jpg"]
)
def test_a_blurred_board_whose_dice_look_half_light_lettered_reads_the_right_way_round(
    reader: BoardReader, validation_photos: list[dataset.LabelledPhoto], name: str
) -> None:
    """Out of focus, a dark letter's strokes spread over the face until half the dice look
    light-lettered: the majority alone turned these boards over and read none of their
    dice right; read both ways, the classifier's surer reading is the right one."""
    photo = next(p for p in validation_photos if p.path.name == name)
    rng = np.random.default_rng(0)
    image, centers = blurred(rng, load_image(photo.path), photo.centers())
    fit, pixels = reader.find_grid(image)
    assert 0.25 < light_letter_share(cut_dice(pixels, fit.grid)) < 0.75  # the doubt itself
    result = score_reading(photo, reader.read(image), centers)
    assert result.error is None and result.right >= result.dice - 1


# ---------------------------------------------------------------- close-ups


@pytest.mark.parametrize(
    "name", ["e99d9817c9146b35b258bd6483433b5d.jpg", "83b3762924c767d76e5a741941621827.jpg"]
)
def test_a_close_up_whose_outer_dice_touch_the_frame_reads(
    reader: BoardReader, validation_photos: list[dataset.LabelledPhoto], name: str
) -> None:
    """Held just above the board: the tray out of view, the dice bigger than any the
    detector was trained on (these two read "found 4 dice" before the photo was looked at
    smaller too)."""
    photo = next(p for p in validation_photos if p.path.name == name)
    image, centers = close_up(np.random.default_rng(3), load_image(photo.path), photo.centers())
    result = score_reading(photo, reader.read(image), centers)
    assert result.error is None and result.right == result.dice


def test_another_sets_close_up_reads() -> None:
    """Cream dice, navy letters, a blue tray, cut tight to the dice: a set and a framing
    the reader was never trained on."""
    if not (BOOGLE / "boogle-1.jpg").is_file():
        pytest.skip(f"no photos of other sets in {OTHER_SETS}")
    reading = BoardReader().read(BOOGLE / "boogle-1.jpg")
    assert reading.text() == "tntb gdar elte sish"


# ---------------------------------------------------------------- memory


def test_a_memory_keeps_the_newest_exemplars_of_each_face(tmp_path: Path) -> None:
    memory = SetMemory().added(crops_of(*["a"] * MAX_PER_FACE), ["a"] * MAX_PER_FACE)
    newer = crops_of("a", "b")
    newer[0, 0, 0] = 7  # marks the newest "a"
    memory = memory.added(newer, ["a", "b"])
    assert memory.faces.count("a") == MAX_PER_FACE and memory.faces.count("b") == 1
    assert memory.crops[memory.faces.index("b") - 1, 0, 0] == 7
    memory.save(tmp_path / "set")
    loaded = SetMemory.load(tmp_path / "set")
    assert loaded.faces == memory.faces and np.array_equal(loaded.crops, memory.crops)
    assert len(SetMemory.load(tmp_path / "nothing yet")) == 0


def test_a_memory_refuses_what_is_not_a_die() -> None:
    with pytest.raises(ValueError, match="one face per crop"):
        SetMemory(crops_of("a", "b"), ("a",))
    with pytest.raises(ValueError, match="unknown faces"):
        SetMemory(crops_of("a"), ("q",))  # the Qu die is "qu"


def test_resemblance_counts_whatever_way_the_exemplar_lies() -> None:
    rng = np.random.default_rng(0)
    exemplar = rng.normal(size=(4, 8))
    exemplar /= np.linalg.norm(exemplar, axis=1, keepdims=True)
    # The die is the exemplar turned by one quarter: its k-th turn is the exemplar's k+1.
    die = np.roll(exemplar, -1, axis=0)[:, None, :]
    similarity = recall(die, exemplar[None], ["m"], np.full(32, 0.86)).similarity
    assert similarity[0, FACE_M] == pytest.approx(1.0)
    assert (np.delete(similarity[0], FACE_M) == -1).all()


def test_the_memory_leans_to_the_face_a_die_resembles() -> None:
    similarity = np.full((1, 32), -1.0)
    similarity[0, FACE_M] = 0.97  # like the confirmed Ms
    from vision.memory import Recall

    marginal = np.full((1, 32), 0.01)
    marginal[0, FACE_W] = 0.69  # the classifier says W
    posterior = Recall(similarity, np.full(32, 0.86)).posterior(marginal / marginal.sum())
    assert posterior.argmax() == FACE_M


FACE_M = 12
FACE_W = 21


def test_face_indices_used_above() -> None:
    from vision.faces import FACE_INDEX

    assert (FACE_INDEX["m"], FACE_INDEX["w"]) == (FACE_M, FACE_W)


def test_a_face_it_has_never_seen_is_read_after_one_confirmation(reader: BoardReader) -> None:
    """A set whose Qu die prints a sign no training die has (an Omega): the classifier
    reads it as something else; once the host confirmed one board, its other boards read
    the Qu die right."""
    from vision.synth import SetStyle, render_board

    font = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
    if not Path(font).is_file():
        pytest.skip(f"{font} is missing (Debian fonts-dejavu-core)")
    style = SetStyle("omega", font, (240, 235, 215), (20, 30, 90), (200, 90, 20), "\u03a9")
    faces = [
        ["qu", "a", "t", "qu"],
        ["e", "qu", "r", "s"],
        ["qu", "o", "n", "l"],
        ["d", "i", "qu", "m"],
    ]

    def board(seed: int) -> SetBoard:
        rng = np.random.default_rng([seed])
        shot = render_board(
            rng, 4, [font], photo_size=(640, 480), faces=faces, fill=0.8, style=style, effects=False
        )
        return SetBoard(
            str(seed), shot.image, [f for row in faces for f in row], shot.centers.reshape(-1, 2)
        )

    first, second = board(1), board(2)
    before = score_faces("before", second.faces, second.centers, reader.read(second.image))
    # The precondition: the sign is not read as Qu.
    assert sum(truth == "qu" for truth, _ in before.mistakes) >= 3
    confirmed = reader.read(first.image)
    crops = board_crops_from_array(first.image, confirmed)
    memory = SetMemory().added(crops, faces_by_cell(first, confirmed))
    after = score_faces(
        "after", second.faces, second.centers, reader.read(second.image, memory=memory)
    )
    assert after.mistakes == [] and after.silent == 0
