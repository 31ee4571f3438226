"""Points for a word, by the number of letters it has (the Qu die counts as two letters).

The tables of the official rule sheets, documented in docs/dictionaries.md ("The solver")
and, as a round's ``points_table``, in docs/api.md ("Round", "Verdicts"):
- 4x4 and smaller: 3-4 letters 1 point, 5: 2, 6: 3, 7: 5, 8 or more: 11.
- 5x5 (Big Boggle): the same table, but words need 4 letters.
- 6x6 (Super Big Boggle): as 5x5, and from 9 letters on each extra letter adds 2 points
  (9 letters = 13, 10 letters = 15).
Words are scored by their letters, so "queue" played with a Qu die is 5 letters, 2 points.
"""

from __future__ import annotations

# Points by word length for lengths 0..8; longer words score as 8 unless a board adds more.
_BASE_POINTS = (0, 0, 0, 1, 1, 2, 3, 5, 11)
# Super Big Boggle: each letter past 8 adds this many points.
_SUPER_BIG_EXTRA_PER_LETTER = 2
_SUPER_BIG_CELLS = 36

# Default minimum word length by number of cells (3 on 4x4 and smaller, 4 on 5x5 and 6x6).
_BIG_BOARD_CELLS = 25


def default_min_length(rows: int, cols: int) -> int:
    """The usual minimum word length for a board shape: 3, or 4 from 5x5 up."""
    return 4 if rows * cols >= _BIG_BOARD_CELLS else 3


def word_points(length: int, rows: int = 4, cols: int = 4) -> int:
    """Points for a word of ``length`` letters on a rows x cols board (0 below 3 letters)."""
    if length < len(_BASE_POINTS):
        return _BASE_POINTS[length]
    points = _BASE_POINTS[-1]
    if rows * cols >= _SUPER_BIG_CELLS:
        points += _SUPER_BIG_EXTRA_PER_LETTER * (length - (len(_BASE_POINTS) - 1))
    return points


def points_table(rows: int, cols: int, longest: int = 17) -> dict[int, int]:
    """The scoring table for a board shape, for showing to players."""
    return {n: word_points(n, rows, cols) for n in range(3, longest + 1)}
