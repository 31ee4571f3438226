"""The referee of a game played on paper (solver.referee): each written word's verdict,
words two lists share cancelled (or not), lists scored and ranked, and the words nobody
wrote."""

from __future__ import annotations

import itertools

import pytest

from solver import compile_word_list, parse_board, solve
from solver.judge import Verdict
from solver.referee import check_lists
from solver.wordrules import WordRules

# Cells, numbered row by row:
#    0 c   1 a   2 t   3 s
#    4 qu  5 i   6 e   7 x
#    8 d   9 o  10 g  11 z
#   12 w  13 e  14 n  15 t
BOARD = parse_board("cats quiex dogz went")
WORDS = ["cat", "cats", "qua", "quit", "quiet", "diet", "dog", "went", "tag", "tat", "zebra"]


@pytest.fixture(scope="module")
def word_list():
    return compile_word_list(WORDS, WordRules(), name="tiny")[0]


@pytest.fixture(scope="module")
def solution(word_list):
    return solve(BOARD, word_list, 3)


def check(lists, word_list, solution, **options):
    return check_lists(lists, BOARD, word_list, solution, 3, **options)


def verdicts(checked_list):
    return [(entry.word, entry.verdict) for entry in checked_list.words]


def test_each_word_gets_the_games_verdict_in_the_order_written(word_list, solution):
    result = check(
        [("Ann", ["Cat", "zebra", "ox", "xyzzy", "cat", "quit", "c4t"])], word_list, solution
    )
    (ann,) = result.players
    assert verdicts(ann) == [
        ("cat", Verdict.ACCEPTED),
        ("zebra", Verdict.NOT_ON_BOARD),
        ("ox", Verdict.TOO_SHORT),
        ("xyzzy", Verdict.NOT_ON_BOARD),
        ("cat", Verdict.ALREADY_ENTERED),
        ("quit", Verdict.ACCEPTED),
        ("c4t", Verdict.NOT_A_WORD),
    ]
    assert ann.points == 2  # cat 1, quit 1 (qu counts two letters)


def test_a_word_written_twice_is_already_entered_whatever_the_first_copys_verdict(
    word_list, solution
):
    # "tac" is on the board (t-a-c) but not in the dictionary: the second line is the same
    # line written twice, not a second dictionary look-up.
    (ann,) = check([("Ann", ["tac", "TAC"])], word_list, solution).players
    assert verdicts(ann) == [("tac", Verdict.NOT_IN_DICTIONARY), ("tac", Verdict.ALREADY_ENTERED)]


def test_blank_lines_are_skipped(word_list, solution):
    (ann,) = check([("Ann", ["", "  ", "dog", "\t"])], word_list, solution).players
    assert verdicts(ann) == [("dog", Verdict.ACCEPTED)]


def test_accepted_words_carry_a_path_that_spells_them(word_list, solution):
    (ann,) = check([("Ann", ["quiet", "went", "zebra"])], word_list, solution).players
    neighbours = BOARD.neighbours()
    for entry in ann.words:
        if not entry.accepted:
            assert entry.path is None
            continue
        assert entry.path is not None
        assert len(set(entry.path)) == len(entry.path)
        assert all(b in neighbours[a] for a, b in itertools.pairwise(entry.path))
        assert "".join(BOARD.faces[cell] for cell in entry.path) == entry.word


def test_words_two_lists_share_cancel_and_the_lists_are_ranked(word_list, solution):
    result = check(
        [("Ann", ["cat", "quiet"]), ("Bob", ["cat", "diet", "went"]), ("Cy", ["dog"])],
        word_list,
        solution,
    )
    by_name = {entry.name: entry for entry in result.players}
    assert [(w.word, w.points, w.cancelled) for w in by_name["Ann"].words] == [
        ("cat", 0, True),
        ("quiet", 2, False),
    ]
    assert by_name["Bob"].points == 2 and by_name["Cy"].points == 1
    # Ann and Bob tie on 2 and share first place, in the order given; Cy is third.
    assert [(p.name, p.rank) for p in result.players] == [("Ann", 1), ("Bob", 1), ("Cy", 3)]


def test_without_cancelling_shared_words_score_for_everyone(word_list, solution):
    result = check(
        [("Ann", ["cat"]), ("Bob", ["cat"])], word_list, solution, cancel_duplicates=False
    )
    assert [(p.points, p.words[0].cancelled) for p in result.players] == [(1, False), (1, False)]


def test_a_refused_word_two_players_wrote_cancels_nothing(word_list, solution):
    result = check([("Ann", ["tac", "cat"]), ("Bob", ["tac"])], word_list, solution)
    ann = result.players[0]
    assert ann.name == "Ann" and ann.points == 1
    assert not any(entry.cancelled for entry in ann.words)


def test_missed_words_are_the_solutions_words_nobody_had_accepted(word_list, solution):
    result = check([("Ann", ["cat", "tac"]), ("Bob", ["quiet"])], word_list, solution)
    missed = [found.word for found in result.missed]
    assert "cat" not in missed and "quiet" not in missed
    assert missed == [found.word for found in solution.words if found.word not in {"cat", "quiet"}]


def test_house_words_count_and_an_extra_rule_may_refuse_an_accepted_word(word_list, solution):
    def no_t(word):
        return Verdict.NOT_IN_DICTIONARY if "t" in word else None

    (ann,) = check(
        [("Ann", ["tac", "dog", "cat"])],
        word_list,
        solution,
        extra_words={"tac"},
        extra_rule=no_t,
    ).players
    assert verdicts(ann) == [
        ("tac", Verdict.NOT_IN_DICTIONARY),
        ("dog", Verdict.ACCEPTED),
        ("cat", Verdict.NOT_IN_DICTIONARY),
    ]
    (bob,) = check([("Bob", ["tac"])], word_list, solution, extra_words={"tac"}).players
    assert verdicts(bob) == [("tac", Verdict.ACCEPTED)]
