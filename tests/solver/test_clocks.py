"""The shrinking clock (solver.clocks): each round of a game shorter than the one before,
down to a floor."""

from __future__ import annotations

import pytest

from solver.clocks import round_length


def test_each_round_is_shorter_down_to_the_floor() -> None:
    lengths = [round_length(180, number, 30, 30) for number in range(1, 9)]
    assert lengths == [180, 150, 120, 90, 60, 30, 30, 30]


def test_a_floor_between_steps_is_reached_exactly() -> None:
    assert [round_length(180, number, 50, 60) for number in range(1, 6)] == [180, 130, 80, 60, 60]


@pytest.mark.parametrize("shrink", [0, -5])
def test_no_shrinking_keeps_the_full_length(shrink: int) -> None:
    assert round_length(180, 7, shrink, 30) == 180


def test_untimed_rounds_stay_untimed() -> None:
    assert round_length(None, 3, 30, 30) is None


def test_a_floor_above_the_full_length_leaves_the_full_length() -> None:
    """The host chose a floor, then shorter rounds: the rounds never grow past the room's."""
    assert [round_length(60, number, 30, 120) for number in range(1, 4)] == [60, 60, 60]


def test_the_first_round_and_before_are_the_full_length() -> None:
    assert round_length(120, 1, 10, 30) == round_length(120, 0, 10, 30) == 120
