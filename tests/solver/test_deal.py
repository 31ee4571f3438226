"""Dealing a round's board: dice that spell almost nothing are rolled again, the rest fall
as they fell."""

from __future__ import annotations

import pytest

from solver import solve
from solver.compiler import compile_word_list
from solver.deal import MAX_ROUND_ROLLS, MIN_ROUND_WORDS, deal, deal_round_board
from solver.dice import CLASSIC_1992, roll
from solver.wordlist import WordList
from solver.wordrules import WordRules


def first_seed(english: WordList, min_length: int, *, dead: bool) -> str:
    """A seed whose first roll of the classic dice has fewer than MIN_ROUND_WORDS words of
    ``min_length`` letters (``dead``), or at least that many."""
    for n in range(1000):
        count = len(solve(roll(CLASSIC_1992, f"{n}:0"), english, min_length))
        if (count < MIN_ROUND_WORDS) == dead:
            return str(n)
    raise AssertionError("no such seed in 1,000")


def test_a_roll_with_enough_words_is_dealt_as_it_fell(english: WordList) -> None:
    seed = first_seed(english, 3, dead=False)
    dealt = deal_round_board("classic", english, 3, seed=seed)
    assert dealt.roll_number == 0
    assert dealt.board == roll(CLASSIC_1992, f"{seed}:0")
    assert dealt.solution.words == solve(dealt.board, english, 3).words


def test_a_roll_with_too_few_words_is_rolled_again(english: WordList) -> None:
    """With five letters at least, about one classic roll in seven has fewer than ten words
    (bench/dead_boards.py): such a seed's deal is a later roll, the first good one."""
    seed = first_seed(english, 5, dead=True)
    dealt = deal_round_board(CLASSIC_1992, english, 5, seed=seed)
    assert dealt.roll_number > 0
    assert dealt.board == roll(CLASSIC_1992, f"{seed}:{dealt.roll_number}")
    assert len(dealt.solution) >= MIN_ROUND_WORDS
    assert all(len(found.word) >= 5 for found in dealt.solution.words)
    for earlier in range(dealt.roll_number):
        assert len(solve(roll(CLASSIC_1992, f"{seed}:{earlier}"), english, 5)) < MIN_ROUND_WORDS
    # The same seed deals the same board.
    assert deal_round_board(CLASSIC_1992, english, 5, seed=seed) == dealt


def test_a_tiny_word_list_gets_the_richest_of_the_rolls() -> None:
    """No board reaches the floor with seven words: the deal still ends, with the first of
    the rolls that spell the most."""
    tiny, _ = compile_word_list(["cat", "dog", "tea", "eat", "ate", "set", "ten"], WordRules())
    dealt = deal_round_board(CLASSIC_1992, tiny, 3, seed="tiny")
    counts = [len(solve(roll(CLASSIC_1992, f"tiny:{n}"), tiny, 3)) for n in range(MAX_ROUND_ROLLS)]
    assert max(counts) > 0
    assert len(dealt.solution) == max(counts) < MIN_ROUND_WORDS
    assert dealt.roll_number == counts.index(max(counts))


def test_unseeded_deals_reach_the_floor(english: WordList) -> None:
    for _ in range(50):
        assert len(deal_round_board("classic", english, 5).solution) >= MIN_ROUND_WORDS


def test_a_deal_needs_one_roll_at_least(english: WordList) -> None:
    with pytest.raises(ValueError):
        deal(lambda n: roll(CLASSIC_1992, n), english, good_enough=bool, max_rolls=0)
