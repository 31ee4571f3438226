"""Find every word on a board: a depth-first walk of the board and the word list's trie at once.

The walk goes from each cell to each unused neighbour while the letters so far are a prefix
of some word, so it never leaves the trie. ``used`` is a bitmask of the cells on the current
path; ``path`` holds them in order, copied only when a new word is found.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from operator import itemgetter
from typing import NamedTuple

from solver.board import Board
from solver.scoring import default_min_length, word_points
from solver.wordlist import WordList

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


def solve(board: Board, word_list: WordList, min_length: int | None = None) -> Solution:
    """Every word of ``word_list`` that ``board`` spells with at least ``min_length`` letters.

    ``min_length`` defaults to the board size's usual minimum (3, or 4 from 5x5 up). A word
    counts once however many paths spell it; the path returned is the first found.
    """
    if min_length is None:
        min_length = default_min_length(board.rows, board.cols)
    points = _points_by_length(board.rows, board.cols)
    restore = word_list.trie.restore_key
    words = []
    for word_mark, path in _find_marked_paths(board, word_list).items():
        word = restore(word_mark - 1)
        length = len(word)
        if length >= min_length:
            words.append(FoundWord(word, path, points[length]))
    # Alphabetical, then a stable sort by points: highest first, ties alphabetical.
    words.sort()
    words.sort(key=itemgetter(2), reverse=True)
    return Solution(board, tuple(words))


def find_paths(board: Board, word_list: WordList) -> dict[int, tuple[int, ...]]:
    """Map each word id (marisa key id) found on the board to one path of cells spelling it."""
    return {mark - 1: path for mark, path in _find_marked_paths(board, word_list).items()}


@cache
def _points_by_length(rows: int, cols: int) -> tuple[int, ...]:
    return tuple(word_points(length, rows, cols) for length in range(_LONGEST + 1))


def _find_marked_paths(board: Board, word_list: WordList) -> dict[int, tuple[int, ...]]:
    """Map ``word_id + 1`` of each word on the board to one path of cells spelling it."""
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
    symbol = word_list.symbol
    result: list[tuple[int, ...]] = []
    for face in board.faces:
        if face == "#" or any(letter not in symbol for letter in face):
            result.append(())
        else:
            result.append(tuple(symbol[letter] for letter in face))
    return result
