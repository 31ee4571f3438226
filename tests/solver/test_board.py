"""Board notation, explicit cell lists, shapes, errors and neighbour tables."""

from __future__ import annotations

import random
import re
from itertools import product

import pytest

from solver import Board, BoardError, SolverError, from_faces, neighbour_table, parse_board, roll
from solver.dice import DICE_SETS

# "aeol iejm pdls orkf" cell by cell, written out by hand.
AEOL = ("a", "e", "o", "l", "i", "e", "j", "m", "p", "d", "l", "s", "o", "r", "k", "f")


# --- the text notation ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "aeol iejm pdls orkf",
        "aeol\niejm\npdls\norkf",
        "aeol/iejm/pdls/orkf",
        "  aeol / iejm\n\tpdls   orkf \n",
        "AEOL IEJM PDLS ORKF",
        "aeoliejmpdlsorkf",
        "AeOlIeJmPdLsOrKf",
        "a,e,o,l i,e,j,m p,d,l,s o,r,k,f",
    ],
)
def test_rows_separated_by_spaces_newlines_slashes_or_in_one_run(text):
    board = parse_board(text)
    assert (board.rows, board.cols) == (4, 4)
    assert board.faces == AEOL
    assert board.size == "4x4"


def test_cells_are_numbered_row_by_row():
    board = parse_board("abcd efgh ijkl")
    assert board.face(0, 0) == "a"
    assert board.face(1, 2) == "g"
    assert board.face(2, 3) == "l"
    assert board.grid() == [list("abcd"), list("efgh"), list("ijkl")]


@pytest.mark.parametrize("qu", ["q", "qu", "Q", "QU", "Qu", "qU"])
def test_q_and_qu_are_both_the_qu_die(qu):
    board = parse_board(f"{qu}aeo liej mpdl sork")
    assert board.faces[0] == "qu"
    assert board.faces[1:4] == ("a", "e", "o")
    # In one run the Qu die is still one cell: 16 cells, a 4x4 board.
    run = parse_board(f"{qu}aeoliejmpdlsork")
    assert run.faces == board.faces
    # With commas, too.
    commas = parse_board(f"{qu},a,e,o l,i,e,j m,p,d,l s,o,r,k")
    assert commas.faces == board.faces


def test_qu_in_the_middle_of_a_row_and_q_before_u():
    # "quu": the Qu die then a U die; "qq": two Qu dice.
    board = parse_board("aqub quuc qqd")
    assert (board.rows, board.cols) == (3, 3)
    assert board.grid() == [["a", "qu", "b"], ["qu", "u", "c"], ["qu", "qu", "d"]]


def test_two_letter_faces_with_commas_and_blocked_cells():
    board = parse_board("a,th,e,r QU,In,He,An b,c,d,# e,F,g,h")
    assert board.grid() == [
        ["a", "th", "e", "r"],
        ["qu", "in", "he", "an"],
        ["b", "c", "d", "#"],
        ["e", "f", "g", "h"],
    ]


def test_rows_with_and_without_commas_mix():
    board = parse_board("th,e,n abc d#f")
    assert board.grid() == [["th", "e", "n"], ["a", "b", "c"], ["d", "#", "f"]]


def test_without_commas_every_letter_is_one_die():
    # "then" is four dice, not the Th face followed by "en".
    board = parse_board("then then then then")
    assert board.faces[:4] == ("t", "h", "e", "n")


def test_blocked_cells_in_one_run():
    board = parse_board("ab#d#fghi")
    assert (board.rows, board.cols) == (3, 3)
    assert board.faces == ("a", "b", "#", "d", "#", "f", "g", "h", "i")


@pytest.mark.parametrize(
    ("text", "rows", "cols"),
    [
        ("abcd efgh ijkl", 3, 4),
        ("abc def ghi jkl", 4, 3),
        ("abcde fghij klmno pqrst", 4, 5),
        ("abcdef ghijkl mnopqr", 3, 6),
        ("abcdef ghijkl mnopqr stuvwx yzabcd", 5, 6),
    ],
)
def test_non_square_boards(text, rows, cols):
    board = parse_board(text)
    assert (board.rows, board.cols) == (rows, cols)
    assert board.size == f"{rows}x{cols}"
    # q in "pqrst" is the Qu die; every other letter is as written.
    letters = text.replace(" ", "")
    assert len(board.faces) == len(letters) == rows * cols
    assert board.faces == tuple("qu" if ch == "q" else ch for ch in letters)


@pytest.mark.parametrize(("rows", "cols"), list(product(range(3, 7), repeat=2)))
def test_every_size_from_3x3_to_6x6_is_accepted(rows, cols):
    rng = random.Random(rows * 10 + cols)
    letters = [[rng.choice("abcdefghijklmnoprstuvwxyz") for _ in range(cols)] for _ in range(rows)]
    text = " ".join("".join(row) for row in letters)
    board = parse_board(text)
    assert (board.rows, board.cols) == (rows, cols)
    assert board.grid() == letters
    assert from_faces(letters) == board
    assert from_faces([face for row in letters for face in row], rows=rows) == board


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ab cd", "3 to 6 rows, got 2"),
        ("abcd", "3 to 6 rows, got 2"),  # four cells in one run: a 2x2 board
        (" ".join(["abcdefg"] * 7), "3 to 6 rows, got 7"),
        ("abcdefg" * 7, "3 to 6 rows, got 7"),
        ("abcdefg abcdefg abcdefg", "3 to 6 columns, got 7"),
        ("ab ab ab", "3 to 6 columns, got 2"),
        ("abc abc", "3 to 6 rows, got 2"),
    ],
)
def test_too_small_or_too_large_boards_are_rejected(text, message):
    with pytest.raises(BoardError, match=re.escape(message)):
        parse_board(text)


def test_ragged_rows_are_rejected_with_the_row_lengths():
    with pytest.raises(BoardError, match=r"ragged rows.*4, 3, 4, 4"):
        parse_board("abcd efg hijk lmno")
    with pytest.raises(BoardError, match=r"ragged rows.*3, 4, 3"):
        parse_board("a,th,e b,c,d,e f,g,h")
    with pytest.raises(BoardError, match="ragged rows"):
        from_faces([["a", "b", "c"], ["d", "e"], ["f", "g", "h"]])


@pytest.mark.parametrize(
    ("text", "symbol", "row"),
    [
        ("abc1 defg hijk lmno", "1", "abc1"),
        ("abcd ef-g hijk lmno", "-", "ef-g"),
        ("abcd efgh hi.k lmno", ".", "hi.k"),
        ("abcd efgh hijk lmn!", "!", "lmn!"),
        ("abcd3efgh5hijk7lmno", "357", "abcd3efgh5hijk7lmno"),
        ("ab*c?defghijklmn", "*?", "ab*c?defghijklmn"),
    ],
)
def test_unknown_symbols_are_named(text, symbol, row):
    with pytest.raises(BoardError, match=re.escape(f"unknown symbol {symbol!r} in row {row!r}")):
        parse_board(text)


def test_unknown_faces_between_commas_are_named_with_their_cell():
    with pytest.raises(BoardError, match=re.escape("cell 1 (row 1): unknown face '1'")):
        parse_board("a,1,c d,e,f g,h,i")
    with pytest.raises(BoardError, match=re.escape("cell 5 (row 2): unknown face 'xy'")):
        parse_board("a,b,c d,e,xy g,h,i")


def test_empty_cell_between_commas():
    with pytest.raises(BoardError, match="empty cell between commas"):
        parse_board("a,,c d,e,f g,h,i")
    with pytest.raises(BoardError, match="empty cell between commas"):
        parse_board("a,b,c, d,e,f g,h,i")


@pytest.mark.parametrize("text", ["", "   ", "\n\t\n", "/", " / / "])
def test_empty_input(text):
    with pytest.raises(BoardError, match="the board is empty"):
        parse_board(text)


@pytest.mark.parametrize("count", [8, 10, 15, 17, 24, 26, 35])
def test_a_run_that_is_not_square_is_rejected(count):
    text = ("abcdefghij" * 4)[:count]
    with pytest.raises(BoardError, match=rf"{count} cells in one run is not a square board"):
        parse_board(text)


@pytest.mark.parametrize(
    ("value", "type_name"),
    [(None, "NoneType"), (123, "int"), (b"aeoliejmpdlsorkf", "bytes"), (["abc"] * 3, "list")],
)
def test_non_string_input(value, type_name):
    with pytest.raises(BoardError, match=f"a board is text, got {type_name}"):
        parse_board(value)


def test_board_errors_are_value_errors():
    # Callers may catch SolverError or ValueError.
    with pytest.raises(SolverError):
        parse_board("ab cd")
    with pytest.raises(ValueError):
        parse_board("ab cd")


# --- explicit cell lists ---------------------------------------------------------------


def test_from_faces_list_of_rows():
    board = from_faces([["A", "Th", "e"], ["Q", "qu", "#"], [" x ", "in", "Er"]])
    assert (board.rows, board.cols) == (3, 3)
    assert board.faces == ("a", "th", "e", "qu", "qu", "#", "x", "in", "er")


def test_from_faces_tuples_of_rows():
    board = from_faces((("a", "b", "c"), ("d", "e", "f"), ("g", "h", "i")))
    assert board == parse_board("abc def ghi")


def test_from_faces_flat_list_with_rows():
    flat = list("abcdefghijkl")
    board = from_faces(flat, rows=3)
    assert (board.rows, board.cols) == (3, 4)
    assert board.grid() == [list("abcd"), list("efgh"), list("ijkl")]
    board = from_faces(flat, rows=4)
    assert (board.rows, board.cols) == (4, 3)
    assert board.grid() == [list("abc"), list("def"), list("ghi"), list("jkl")]


def test_from_faces_flat_square_list_needs_no_rows():
    board = from_faces(list("abcdefghijklmnop"))
    assert (board.rows, board.cols) == (4, 4)
    assert board == parse_board("abcd efgh ijkl mnop")


def test_from_faces_errors():
    with pytest.raises(BoardError, match=re.escape("10 cells do not split into 3 equal rows")):
        from_faces(list("abcdefghij"), rows=3)
    with pytest.raises(BoardError, match="12 cells in one run is not a square board"):
        from_faces(list("abcdefghijkl"))
    with pytest.raises(BoardError, match="the board is empty"):
        from_faces([])
    with pytest.raises(BoardError, match="the board is empty"):
        from_faces([[]])
    with pytest.raises(BoardError, match=re.escape("cell 4: expected text, got int")):
        from_faces(["a", "b", "c", "d", 5, "f", "g", "h", "i"])
    with pytest.raises(BoardError, match=re.escape("cell 2: expected text, got NoneType")):
        from_faces([["a", "b", None], ["d", "e", "f"], ["g", "h", "i"]])
    with pytest.raises(BoardError, match=re.escape("cell 7 (row 3): unknown face 'xy'")):
        from_faces(["a", "b", "c", "d", "e", "f", "g", "xy", "i"])
    with pytest.raises(BoardError, match=re.escape("cell 3 (row 2): empty cell")):
        from_faces(["a", "b", "c", "", "e", "f", "g", "h", "i"])
    with pytest.raises(BoardError, match="3 to 6 rows, got 2"):
        from_faces([["a", "b", "c"], ["d", "e", "f"]])
    with pytest.raises(BoardError, match="3 to 6 rows, got 1"):
        from_faces(list("abcdefghi"), rows=1)
    with pytest.raises(BoardError, match="3 to 6 columns, got 9"):
        from_faces(list("abcdefghi" * 3), rows=3)


@pytest.mark.parametrize("rows", [0, -3])
def test_from_faces_with_a_nonsense_row_count_is_a_board_error(rows):
    with pytest.raises(BoardError, match=f"3 to 6 rows, got {rows}"):
        from_faces(list("abcdefghi"), rows=rows)


def test_board_constructor_checks_its_cells():
    with pytest.raises(BoardError, match="a 3x3 board needs 9 cells, got 8"):
        Board(3, 3, tuple("abcdefgh"))
    with pytest.raises(BoardError, match="not a normalised face"):
        Board(3, 3, ("A", *"bcdefghi"))
    with pytest.raises(BoardError, match="not a normalised face"):
        Board(3, 3, ("q", *"bcdefghi"))
    with pytest.raises(BoardError, match="3 to 6 rows, got 7"):
        Board(7, 3, tuple("a" * 21))


# --- canonical text --------------------------------------------------------------------


def test_to_text_examples():
    assert parse_board("aeoliejmpdlsorkf").to_text() == "aeol iejm pdls orkf"
    assert parse_board("Qaeo liej mpdl sork").to_text() == "qaeo liej mpdl sork"
    board = from_faces([["qu", "a", "b"], ["c", "th", "d"], ["#", "e", "f"]])
    assert board.to_text() == "qab c,th,d #ef"
    assert str(board) == board.to_text()


def test_in_a_run_q_is_the_qu_die_and_u_a_die_of_its_own():
    """A Qu die next to a U die: "qu" letter by letter is two dice, so the square run of 16
    reads as 16 cells (it used to merge into 15: "not a square board")."""
    board = parse_board("quabcdefghijklmn")
    assert board.size == "4x4"
    assert board.faces[:3] == ("qu", "u", "a")
    rows = parse_board("quab cdef ghij klmn")
    assert rows.faces == board.faces
    assert parse_board(board.to_text()) == board


def test_qu_is_the_qu_die_only_where_letters_alone_make_no_board():
    # A run of 17 is no square; with "qu" as one die it is 16.
    assert parse_board("quaeoliejmpdlsork").faces[:2] == ("qu", "a")
    # Rows of 4 letters each: letter by letter, "qu" is the Qu die then a U die.
    assert parse_board("aquo bcde fghi jklm").grid()[0] == ["a", "qu", "u", "o"]
    # Rows of 5, 4, 4, 4 letters: only the first read with "qu" as one die makes 4 x 4.
    assert parse_board("aquod bcde fghi jklm").grid()[0] == ["a", "qu", "o", "d"]
    with pytest.raises(BoardError, match="ragged rows"):
        parse_board("abcde bcde fghi jklm")


def test_every_rolled_board_reads_back_the_same():
    from solver.dice import DICE_SETS, roll

    for name in DICE_SETS:
        for seed in range(300):
            board = roll(name, seed)
            text = board.to_text()
            assert parse_board(text) == board, (name, seed, text)
            if "," not in text:  # the same board in one run, as `solver score` reads it
                assert parse_board(text.replace(" ", "")) == board, (name, seed, text)


def _random_board(rng: random.Random) -> Board:
    """A board of random shape with every kind of face."""
    rows, cols = rng.randint(3, 6), rng.randint(3, 6)
    kinds = [*"abcdefghijklmnoprstuvwxyz", "qu", "#", "th", "in", "er", "he", "an"]
    weights = [10] * 25 + [3, 3, 1, 1, 1, 1, 1]
    return from_faces(rng.choices(kinds, weights, k=rows * cols), rows=rows)


def test_to_text_round_trips_for_random_rolls_of_every_dice_set():
    for name in DICE_SETS:
        for seed in range(200):
            board = roll(name, seed)
            text = board.to_text()
            assert parse_board(text) == board, (name, seed, text)
            assert parse_board(text.replace(" ", "\n")) == board
            assert parse_board(text.replace(" ", "/")) == board


def test_to_text_round_trips_for_random_boards_of_every_shape_and_face():
    rng = random.Random(20240601)
    for _ in range(500):
        board = _random_board(rng)
        assert parse_board(board.to_text()) == board, board.faces


# --- neighbour tables ------------------------------------------------------------------


def _neighbours_by_coordinates(rows: int, cols: int) -> list[set[int]]:
    """Independent definition: two cells touch when both coordinates differ by at most one."""
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    return [
        {
            j
            for j, (r2, c2) in enumerate(cells)
            if (r, c) != (r2, c2) and abs(r - r2) <= 1 and abs(c - c2) <= 1
        }
        for (r, c) in cells
    ]


@pytest.mark.parametrize(("rows", "cols"), list(product(range(3, 7), repeat=2)))
def test_neighbour_table_matches_coordinates(rows, cols):
    table = neighbour_table(rows, cols)
    expected = _neighbours_by_coordinates(rows, cols)
    assert len(table) == rows * cols
    for cell, neighbours in enumerate(table):
        assert len(neighbours) == len(set(neighbours)), "no duplicates"
        assert cell not in neighbours
        assert set(neighbours) == expected[cell], (rows, cols, cell)


@pytest.mark.parametrize(("rows", "cols"), [(3, 3), (4, 4), (5, 5), (6, 6), (3, 4), (4, 5), (3, 6)])
def test_neighbour_counts_corners_edges_middle(rows, cols):
    table = neighbour_table(rows, cols)

    def count(r, c):
        return len(table[r * cols + c])

    for r, c in [(0, 0), (0, cols - 1), (rows - 1, 0), (rows - 1, cols - 1)]:
        assert count(r, c) == 3
    for c in range(1, cols - 1):
        assert count(0, c) == count(rows - 1, c) == 5
    for r in range(1, rows - 1):
        assert count(r, 0) == count(r, cols - 1) == 5
    for r in range(1, rows - 1):
        for c in range(1, cols - 1):
            assert count(r, c) == 8
    # 8 for every inner cell, 5 on the edges, 3 in the corners: twice the number of
    # touching pairs, counted independently.
    pairs = (rows - 1) * cols + rows * (cols - 1) + 2 * (rows - 1) * (cols - 1)
    assert sum(len(n) for n in table) == 2 * pairs


@pytest.mark.parametrize(("rows", "cols"), [(3, 3), (4, 4), (6, 6), (3, 5), (6, 4)])
def test_neighbour_table_is_symmetric(rows, cols):
    table = neighbour_table(rows, cols)
    for a, neighbours in enumerate(table):
        for b in neighbours:
            assert a in table[b]


def test_board_neighbours_is_the_table_of_its_shape():
    board = parse_board("abcde fghij klmno")
    assert board.neighbours() == neighbour_table(3, 5)
    # The middle of the top row of a 3x5 board, worked out by hand.
    assert set(board.neighbours()[2]) == {1, 3, 6, 7, 8}
    assert set(board.neighbours()[7]) == {1, 2, 3, 6, 8, 11, 12, 13}
