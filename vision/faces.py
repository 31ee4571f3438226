"""The classifier's label set: die faces and the four ways a die can lie.

The classifier predicts a *joint* class ``(face, turns)``: ``turns`` is how many quarter
turns counter-clockwise (as ``numpy.rot90`` counts them) the upright glyph was turned to
look as it does in the crop. Keeping the orientation in the label lets the board-wide
orientation prior settle M/W and N/Z when a die has no bar under its letter.
"""

from __future__ import annotations

from solver.board import BLOCKED, TWO_LETTER_FACES

# Every face the dice of the supported sets show; "q" alone never appears (the Qu die).
LETTERS = tuple(chr(code) for code in range(ord("a"), ord("z") + 1) if chr(code) != "q")
FACES: tuple[str, ...] = (
    *LETTERS,
    "qu",
    *sorted(TWO_LETTER_FACES - {"qu"}),
    BLOCKED,
)
FACE_INDEX = {face: index for index, face in enumerate(FACES)}
TURNS = 4
NUM_CLASSES = len(FACES) * TURNS
# Letters that many dice sets underline, because they read as another letter when turned.
BARRED = frozenset({"m", "w", "n", "z"})

# Labels in the photo data set that name a face differently.
_LABEL_ALIASES = {"q": "qu", "wild": BLOCKED, "blank": BLOCKED}


def normalise_label(label: str) -> str:
    """Map a data-set label (``"Q"``, ``"wild"``, ``"An"``) to a face of ``FACES``."""
    text = label.strip().lower()
    text = _LABEL_ALIASES.get(text, text)
    if text not in FACE_INDEX:
        raise ValueError(f"unknown die label {label!r}")
    return text


def joint_index(face: str, turns: int) -> int:
    """Index of the joint class ``(face, turns)`` in the classifier's output."""
    return FACE_INDEX[face] * TURNS + turns % TURNS
