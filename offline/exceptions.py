"""Errors of offline practice's word lists (docs/api.md, "Offline practice"); each has its
``code`` for clients and the HTTP ``status`` it is answered with.

ClientError
 └── UnknownWordList     404 no dictionary rooms may choose by that name, or no such version
"""

from __future__ import annotations

from web.errors import ClientError


class UnknownWordList(ClientError):
    code = "unknown_word_list"
    status = 404
