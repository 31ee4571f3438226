"""Errors of the definitions API; each has a stable ``code`` for clients and an HTTP status.

DefinitionError
 ├── InvalidWord         not a word: empty, too long, or not only letters (400)
 └── LanguageNotFound    no dictionary or language by that name (404)
"""

from __future__ import annotations


class DefinitionError(Exception):
    code = "error"
    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


class InvalidWord(DefinitionError):
    code = "invalid"


class LanguageNotFound(DefinitionError):
    code = "language_not_found"
    status = 404
