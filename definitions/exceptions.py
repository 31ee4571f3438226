"""Errors of the definitions API; each has a stable ``code`` for clients and an HTTP status.

DefinitionError
 ├── InvalidWord         not a word: empty, too long, or not only letters (400)
 └── LanguageNotFound    no dictionary or language by that name (404)
"""

from __future__ import annotations

from web.errors import ClientError


class DefinitionError(ClientError):
    """Any error of the definitions API."""


class InvalidWord(DefinitionError):
    code = "invalid"


class LanguageNotFound(DefinitionError):
    code = "language_not_found"
    status = 404
