"""The check of a board's reading against its dice set's own dice (vision.dice_check)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from solver.dice import DICE_SETS, roll
from vision.dice_check import AGAINST_THE_SET_CONFIDENCE, assign, check, check_against_any
from vision.faces import FACE_INDEX, FACES

CLASSIC = DICE_SETS["classic"].dice  # one die shows an x (DEILRX), one a j (ABBJOO)


def reading(truth: list[str], misread: dict[int, tuple[str, float]] | None = None):
    """Probabilities, faces and confidences of a classifier that reads ``truth`` at 0.95,
    except at ``misread`` positions: (face read, its probability), the true face next."""
    probabilities = np.full((len(truth), len(FACES)), 0.01 / len(FACES))
    faces, confidence = list(truth), []
    for position, face in enumerate(truth):
        read, sure = (misread or {}).get(position, (face, 0.95))
        probabilities[position, FACE_INDEX[read]] = sure
        if read != face:
            probabilities[position, FACE_INDEX[face]] = (1 - sure) * 0.9
        faces[position] = read
        confidence.append(sure)
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    return probabilities, faces, confidence


def a_classic_board_without(*letters: str) -> list[str]:
    for seed in itertools.count():
        faces = list(roll("classic", seed=seed).faces)
        if not set(letters) & set(faces):
            return faces
    raise AssertionError("unreachable")


@pytest.mark.parametrize("n", [1, 2, 3, 5, 6])
def test_the_assignment_is_the_cheapest(n: int) -> None:
    rng = np.random.default_rng(n)
    for _ in range(20):
        costs = rng.random((n, n)) * 10
        columns, total = assign(costs)
        cheapest = min(
            sum(costs[row, order[row]] for row in range(n))
            for order in itertools.permutations(range(n))
        )
        assert sorted(columns) == list(range(n))
        assert total == pytest.approx(cheapest)


def test_a_board_read_right_passes_unchanged() -> None:
    truth = list(roll("classic", seed=3).faces)
    probabilities, faces, confidence = reading(truth)
    checked = check(probabilities, faces, confidence, CLASSIC)
    assert checked.faces == truth
    assert checked.verdicts == [""] * 16
    assert checked.confidence == [0.95] * 16


def test_a_second_x_is_corrected_to_its_dies_face() -> None:
    truth = a_classic_board_without("x")
    truth[0], truth[5] = "x", "e"  # the board's one x; the die at 5 shows an e
    probabilities, faces, confidence = reading(truth, {5: ("x", 0.5)})
    checked = check(probabilities, faces, confidence, CLASSIC)
    assert faces[5] == "x" and checked.faces[5] == "e"
    assert checked.verdicts[5] == "corrected"
    assert checked.confidence[5] <= AGAINST_THE_SET_CONFIDENCE  # the host still checks it
    assert checked.faces[0] == "x" and checked.verdicts[0] == ""


def test_a_confident_reading_against_the_set_is_doubted_never_corrected() -> None:
    truth = a_classic_board_without("x")
    truth[0] = "x"
    probabilities, faces, confidence = reading(truth, {5: ("x", 0.97)})
    checked = check(probabilities, faces, confidence, CLASSIC)
    assert checked.faces == faces
    assert {checked.verdicts[0], checked.verdicts[5]} == {"", "doubted"}
    doubted = 5 if checked.verdicts[5] else 0
    assert checked.confidence[doubted] == AGAINST_THE_SET_CONFIDENCE


def test_a_face_no_die_shows_is_impossible() -> None:
    truth = list(roll("classic", seed=5).faces)
    probabilities, faces, confidence = reading(truth, {7: ("#", 0.6)})
    checked = check(probabilities, faces, confidence, CLASSIC)
    assert checked.faces[7] == truth[7] and checked.verdicts[7] == "impossible"


def test_a_board_of_another_set_is_left_as_read() -> None:
    """Several confident readings the set cannot show: not a board of this set."""
    truth = a_classic_board_without("x", "j", "z")
    truth[0:6] = ["x", "x", "j", "j", "z", "z"]
    probabilities, faces, confidence = reading(truth)
    checked = check(probabilities, faces, confidence, CLASSIC)
    assert checked.faces == truth
    assert checked.verdicts == [""] * 16


def test_a_set_of_another_size_or_faces_the_reader_cannot_read_is_not_checked() -> None:
    truth = list(roll("classic", seed=4).faces)
    probabilities, faces, confidence = reading(truth, {2: ("#", 0.5)})
    assert check(probabilities, faces, confidence, DICE_SETS["big"].dice).verdicts == [""] * 16
    odd = [("!",) * 6] * 16
    assert check(probabilities, faces, confidence, odd).faces == faces


def test_against_several_sets_only_what_all_agree_on_is_corrected() -> None:
    truth = a_classic_board_without("x")
    truth[0], truth[5] = "x", "e"
    probabilities, faces, confidence = reading(truth, {5: ("x", 0.5)})
    both = check_against_any(probabilities, faces, confidence, [CLASSIC, CLASSIC])
    assert both.faces[5] == "e" and both.verdicts[5] == "corrected"
    # A set with x on every die allows the second x: no correction, but still doubted.
    lenient = tuple(("x", *die[1:]) for die in CLASSIC)
    either = check_against_any(probabilities, faces, confidence, [CLASSIC, lenient])
    assert either.faces[5] == "x"
    assert either.confidence[5] <= AGAINST_THE_SET_CONFIDENCE
    assert check_against_any(probabilities, faces, confidence, []).faces == faces
