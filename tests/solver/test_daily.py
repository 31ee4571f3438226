"""The daily board: deterministic per date, rich enough, quick to derive."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from solver import parse_board, solve
from solver.board import Board
from solver.compiler import compile_word_list
from solver.daily import (
    LONG_WORD,
    MAX_ROLLS,
    MIN_LONG_WORDS,
    MIN_WORDS,
    daily_board,
    daily_seed,
    is_rich,
)
from solver.dice import CLASSIC_1992, roll
from solver.wordlist import WordList
from solver.wordrules import WordRules

DAY = date(2026, 3, 14)
# A fixed secret, so the pinned boards below stay reproducible (the site's comes from its
# settings: BOGGLE_DAILY_SECRET).
SECRET = "test-daily-secret"
# DAY's board under SECRET with the shipped English list.
PINNED_BOARD = "rbyg eoei dtof whgn"


def test_same_date_same_board(english: WordList) -> None:
    """Two derivations of one date agree, board and roll number."""
    first, second = daily_board(DAY, english, SECRET), daily_board(DAY, english, SECRET)
    assert first.board == second.board
    assert first.roll_number == second.roll_number


def test_board_is_pinned_for_a_date_and_secret(english: WordList) -> None:
    """The seed is text, so the board is the same on every machine: a known date's board
    under a known secret stays what it was (a change here changes everyone's history)."""
    assert daily_seed(DAY, 2, SECRET) == (
        "1f37146d13f260ea1e4bef59718da107d8c66dc29e3335351cb4400146d2e109"
    )
    board = daily_board(DAY, english, SECRET).board
    assert board.rows == board.cols == 4
    assert board.to_text() == PINNED_BOARD
    assert daily_board(date(2026, 3, 14), english, SECRET).board.to_text() == PINNED_BOARD


def test_the_board_cannot_be_computed_without_the_secret(english: WordList) -> None:
    """The public seed of the first version (date, salt and roll number, no secret) no
    longer gives the date's board, nor does another secret: a client holding the code
    cannot compute tomorrow's board. An empty secret is refused, not used."""
    board = daily_board(DAY, english, SECRET)
    public_seed = f"{DAY.isoformat()}:boggle-daily-v1:{board.roll_number}"
    assert roll(CLASSIC_1992, public_seed).to_text() != board.board.to_text()
    other = daily_board(DAY, english, "another-site's-secret")
    assert other.board.to_text() != board.board.to_text()
    with pytest.raises(ValueError):
        daily_seed(DAY, 0, "")


def test_different_dates_differ(english: WordList) -> None:
    boards = {
        daily_board(DAY + timedelta(days=n), english, SECRET).board.to_text() for n in range(30)
    }
    assert len(boards) == 30


def test_a_poor_first_roll_is_rolled_again(english: WordList) -> None:
    """Some date's first roll is below the floor; its board is a later, rich roll."""
    for n in range(365):
        day = DAY + timedelta(days=n)
        found = daily_board(day, english, SECRET)
        if found.roll_number > 0:
            break
    else:
        raise AssertionError("no date in a year needed a second roll")
    assert found.rich_enough
    assert not is_rich(solve(daily_board_roll(day, 0), english))


def daily_board_roll(day: date, roll_number: int) -> Board:
    return roll(CLASSIC_1992, daily_seed(day, roll_number, SECRET))


def test_a_year_of_dates_all_reach_the_floor(english: WordList) -> None:
    """365 consecutive dates each get a board with enough words and long words, from the
    classic dice, within a few rolls (so deriving a date stays quick)."""
    for n in range(365):
        found = daily_board(date(2027, 1, 1) + timedelta(days=n), english, SECRET)
        words = found.solution.words
        assert len(words) >= MIN_WORDS
        assert sum(len(w.word) >= LONG_WORD for w in words) >= MIN_LONG_WORDS
        assert found.roll_number < 20
        # Each cell shows a face of a different classic die.
        assert len(found.board.faces) == len(CLASSIC_1992.dice)


def test_a_tiny_word_list_gets_the_richest_roll() -> None:
    """With a word list no board can satisfy, the result is still a board: the first of the
    rolls with the most words, after MAX_ROLLS tries."""
    tiny, _ = compile_word_list(["cat", "dog", "tea", "eat", "ate", "set", "ten"], WordRules())
    found = daily_board(DAY, tiny, SECRET)
    assert not found.rich_enough
    counts = [len(solve(daily_board_roll(DAY, n), tiny)) for n in range(MAX_ROLLS)]
    assert len(found.solution) == max(counts)
    assert found.roll_number == counts.index(max(counts))


def test_is_rich_needs_long_words_too(english: WordList) -> None:
    """A board with many words but too few long ones is not a daily board."""
    many_short = solve(parse_board("aeol iejm pdls orkf"), english)
    assert len(many_short) >= MIN_WORDS
    assert sum(len(w.word) >= LONG_WORD for w in many_short.words) < MIN_LONG_WORDS
    assert not is_rich(many_short)
    assert not is_rich(solve(parse_board("xxxx xxxx xxxx xxxx"), english))
    assert is_rich(daily_board(DAY, english, SECRET).solution)
