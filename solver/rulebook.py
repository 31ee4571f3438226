"""The rules a browser needs to play a round alone, with no server: the dice each board size
rolls from, the shortest word, the points by length, and how an entry is folded.

Written once here, from the same tables the server plays by (``solver.dice``,
``solver.scoring``, ``solver.wordrules``, ``solver.judge``), so the browser's practice
rounds (static/js/offline/) never keep a copy of a rule of their own.
"""

from __future__ import annotations

from typing import Any

from solver.dice import default_dice_set, get_dice_set
from solver.judge import MAX_ENTRY_LENGTH
from solver.scoring import default_min_length, word_points
from solver.wordrules import LIGATURES

# The board sizes a practice round offers (the dice sets the site ships).
SIZES = (4, 5, 6)


def board_rules(side: int, language: str) -> dict[str, Any]:
    """How a side x side board is rolled and scored for a dictionary in ``language``:
    ``dice`` (each die's faces), ``min_length`` and ``points`` (points by word length,
    index = letters, up to the longest entry)."""
    dice_set = get_dice_set(default_dice_set(side, side, language))
    return {
        "rows": side,
        "cols": side,
        "dice_set": dice_set.name,
        "dice": [list(die) for die in dice_set.dice],
        "min_length": default_min_length(side, side),
        "points": [word_points(length, side, side) for length in range(MAX_ENTRY_LENGTH + 1)],
    }


def rulebook(language: str) -> dict[str, Any]:
    """Every size's ``board_rules`` for ``language``, and the entry's rules: the folding
    table for accented lists, and the longest entry judged."""
    return {
        "sizes": {str(side): board_rules(side, language) for side in SIZES},
        "ligatures": LIGATURES,
        "max_entry_length": MAX_ENTRY_LENGTH,
    }
