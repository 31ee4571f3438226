"""The official dice sets and seeded, reproducible rolls.

Each die is six faces. Faces are written as in board notation: one letter, "qu" for the Qu
die (the Q face of every set), a two-letter face, or "#" for a blank (blocked) face.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from solver.board import Board, normalise_face
from solver.errors import DiceError


@dataclass(frozen=True)
class DiceSet:
    """A named set of dice and the board shape it is made for."""

    name: str
    title: str
    rows: int
    cols: int
    dice: tuple[tuple[str, ...], ...]

    def __post_init__(self) -> None:
        assert all(len(die) == 6 for die in self.dice), f"{self.name}: a die has six faces"
        assert len(self.dice) == self.rows * self.cols, f"{self.name}: one die per cell"


def _dice(spec: str) -> tuple[tuple[str, ...], ...]:
    """Parse dice written as in the rule sheets.

    Plain dice are six letters ("AAEEGN"); a die with multi-letter or blank faces is written
    in brackets with its faces separated by spaces ("[Qu In Th Er He An]").
    """
    dice = []
    for token in _tokens(spec):
        faces = token[1:-1].split() if token.startswith("[") else list(token)
        dice.append(tuple(normalise_face(face) for face in faces))
    return tuple(dice)


def _tokens(spec: str) -> list[str]:
    tokens, rest = [], spec.split()
    while rest:
        word = rest.pop(0)
        if word.startswith("["):
            while not word.endswith("]"):
                word += " " + rest.pop(0)
        tokens.append(word)
    return tokens


CLASSIC_1992 = DiceSet(
    "classic",
    "Classic 4x4 (1992)",
    4,
    4,
    _dice(
        "AAEEGN ABBJOO ACHOPS AFFKPS AOOTTW CIMOTU DEILRX DELRVY DISTTY EEGHNW EEINSU EHRTVW"
        " EIOSST ELRTTY HIMNQU HLNNRZ"
    ),
)
CLASSIC_1976 = DiceSet(
    "classic-1976",
    "Classic 4x4 (1976/1983)",
    4,
    4,
    _dice(
        "AACIOT ABILTY ABJMOQ ACDEMP ACELRS ADENVZ AHMORS BIFORX DENOSW DKNOTU EEFHIY EGINTV"
        " EGKLUY EHINPS ELPSTU GILRUW"
    ),
)
# Sources disagree whether DHHLOR or DHLNOR is the doubled die; we follow the rule sheet
# that doubles DHLNOR.
BIG_5X5 = DiceSet(
    "big",
    "Big Boggle 5x5",
    5,
    5,
    _dice(
        "AAAFRS AAEEEE AAFIRS ADENNN AEEEEM AEEGMU AEGMNN AFIRSY BJKQXZ CCENST CEIILT CEILPT"
        " CEIPST DDHNOT DHHLOR DHLNOR DHLNOR EIIITT EMOTTT ENSSSU FIPRSY GORRVW IPRRRY NOOTUW"
        " OOOTTU"
    ),
)
SUPER_BIG_6X6 = DiceSet(
    "super-big",
    "Super Big Boggle 6x6 (2012)",
    6,
    6,
    _dice(
        "AAAFRS AAEEEE AAEEOO AAFIRS ABDEIO ADENNN AEEEEM AEEGMU AEGMNN AEILMN AEINOU AFIRSY"
        " [Qu In Th Er He An] BBJKXZ CCENST CDDLNN CEIITT CEIPST CFGNUY DDHNOT DHHLOR DHHNOW"
        " DHLNOR EHILRS EIILST EILPST [E I O # # #] EMTTTO ENSSSU GORRVW HIRSTV HOPRST IPRSYY"
        " [J K Qu W X Z] NOOTUW OOOTTU"
    ),
)

# The French edition's 16 dice: more vowels and S, R, L, fewer K, W, Y and H than the
# English sets; its Q face is a plain "Q", the Qu die of the French game. The letter
# distribution as published for the French Boggle (the same 16 dice in the French-language
# course exercise castooc/Boggle, boggle.py, dice de1-de16).
CLASSIC_FRENCH = DiceSet(
    "classic-fr",
    "Classic 4x4, French edition",
    4,
    4,
    _dice(
        "ETUKNO EVGTIN DECAMP IELRUW EHIFSE RECALS ENTDOS OFXRIA NAVEDZ EIOATA GLENYU BMAQJO"
        " TLIBRA SPULTE AIMSOR ENHRIS"
    ),
)

DICE_SETS: dict[str, DiceSet] = {
    dice_set.name: dice_set
    for dice_set in (CLASSIC_1992, CLASSIC_1976, CLASSIC_FRENCH, BIG_5X5, SUPER_BIG_6X6)
}
# The set a board size rolls from unless a room picks another.
DEFAULT_DICE_SET = {(4, 4): "classic", (5, 5): "big", (6, 6): "super-big"}
# A language's own edition where there is one: (language, rows, cols) -> set.
DEFAULT_DICE_SET_BY_LANGUAGE = {("fr", 4, 4): "classic-fr"}


def default_dice_set(rows: int, cols: int, language: str = "") -> str:
    """The set a board of this size rolls from when the room picked none: the edition of
    the dictionary's language if it has one, else the English one."""
    return DEFAULT_DICE_SET_BY_LANGUAGE.get((language, rows, cols), DEFAULT_DICE_SET[(rows, cols)])


def get_dice_set(name: str) -> DiceSet:
    """Look a dice set up by name; raise DiceError listing the known names."""
    try:
        return DICE_SETS[name]
    except KeyError:
        known = ", ".join(sorted(DICE_SETS))
        raise DiceError(f"unknown dice set {name!r}; known sets: {known}") from None


def roll(dice_set: str | DiceSet = "classic", seed: int | str | None = None) -> Board:
    """Shake the dice into the grid: shuffle the dice over the cells, then show one face each.

    The same seed gives the same board on every machine and Python version (random.Random
    with an int or str seed is stable). ``seed=None`` uses fresh randomness.
    """
    chosen = get_dice_set(dice_set) if isinstance(dice_set, str) else dice_set
    rng = random.Random(seed)
    dice = list(chosen.dice)
    rng.shuffle(dice)
    faces = tuple(rng.choice(die) for die in dice)
    return Board(chosen.rows, chosen.cols, faces)


def could_roll(dice: tuple[tuple[str, ...], ...], faces: list[str] | tuple[str, ...]) -> bool:
    """Whether a board's ``faces`` (any order) could show on these ``dice``: one die per
    face, each showing one of its own (a matching of faces to dice, by augmenting paths)."""
    if len(faces) != len(dice):
        return False
    face_on_die: list[int] = [-1] * len(dice)

    def place(face: int, tried: list[bool]) -> bool:
        for die, sides in enumerate(dice):
            if faces[face] in sides and not tried[die]:
                tried[die] = True
                if face_on_die[die] < 0 or place(face_on_die[die], tried):
                    face_on_die[die] = face
                    return True
        return False

    return all(place(face, [False] * len(dice)) for face in range(len(faces)))


def sets_that_could_roll(faces: list[str] | tuple[str, ...]) -> list[str]:
    """The official sets (names) whose dice could show this board's faces."""
    return [name for name, dice_set in DICE_SETS.items() if could_roll(dice_set.dice, faces)]
