"""Points by word length (rules.md) and minimum word lengths."""

from __future__ import annotations

import pytest

from solver import (
    compile_word_list,
    default_min_length,
    parse_board,
    points_table,
    solve,
    word_points,
)
from solver.wordrules import WordRules

# The rule sheet's table: letters -> points, 8 or more letters 11.
CLASSIC = {3: 1, 4: 1, 5: 2, 6: 3, 7: 5, 8: 11, 9: 11, 10: 11, 12: 11, 16: 11, 36: 11}
# 6x6: as above, and from 9 letters each extra letter adds 2 (10 letters = 15).
SUPER_BIG = {3: 1, 4: 1, 5: 2, 6: 3, 7: 5, 8: 11, 9: 13, 10: 15, 11: 17, 12: 19, 16: 27}


@pytest.mark.parametrize(("letters", "points"), sorted(CLASSIC.items()))
def test_4x4_table(letters, points):
    assert word_points(letters, 4, 4) == points
    assert word_points(letters) == points  # 4x4 is the default


@pytest.mark.parametrize(("letters", "points"), sorted(CLASSIC.items()))
def test_5x5_uses_the_same_table(letters, points):
    assert word_points(letters, 5, 5) == points


@pytest.mark.parametrize(("letters", "points"), sorted(SUPER_BIG.items()))
def test_6x6_adds_two_points_per_letter_from_nine(letters, points):
    assert word_points(letters, 6, 6) == points


@pytest.mark.parametrize("letters", [0, 1, 2])
def test_short_words_score_nothing(letters):
    for rows, cols in [(3, 3), (4, 4), (5, 5), (6, 6)]:
        assert word_points(letters, rows, cols) == 0


def test_non_square_boards_below_36_cells_use_the_classic_table():
    for rows, cols in [(3, 4), (4, 5), (5, 6), (3, 6)]:
        assert word_points(9, rows, cols) == 11
        assert word_points(12, rows, cols) == 11


def test_points_table_for_showing_players():
    assert points_table(4, 4, longest=10) == {3: 1, 4: 1, 5: 2, 6: 3, 7: 5, 8: 11, 9: 11, 10: 11}
    assert points_table(6, 6, longest=10) == {3: 1, 4: 1, 5: 2, 6: 3, 7: 5, 8: 11, 9: 13, 10: 15}
    assert min(points_table(5, 5)) == 3
    assert max(points_table(5, 5)) == 17


@pytest.mark.parametrize(
    ("rows", "cols", "minimum"),
    [(3, 3, 3), (4, 4, 3), (5, 5, 4), (6, 6, 4), (4, 5, 3), (5, 6, 4)],
)
def test_default_min_length(rows, cols, minimum):
    assert default_min_length(rows, cols) == minimum


def test_queue_on_a_qu_die_scores_as_five_letters():
    # q u e u e: the Qu die, then E, U, E. Five letters (2 points) though four dice.
    word_list, _ = compile_word_list(["queue", "queen", "quee"], WordRules())
    # qu e  u      queue: qu(0,0) e(0,1) u(0,2) e(1,1)
    # x  e  x      queen: qu(0,0) e(0,1) e(1,1) n(2,2)
    # x  x  n      quee:  qu(0,0) e(0,1) e(1,1)
    # x  x  x
    board = parse_board("qeu xex xxn xxx")
    solution = solve(board, word_list)
    found = solution.by_word()
    assert found["queue"].points == 2
    assert found["queue"].path == (0, 1, 2, 4)
    assert found["queen"].points == 2
    assert len(found["queen"].path) == 4
    # "quee" (4 letters, 3 dice) scores 1.
    assert found["quee"].points == 1
    assert solution.total_points == sum(w.points for w in solution.words)


def test_solve_scores_by_board_shape():
    # A ten-letter word scores 11 on a 4x4-sized board and 15 on 6x6.
    word_list, _ = compile_word_list(["abcdefghij"], WordRules())
    # a-b-c-d along the top row, e below d, then f g h leftwards, i below h, j right of i.
    small = parse_board("abcd hgfe ijxx xxxx")
    assert solve(small, word_list).by_word()["abcdefghij"].points == 11
    big = parse_board("abcdxx hgfexx ijxxxx xxxxxx xxxxxx xxxxxx")
    assert solve(big, word_list).by_word()["abcdefghij"].points == 15
    # 5x6 is not Super Big: 11.
    wide = parse_board("abcdxx hgfexx ijxxxx xxxxxx xxxxxx")
    assert solve(wide, word_list).by_word()["abcdefghij"].points == 11
