"""Errors of the dice sets, in the games hierarchy (games.exceptions) so the websocket's and
the API's errors carry them.

ClientError
 └── PhotoSetNotFound   no dice set with that id that this room may use
"""

from __future__ import annotations

from web.errors import ClientError


class PhotoSetNotFound(ClientError):
    """The same answer for an id that does not exist and for another room's set: which
    sets exist is nothing a stranger's room learns."""

    code = "photo_set_not_found"
