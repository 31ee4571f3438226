"""Exceptions raised by the solver package.

SolverError
 ├── BoardError       malformed board notation or cell list
 ├── DiceError        unknown dice set, or dice that do not fit a board
 └── WordListError     a word list or compiled dictionary that cannot be used
"""


class SolverError(ValueError):
    """Base class: every error the solver raises on bad input."""


class BoardError(SolverError):
    """The board notation or cell list is malformed; the message says what is wrong."""


class DiceError(SolverError):
    """An unknown dice set, or a dice set that does not fit the requested board."""


class WordListError(SolverError):
    """A word list or compiled dictionary that cannot be read or used."""
