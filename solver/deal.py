"""Dealing a board worth a round: real dice, shaken again when they spell almost nothing.

Real dice sometimes land with hardly a vowel in sight. With the English list, about one
classic 4x4 roll in 600 spells fewer than ten words of three letters or more, some spell
none at all, and with five letters at least one roll in six spells fewer than ten
(``bench/dead_boards.py``). People at a table shake such a board again; the server does the
same. A roll with at least ``MIN_ROUND_WORDS`` words of the round's minimum length
is dealt as it fell, so every other board comes up exactly as often as the dice make it.
After ``MAX_ROUND_ROLLS`` rolls the one with the most words is dealt: a tiny word list may
never reach the floor, and a round must still start.

The daily board (``solver.daily``) is dealt the same way, with a higher floor and seeded
rolls.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from solver.board import Board
from solver.dice import DiceSet, roll
from solver.solve import Solution, solve
from solver.wordlist import WordList

# A round's board needs this many words of its minimum length (a 4x4 board usually has
# over a hundred of 3+ letters; one in a hundred has fewer than 25).
MIN_ROUND_WORDS = 10
MAX_ROUND_ROLLS = 50


@dataclass(frozen=True)
class Deal:
    """The board dealt, its solution, and which roll (0 = the first) it was."""

    board: Board
    solution: Solution
    roll_number: int


def deal(
    rolls: Callable[[int], Board],
    word_list: WordList,
    *,
    good_enough: Callable[[Solution], bool],
    max_rolls: int,
    min_length: int | None = None,
) -> Deal:
    """The first of ``rolls(0)``, ``rolls(1)``… whose solution is ``good_enough``, or after
    ``max_rolls`` the one with the most words (the earliest of equals). ``min_length`` as
    in ``solve`` (``None``: the board size's rule)."""
    best: Deal | None = None
    for roll_number in range(max_rolls):
        board = rolls(roll_number)
        dealt = Deal(board, solve(board, word_list, min_length), roll_number)
        if good_enough(dealt.solution):
            return dealt
        if best is None or len(dealt.solution) > len(best.solution):
            best = dealt
    if best is None:
        raise ValueError("max_rolls must be at least 1")
    return best


def deal_round_board(
    dice_set: str | DiceSet, word_list: WordList, min_length: int, seed: str | None = None
) -> Deal:
    """A round's board from ``dice_set``: one with ``MIN_ROUND_WORDS`` words of
    ``min_length`` letters or more in ``word_list`` (see the module's note). ``seed``
    makes the deal reproducible; ``None`` uses fresh randomness."""
    return deal(
        lambda roll_number: roll(dice_set, None if seed is None else f"{seed}:{roll_number}"),
        word_list,
        good_enough=lambda solution: len(solution) >= MIN_ROUND_WORDS,
        max_rolls=MAX_ROUND_ROLLS,
        min_length=min_length,
    )
