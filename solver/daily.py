"""The daily board: one board per calendar date, the same on every machine.

The board is rolled from the classic 4x4 dice with a seed made of the ISO date, a fixed
salt and an attempt number, keyed with the site's secret (HMAC-SHA256): the server derives
the same board again whenever it likes, while nobody without the secret can compute a
date's board before that day (the salt and the algorithm are public, in this repository).

A roll that spells too few words (a board with two vowels is no fun for three minutes) is
rolled again with the next attempt number, until one is rich enough: at least
``MIN_WORDS`` words, ``MIN_LONG_WORDS`` of them ``LONG_WORD`` letters or longer. About
three rolls in four pass with the English list, so a date needs one or two rolls (well
under a millisecond each).

Which board a date gets depends on the word list it is checked with: callers that must show
everyone the same board all day store the first one they derive (``daily.boards``).
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import date

from solver.board import Board
from solver.deal import deal
from solver.dice import CLASSIC_1992, DiceSet, roll
from solver.solve import Solution
from solver.wordlist import WordList

# Changing the salt changes every date's board: do it only to start a new series.
DAILY_SALT = "boggle-daily-v1"
# The floor a daily board must reach (minimum word length 3, the 4x4 rule).
MIN_WORDS = 60
MIN_LONG_WORDS = 3
LONG_WORD = 6
# Rolls tried before giving up and taking the richest one seen (only a tiny word list gets
# there; with the English list the longest run over ten years of dates is a handful).
MAX_ROLLS = 200


@dataclass(frozen=True)
class DailyBoard:
    """A date's board, its solution, and which roll (0 = the first) it was."""

    day: date
    board: Board
    solution: Solution
    roll_number: int

    @property
    def rich_enough(self) -> bool:
        return is_rich(self.solution)


def daily_seed(day: date, roll_number: int, secret: str) -> str:
    """The seed of a date's ``roll_number``-th roll: HMAC-SHA256 of the date, the salt and
    the roll number under ``secret``, as hex text, so ``random.Random`` gives the same dice
    on every machine and Python version, and only holders of the secret can derive it."""
    if not secret:
        raise ValueError("the daily board needs a secret: without one its seed is public")
    message = f"{day.isoformat()}:{DAILY_SALT}:{roll_number}"
    return hmac.new(secret.encode(), message.encode(), hashlib.sha256).hexdigest()


def is_rich(solution: Solution) -> bool:
    """Whether a board has enough words, and enough long ones, to be a daily board."""
    long_words = sum(1 for found in solution.words if len(found.word) >= LONG_WORD)
    return len(solution) >= MIN_WORDS and long_words >= MIN_LONG_WORDS


def daily_board(
    day: date, word_list: WordList, secret: str, dice_set: DiceSet = CLASSIC_1992
) -> DailyBoard:
    """The board of ``day`` under ``secret``: the first of its seeded rolls that
    ``is_rich``, or after ``MAX_ROLLS`` the one with the most words (the earliest of
    equals)."""
    dealt = deal(
        lambda roll_number: roll(dice_set, daily_seed(day, roll_number, secret)),
        word_list,
        good_enough=is_rich,
        max_rolls=MAX_ROLLS,
    )
    return DailyBoard(day, dealt.board, dealt.solution, dealt.roll_number)
