"""Errors of dictionary administration. Messages are written for staff (admin) and hosts.

DictionaryError
 ├── UnusableWordList       an upload or source that cannot become a dictionary
 └── DictionaryUnavailable  no such dictionary, switched off, or not compiled yet
"""

from __future__ import annotations


class DictionaryError(Exception):
    """Base class of the dictionaries app's errors."""


class UnusableWordList(DictionaryError):
    """A word list that is missing, binary, corrupt, too large or without usable words."""


class DictionaryUnavailable(DictionaryError):
    """A dictionary a room cannot play with (unknown, disabled, or without a compiled version)."""
