"""The C walk's own checks of what it is given (solver/native/walk.c, ``inputs_ok`` and
``row_ok``): it reads and writes only inside its arguments, so every input it cannot walk
safely is refused with WALK_BAD_INPUT (-3) before any reading, and a table row that is not
wholly inside the table is corrupt (WordListError through ``NativeWalk.find``).

``solver.native`` only ever hands it grid neighbours and a compiled table, so these inputs
come from no board: the walk is called here directly, as ctypes calls it. Each case is one
bound, with the last value inside it walked fine beside the first value outside it.
"""

from __future__ import annotations

import importlib
import itertools
from array import array
from collections.abc import Sequence
from pathlib import Path

import pytest

from solver import WordRules, compile_word_list, from_faces, native
from solver.errors import WordListError
from solver.wordlist import WordList

solve_module = importlib.import_module("solver.solve")

BAD_INPUT = -3
# Symbols of the alphabet "abc": a row is 4 slots wide (3 letters and the word mark).
A, B, C = 0, 1, 2


@pytest.fixture(scope="module")
def walker(tmp_path_factory: pytest.TempPathFactory) -> native.NativeWalk:
    """The C core, compiled for this module from solver/native/walk.c."""
    if native.find_compiler() is None:
        pytest.skip("no C compiler (cc, gcc or clang; or $CC): the C core cannot be built")
    library: Path = tmp_path_factory.mktemp("native") / "walk.so"
    assert native.build(library) is True
    loaded = native.load(library)
    assert loaded is not None
    return loaded


@pytest.fixture(scope="module")
def word_list() -> WordList:
    return compile_word_list(
        ["a", "ab", "abc", "ba", "cab"], WordRules(alphabet="abc", min_length=1)
    )[0]


def walk(
    walker: native.NativeWalk,
    word_list: WordList,
    symbols: Sequence[tuple[int, ...]],
    neighbours: Sequence[Sequence[int]],
    *,
    root: int | None = None,
    table: array | None = None,
) -> int:
    """The C walk's return value (a word count, or below 0) for a board given as each
    cell's symbols and neighbour list."""
    table = array("i", word_list.table) if table is None else table
    cells = len(symbols)
    face_start = array("i", itertools.accumulate(map(len, symbols), initial=0))
    face_syms = array("i", itertools.chain.from_iterable(symbols)) or array("i", [0])
    text_start = array("i", range(cells + 1))  # one byte of text a cell
    face_text = b"x" * cells
    nb_start = array("i", itertools.accumulate(map(len, neighbours), initial=0))
    nbs = array("i", itertools.chain.from_iterable(neighbours)) or array("i", [0])
    marks, ends, path_cells = array("i", [0]) * 256, array("i", [0]) * 256, array("i", [0]) * 4096
    text, text_used = array("B", [0]) * 8192, array("i", [0])
    result: int = walker.function(
        table.buffer_info()[0],
        len(table),
        word_list.root if root is None else root,
        word_list.row_width,
        cells,
        face_start.buffer_info()[0],
        face_syms.buffer_info()[0],
        face_start[-1],
        text_start.buffer_info()[0],
        face_text,
        len(face_text),
        nb_start.buffer_info()[0],
        nbs.buffer_info()[0],
        nb_start[-1],
        marks.buffer_info()[0],
        ends.buffer_info()[0],
        len(marks),
        path_cells.buffer_info()[0],
        len(path_cells),
        text.buffer_info()[0],
        len(text),
        text_used.buffer_info()[0],
    )
    return result


def a_line(cells: int) -> list[list[int]]:
    """Neighbours of cells in a row: each touches the one before and the one after."""
    return [[n for n in (c - 1, c + 1) if 0 <= n < cells] for c in range(cells)]


def test_a_sound_board_is_walked(walker: native.NativeWalk, word_list: WordList) -> None:
    # a - b - c in a line: "a", "ab", "abc", "ba" (not "cab": c does not touch a).
    assert walk(walker, word_list, [(A,), (B,), (C,)], a_line(3)) == 4


def test_a_cell_has_at_most_eight_neighbours(
    walker: native.NativeWalk, word_list: WordList
) -> None:
    """Nine would overrun the walk's arrays of MAX_NEIGHBOURS children (on the stack)."""
    for count, expected in ((8, 1), (9, BAD_INPUT)):
        cells = count + 1
        # The hub "a" touches every other cell; those are blocked (no symbols), so even a
        # walk that took the nine would find only "a".
        neighbours = [list(range(1, cells))] + [[0] for _ in range(count)]
        symbols = [(A,)] + [()] * count
        assert walk(walker, word_list, symbols, neighbours) == expected, count


def test_a_cell_is_never_its_own_neighbour(walker: native.NativeWalk, word_list: WordList) -> None:
    neighbours = a_line(3)
    assert walk(walker, word_list, [(A,), (B,), (C,)], neighbours) == 4
    neighbours[1] = [1, *neighbours[1]]
    assert walk(walker, word_list, [(A,), (B,), (C,)], neighbours) == BAD_INPUT


@pytest.mark.parametrize("neighbour", [-1, 3, 64])
def test_a_neighbour_is_a_cell_of_the_board(
    walker: native.NativeWalk, word_list: WordList, neighbour: int
) -> None:
    neighbours = a_line(3)
    neighbours[2] = [1, neighbour]
    assert walk(walker, word_list, [(A,), (B,), (C,)], neighbours) == BAD_INPUT


def test_a_symbol_indexes_a_letter_slot_of_a_row(
    walker: native.NativeWalk, word_list: WordList
) -> None:
    """The last slot of a row is its word mark, not a letter: symbols are 0 to width - 2."""
    last_letter = word_list.row_width - 2
    assert walk(walker, word_list, [(A,), (B,), (last_letter,)], a_line(3)) == 4
    for symbol in (last_letter + 1, last_letter + 2, -1):
        assert walk(walker, word_list, [(A,), (B,), (symbol,)], a_line(3)) == BAD_INPUT


def test_at_most_sixty_four_cells(walker: native.NativeWalk, word_list: WordList) -> None:
    """The used cells are a 64-bit mask."""
    for cells, expected in ((64, 1), (65, BAD_INPUT)):
        symbols = [(A,)] + [()] * (cells - 1)
        assert walk(walker, word_list, symbols, a_line(cells)) == expected, cells


def test_the_root_row_lies_wholly_inside_the_table(
    walker: native.NativeWalk, word_list: WordList
) -> None:
    slots, width = len(word_list.table), word_list.row_width
    board = ([(A,), (B,), (C,)], a_line(3))
    assert word_list.root == slots - width  # the root is the table's last row ...
    assert walk(walker, word_list, *board, root=slots - width) == 4  # ... and is walked
    # Row 0 is the empty row that makes 0 mean "no child": never a row to walk.
    for root in (slots - width + 1, slots, 0, -1, -width):
        assert walk(walker, word_list, *board, root=root) == BAD_INPUT, root


def test_a_child_row_that_runs_past_the_tables_end_is_corrupt(
    walker: native.NativeWalk, word_list: WordList
) -> None:
    board = from_faces(["a", "b", "c"] * 3, rows=3)
    slots, width = len(word_list.table), word_list.row_width
    for child, corrupt in ((slots - width, False), (slots - width + 1, True), (slots - 1, True)):
        table = array("i", word_list.table)
        table[word_list.root + A] = child  # the row reached by "a"
        changed = WordList(word_list.trie, table, word_list.root, word_list.rules)
        symbols = solve_module._cell_symbols(board, changed)
        if corrupt:
            with pytest.raises(WordListError, match="corrupt"):
                walker.find(board, changed, symbols)
        else:
            assert walker.find(board, changed, symbols) is not None
