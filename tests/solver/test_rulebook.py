"""The rules offline practice plays by in the browser (solver.rulebook) are the server's own
tables: the dice a room rolls for the language, its shortest word and its points."""

from __future__ import annotations

import pytest

from solver import rulebook
from solver.dice import DICE_SETS
from solver.judge import MAX_ENTRY_LENGTH
from solver.scoring import default_min_length, word_points
from solver.wordrules import LIGATURES


@pytest.mark.parametrize(
    ("language", "side", "dice_set"),
    [
        ("en", 4, "classic"),
        ("en", 5, "big"),
        ("en", 6, "super-big"),
        ("fr", 4, "classic-fr"),
        ("nl", 6, "super-big"),
    ],
)
def test_each_size_rolls_the_dice_a_room_rolls(language: str, side: int, dice_set: str) -> None:
    rules = rulebook.rulebook(language)["sizes"][str(side)]
    assert rules["dice_set"] == dice_set
    assert rules["dice"] == [list(die) for die in DICE_SETS[dice_set].dice]
    assert (rules["rows"], rules["cols"]) == (side, side)
    assert rules["min_length"] == default_min_length(side, side)
    assert rules["points"] == [word_points(n, side, side) for n in range(MAX_ENTRY_LENGTH + 1)]


def test_super_big_boggle_scores_long_words_beyond_eight_letters() -> None:
    points = rulebook.rulebook("en")["sizes"]["6"]["points"]
    assert points[8:11] == [11, 13, 15]
    assert rulebook.rulebook("en")["sizes"]["4"]["points"][8:11] == [11, 11, 11]


def test_entries_fold_with_the_word_lists_table() -> None:
    book = rulebook.rulebook("fr")
    assert book["ligatures"] == LIGATURES
    assert book["max_entry_length"] == MAX_ENTRY_LENGTH
