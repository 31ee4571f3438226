"""Dealing a board worth a round: real dice, shaken again when they spell almost nothing.

Real dice sometimes land with hardly a vowel in sight. With the English list, about one
classic 4x4 roll in 600 spells fewer than ten words of three letters or more, some spell
none at all, and with five letters at least one roll in six spells fewer than ten
(``bench/dead_boards.py``). People at a table shake such a board again; the server does the
same. A roll with at least ``MIN_ROUND_WORDS`` words of the round's minimum length
is dealt as it fell, so every other board comes up exactly as often as the dice make it.
After ``MAX_ROUND_ROLLS`` rolls the one with the most words is dealt: a tiny word list may
never reach the floor, and a round must still start.

A themed round (``solver.themes``) counts only the words its theme allows, and is dealt
the same way on those: a board with fewer than ``MIN_ROUND_WORDS`` of them is rolled again,
up to ``MAX_THEMED_ROLLS``. Some themes are rare on any board: with the English list on
classic 4x4 dice, 1 roll in 4 spells three palindromes or more and about 1 in 10,000 spells
ten (50,000 rolls measured), so a palindrome round nearly always takes the richest of its
``MAX_THEMED_ROLLS``, which holds 7 to 9 (10 seeded deals: 0.19 s each on average with
the compiled core, 0.5 s in pure Python; on 6x6, 0.67 s and 2.3 s).

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
# A theme's words are fewer, and some themes rare on any board (see the module's note): more
# rolls, and a 4x4 deal still well under a second (the host waits for the board).
MAX_THEMED_ROLLS = 1000


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
    worth: Callable[[Solution], int] = len,
) -> Deal:
    """The first of ``rolls(0)``, ``rolls(1)``… whose solution is ``good_enough``, or after
    ``max_rolls`` the one worth the most (``worth``: its number of words, unless told;
    the earliest of equals). ``min_length`` as in ``solve`` (``None``: the board size's
    rule)."""
    best: Deal | None = None
    best_worth = -1
    for roll_number in range(max_rolls):
        board = rolls(roll_number)
        dealt = Deal(board, solve(board, word_list, min_length), roll_number)
        if good_enough(dealt.solution):
            return dealt
        if worth(dealt.solution) > best_worth:
            best, best_worth = dealt, worth(dealt.solution)
    if best is None:
        raise ValueError("max_rolls must be at least 1")
    return best


def deal_round_board(
    dice_set: str | DiceSet,
    word_list: WordList,
    min_length: int,
    seed: str | None = None,
    allows: Callable[[str], bool] | None = None,
) -> Deal:
    """A round's board from ``dice_set``: one with ``MIN_ROUND_WORDS`` words of
    ``min_length`` letters or more in ``word_list``, of the words a theme ``allows`` when
    it has one (see the module's note). ``seed`` makes the deal reproducible; ``None`` uses
    fresh randomness."""

    def worth(solution: Solution) -> int:
        if allows is None:
            return len(solution)
        return sum(1 for found in solution.words if allows(found.word))

    return deal(
        lambda roll_number: roll(dice_set, None if seed is None else f"{seed}:{roll_number}"),
        word_list,
        good_enough=lambda solution: worth(solution) >= MIN_ROUND_WORDS,
        max_rolls=MAX_ROUND_ROLLS if allows is None else MAX_THEMED_ROLLS,
        min_length=min_length,
        worth=worth,
    )
