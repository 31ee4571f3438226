"""Boggle boards: cells, shapes, the text notation and neighbour tables.

A board is a grid of *faces*. A face is the lower-case text printed on a die: one letter,
``qu`` (the Qu die), a two-letter face of Super Big Boggle (``in th er he an``) or ``#`` for a
blocked square. Cells are numbered row by row from the top left.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from solver.errors import BoardError

BLOCKED = "#"
MIN_SIDE = 3
MAX_SIDE = 6
# Two-letter faces of Super Big Boggle (2012); "qu" is the Qu die of every set.
TWO_LETTER_FACES = frozenset({"qu", "in", "th", "er", "he", "an"})
# In text notation a lone "q" is the Qu die: no die shows a bare Q.
FACE_ALIASES = {"q": "qu"}


@dataclass(frozen=True)
class Board:
    """An immutable grid of faces, ``rows`` x ``cols``, stored row by row."""

    rows: int
    cols: int
    faces: tuple[str, ...]

    def __post_init__(self) -> None:
        check_shape(self.rows, self.cols)
        if len(self.faces) != self.rows * self.cols:
            raise BoardError(
                f"a {self.rows}x{self.cols} board needs {self.rows * self.cols} cells, "
                f"got {len(self.faces)}"
            )
        for index, face in enumerate(self.faces):
            if normalise_face(face) != face:
                raise BoardError(f"cell {index}: {face!r} is not a normalised face")

    @property
    def size(self) -> str:
        """The board's shape as ``"4x4"``."""
        return f"{self.rows}x{self.cols}"

    def face(self, row: int, col: int) -> str:
        return self.faces[row * self.cols + col]

    def grid(self) -> list[list[str]]:
        """The faces as a list of rows."""
        return [list(self.faces[r * self.cols : (r + 1) * self.cols]) for r in range(self.rows)]

    def neighbours(self) -> tuple[tuple[int, ...], ...]:
        """For each cell, the cells touching it (orthogonally or diagonally)."""
        return neighbour_table(self.rows, self.cols)

    def to_text(self) -> str:
        """Canonical notation: rows separated by spaces, the Qu die written ``q``.

        Rows of single letters and Qu dice are written run together (``"aqol"``: each
        character one die, never ambiguous); a row with another two-letter face separates
        its cells with commas (``"a,th,e,r"``, the Qu die ``qu`` there too).
        """
        rows = []
        for row in self.grid():
            if all(len(face) == 1 or face == "qu" for face in row):
                rows.append("".join("q" if face == "qu" else face for face in row))
            else:
                rows.append(",".join(row))
        return " ".join(rows)

    def __str__(self) -> str:
        return self.to_text()


def check_shape(rows: int, cols: int) -> None:
    """Raise BoardError unless both sides are between MIN_SIDE and MAX_SIDE."""
    for name, value in (("rows", rows), ("columns", cols)):
        if not MIN_SIDE <= value <= MAX_SIDE:
            raise BoardError(f"a board has {MIN_SIDE} to {MAX_SIDE} {name}, got {value}")


def normalise_face(face: str) -> str:
    """Lower-case a face and apply aliases (``Q`` -> ``qu``); raise BoardError if unknown."""
    text = face.strip().lower()
    text = FACE_ALIASES.get(text, text)
    if text == BLOCKED:
        return text
    if len(text) == 1 and text.isalpha():
        return text
    if text in TWO_LETTER_FACES:
        return text
    if not text:
        raise BoardError("empty cell")
    raise BoardError(f"unknown face {face!r}: use a letter, qu, in, th, er, he, an or #")


@cache
def neighbour_table(rows: int, cols: int) -> tuple[tuple[int, ...], ...]:
    """Neighbour lists for every cell of a rows x cols grid, computed once per shape."""
    table = []
    for r in range(rows):
        for c in range(cols):
            table.append(
                tuple(
                    nr * cols + nc
                    for nr in range(max(r - 1, 0), min(r + 2, rows))
                    for nc in range(max(c - 1, 0), min(c + 2, cols))
                    if (nr, nc) != (r, c)
                )
            )
    return tuple(table)


def from_faces(faces: list[list[str]] | list[str], rows: int | None = None) -> Board:
    """Build a board from an explicit cell list.

    ``faces`` is either a list of rows (each a list of faces) or a flat list of faces; a flat
    list needs ``rows`` unless it is square.
    """
    if faces and all(isinstance(row, (list, tuple)) for row in faces):
        grid = [list(row) for row in faces]
        _check_rectangular([len(row) for row in grid])
        flat = [face for row in grid for face in row]
        rows = len(grid)
    else:
        flat = list(faces)  # type: ignore[arg-type]
        if rows is None:
            rows = _square_side(len(flat))
    if not flat:
        raise BoardError("the board is empty")
    if rows < 1:
        raise BoardError(f"a board has {MIN_SIDE} to {MAX_SIDE} rows, got {rows}")
    if len(flat) % rows:
        raise BoardError(f"{len(flat)} cells do not split into {rows} equal rows")
    cols = len(flat) // rows
    check_shape(rows, cols)
    normalised = []
    for index, face in enumerate(flat):
        if not isinstance(face, str):
            raise BoardError(f"cell {index}: expected text, got {type(face).__name__}")
        try:
            normalised.append(normalise_face(face))
        except BoardError as error:
            raise BoardError(f"cell {index} (row {index // cols + 1}): {error}") from None
    return Board(rows, cols, tuple(normalised))


# Reads "qu" as the Qu die where a row (or a run) cannot be read letter by letter; other
# two-letter faces always need commas ("then" is four dice, not "th" + "en").
_QU_TOKEN = re.compile(r"qu|.", re.IGNORECASE)


def parse_board(text: str) -> Board:
    """Parse the text notation of a board.

    Accepted forms:
    - rows separated by spaces, newlines or slashes: ``"aeol iejm pdls orkf"``;
    - a square board's cells in one run: ``"aeoliejmpdlsorkf"``;
    - cells separated by commas inside a row, needed for two-letter faces: ``"q,a,th,e ..."``.

    Written without commas, each character is one die and ``q`` is the Qu die, so ``"qu"``
    is the Qu die then a U die. Only where that reading gives no board (a run that is not
    square, rows of unequal length) is ``qu`` read as the Qu die: ``"aquo bcde ..."``.
    ``#`` is a blocked square.
    """
    if not isinstance(text, str):
        raise BoardError(f"a board is text, got {type(text).__name__}")
    row_texts = [row for row in re.split(r"[\s/]+", text.strip()) if row]
    if not row_texts:
        raise BoardError("the board is empty")
    readings = [_row_readings(row) for row in row_texts]
    if len(row_texts) == 1:
        for cells in readings[0]:
            if _is_square(len(cells)):
                return from_faces(cells, rows=_square_side(len(cells)))
        _square_side(len(readings[0][0]))  # raises: not a square run
    return from_faces(_equal_rows(readings))


def _row_readings(row: str) -> list[list[str]]:
    """The ways to read one row, preferred first: with commas, its cells; else one die per
    character, then (if different) ``qu`` as the Qu die."""
    if "," in row:
        cells = row.split(",")
        if any(not cell for cell in cells):
            raise BoardError(f"row {row!r} has an empty cell between commas")
        return [cells]
    bad = sorted({ch for ch in row if not (ch.isalpha() or ch == BLOCKED)})
    if bad:
        raise BoardError(f"unknown symbol {''.join(bad)!r} in row {row!r}")
    letters = list(row)
    merged = _QU_TOKEN.findall(row)
    return [letters] if merged == letters else [letters, merged]


def _equal_rows(readings: list[list[list[str]]]) -> list[list[str]]:
    """One reading per row, all rows the same length: letter by letter where that works."""
    first_choice = [options[0] for options in readings]
    if len({len(cells) for cells in first_choice}) == 1:
        return first_choice
    common = set.intersection(*({len(cells) for cells in options} for options in readings))
    if len(common) != 1:
        _check_rectangular([len(cells) for cells in first_choice])  # raises: ragged rows
    width = common.pop()
    return [next(cells for cells in options if len(cells) == width) for options in readings]


def _is_square(count: int) -> bool:
    return round(count**0.5) ** 2 == count


def _square_side(count: int) -> int:
    side = round(count**0.5)
    if side * side != count:
        raise BoardError(
            f"{count} cells in one run is not a square board; separate the rows with spaces"
        )
    return side


def _check_rectangular(lengths: list[int]) -> None:
    if len(set(lengths)) > 1:
        detail = ", ".join(str(n) for n in lengths)
        raise BoardError(f"ragged rows: every row needs the same number of cells (got {detail})")
