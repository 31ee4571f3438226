"""Errors of the Solve API (docs/api.md, "Solve a board"); each has its ``code`` for
clients and the HTTP ``status`` it is answered with.

ClientError
 ├── InvalidBoard          400 no board in that text, or one of a size the site does not play
 └── UnknownDictionary     400 no dictionary by that name that rooms may choose
"""

from __future__ import annotations

from web.errors import ClientError


class InvalidBoard(ClientError):
    code = "invalid_board"


class UnknownDictionary(ClientError):
    code = "unknown_dictionary"
