"""Find every word on a board: a depth-first walk of the board and the word list's trie at once.

The walk goes from each cell to each unused neighbour while the letters so far are a prefix
of some word, so it never leaves the trie. ``used`` is a bitmask of the cells on the current
path; ``path`` holds them in order, copied only when a new word is found.

Two engines walk the same way and give the same answers (tests/solver/test_native.py
compares them on 5,000 boards): the compiled core ``solver.native`` when its library is
built (``python -m solver.native build``) and loads, else pure Python. ``ENGINE`` says
which one ``solve`` uses; ``BOGGLE_SOLVER=python`` in the environment forces pure Python.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache, partial
from operator import itemgetter
from pathlib import Path
from typing import NamedTuple, cast

from solver import native
from solver.board import BLOCKED, TWO_LETTER_FACES, Board
from solver.errors import SolverError
from solver.scoring import default_min_length, word_points
from solver.wordlist import WordList

logger = logging.getLogger(__name__)

# The environment variable that picks the engine: "python" forces pure Python; unset or
# "auto" takes the compiled core when it loads.
ENGINE_ENV = "BOGGLE_SOLVER"
ENGINES = ("native", "python")

# A symbol that marks a multi-letter face (qu, th, ...) in the adjacency lists; such cells
# are walked letter by letter on the slow path.
_MULTI = -1
# No board spells a word longer than this: 36 cells, each at most two letters.
_LONGEST = 72


class FoundWord(NamedTuple):
    """A word on the board, one path of cells that spells it, and its points."""

    word: str
    path: tuple[int, ...]
    points: int

    def to_dict(self) -> dict:
        return {"word": self.word, "points": self.points, "path": list(self.path)}


# FoundWord(word, path, points) without the Python-level __new__ of a NamedTuple (its _make
# does the same): 0.3 instead of 0.5 us a word, which shows beside the compiled walk.
_new_found_word = cast(
    Callable[[tuple[str, tuple[int, ...], int]], FoundWord], partial(tuple.__new__, FoundWord)
)


@dataclass(frozen=True)
class Solution:
    """Every word on a board, sorted by points (highest first) then alphabetically."""

    board: Board
    words: tuple[FoundWord, ...]

    @property
    def total_points(self) -> int:
        return sum(found.points for found in self.words)

    def __len__(self) -> int:
        return len(self.words)

    def by_word(self) -> dict[str, FoundWord]:
        return {found.word: found for found in self.words}


def solve(
    board: Board,
    word_list: WordList,
    min_length: int | None = None,
    *,
    engine: str | None = None,
) -> Solution:
    """Every word of ``word_list`` that ``board`` spells with at least ``min_length`` letters.

    ``min_length`` defaults to the board size's usual minimum (3, or 4 from 5x5 up). A word
    counts once however many paths spell it; the path returned is the first found.
    ``engine`` ("native" or "python", for benches and tests) overrides ``ENGINE``.
    """
    if min_length is None:
        min_length = default_min_length(board.rows, board.cols)
    points = _points_by_length(board.rows, board.cols)
    words = []
    for word, path in _engine(engine).words(board, word_list):
        length = len(word)
        if length >= min_length:
            words.append(_new_found_word((word, path, points[length])))
    # Alphabetical, then a stable sort by points: highest first, ties alphabetical.
    words.sort()
    words.sort(key=itemgetter(2), reverse=True)
    return Solution(board, tuple(words))


def find_paths(
    board: Board, word_list: WordList, *, engine: str | None = None
) -> dict[int, tuple[int, ...]]:
    """Map each word id (marisa key id) found on the board to one path of cells spelling it."""
    marked_paths = _engine(engine).marked_paths(board, word_list)
    return {mark - 1: path for mark, path in marked_paths.items()}


@cache
def _points_by_length(rows: int, cols: int) -> tuple[int, ...]:
    return tuple(word_points(length, rows, cols) for length in range(_LONGEST + 1))


def select_engine(library: Path = native.LIBRARY) -> tuple[str, native.NativeWalk | None]:
    """The engine to use, and the compiled walk if it is "native".

    Pure Python when ``BOGGLE_SOLVER=python`` or when ``library`` is missing, stale or does
    not load; never raises for a bad library.
    """
    choice = os.environ.get(ENGINE_ENV, "").strip().lower()
    if choice == "python":
        return "python", None
    if choice not in ("", "auto", "native"):
        logger.warning("%s=%r is not python, native or auto: using auto", ENGINE_ENV, choice)
    walker = native.load(library)
    if walker is None:
        if choice == "native":
            logger.warning(
                "%s=native but the compiled core does not load: using python", ENGINE_ENV
            )
        return "python", None
    return "native", walker


class _Engine(NamedTuple):
    """One way to walk a board; both give the same words, paths and order."""

    # (word, path) of each word on the board.
    words: Callable[[Board, WordList], Iterable[tuple[str, tuple[int, ...]]]]
    # word_id + 1 -> path of each word on the board.
    marked_paths: Callable[[Board, WordList], dict[int, tuple[int, ...]]]


def _engine(name: str | None) -> _Engine:
    """The engine called ``name`` (None: ``ENGINE``); SolverError if unknown or not loaded."""
    name = ENGINE if name is None else name
    if name == "native" and _NATIVE is None:
        raise SolverError("the compiled solver core is not loaded: python -m solver.native build")
    try:
        return _ENGINES[name]
    except KeyError:
        raise SolverError(
            f"unknown solver engine {name!r}: use one of {', '.join(ENGINES)}"
        ) from None


def _words_python(board: Board, word_list: WordList) -> list[tuple[str, tuple[int, ...]]]:
    restore = word_list.trie.restore_key
    found = _find_marked_paths_python(board, word_list)
    return [(restore(mark - 1), path) for mark, path in found.items()]


def _words_native(board: Board, word_list: WordList) -> Iterable[tuple[str, tuple[int, ...]]]:
    found = _find_native(board, word_list)
    if found is None:
        return _words_python(board, word_list)
    return zip(found.words, found.paths, strict=True)


def _find_marked_paths_native(board: Board, word_list: WordList) -> dict[int, tuple[int, ...]]:
    """``_find_marked_paths_python``'s answer from the compiled core."""
    found = _find_native(board, word_list)
    if found is None:
        return _find_marked_paths_python(board, word_list)
    return dict(zip(found.marks, found.paths, strict=True))


def _find_native(board: Board, word_list: WordList) -> native.Found | None:
    """The compiled core's walk, or None where it cannot walk (the caller walks in Python)."""
    if _NATIVE is None:
        raise SolverError("the compiled solver core is not loaded: python -m solver.native build")
    return _NATIVE.find(board, word_list, _cell_symbols(board, word_list))


def _find_marked_paths_python(board: Board, word_list: WordList) -> dict[int, tuple[int, ...]]:
    """Map ``word_id + 1`` of each word on the board to one path of cells spelling it.

    The reference walk: the compiled core (walk.c) must give the same dict, order included.
    """
    table = word_list.table
    end_slot = len(word_list.alphabet)
    cell_symbols = _cell_symbols(board, word_list)
    # adjacency[cell] lists (neighbour, neighbour's bit, neighbour's symbol) for usable
    # neighbours only: blocked cells and letters outside the alphabet never appear.
    adjacency = [
        tuple(
            (nb, 1 << nb, _MULTI if len(cell_symbols[nb]) > 1 else cell_symbols[nb][0])
            for nb in neighbours
            if cell_symbols[nb]
        )
        for neighbours in board.neighbours()
    ]
    found: dict[int, tuple[int, ...]] = {}
    path = [0] * len(cell_symbols)

    def step(node: int, symbols: tuple[int, ...]) -> int:
        """Follow several letters from an internal node; returns a table value (0 = none)."""
        for sym in symbols:
            if node <= 0:
                return 0
            node = table[node + sym]
        return node

    def walk(cell: int, node: int, used: int, depth: int) -> None:
        # node: offset of the row for the letters on the path so far (always internal);
        # path[:depth] holds the path's cells.
        for nb, bit, sym in adjacency[cell]:
            if used & bit:
                continue
            child = table[node + sym] if sym >= 0 else step(node, cell_symbols[nb])
            if child > 0:
                path[depth] = nb
                if (word_mark := table[child + end_slot]) and word_mark not in found:
                    found[word_mark] = tuple(path[: depth + 1])
                walk(nb, child, used | bit, depth + 1)
            elif child < 0 and -child not in found:
                path[depth] = nb
                found[-child] = tuple(path[: depth + 1])

    root = word_list.root
    for cell, symbols in enumerate(cell_symbols):
        if not symbols:
            continue
        child = step(root, symbols)
        path[0] = cell
        word_mark = table[child + end_slot] if child > 0 else -child
        if word_mark and word_mark not in found:
            found[word_mark] = (cell,)
        if child > 0:
            walk(cell, child, 1 << cell, 1)
    return found


def _cell_symbols(board: Board, word_list: WordList) -> list[tuple[int, ...]]:
    """Each cell's face as alphabet symbols; () for blocked or unspellable faces."""
    known = _symbols_by_face(word_list.alphabet)
    return [
        known[face] if face in known else _face_symbols(face, word_list.alphabet)
        for face in board.faces
    ]


@cache
def _symbols_by_face(alphabet: str) -> dict[str, tuple[int, ...]]:
    """``_face_symbols`` of the blocked face, each letter and each two-letter face, once."""
    faces = [BLOCKED, *alphabet, *TWO_LETTER_FACES]
    return {face: _face_symbols(face, alphabet) for face in faces}


def _face_symbols(face: str, alphabet: str) -> tuple[int, ...]:
    """A face's letters as alphabet symbols; () for the blocked face or a letter outside."""
    if face == BLOCKED or any(letter not in alphabet for letter in face):
        return ()
    return tuple(alphabet.index(letter) for letter in face)


_ENGINES = {
    "native": _Engine(_words_native, _find_marked_paths_native),
    "python": _Engine(_words_python, _find_marked_paths_python),
}
# The engine solve() and find_paths() use: "native" or "python", chosen once at import.
ENGINE, _NATIVE = select_engine()
