"""Who opens a room socket (docs/api.md, "Authentication"): an API client sends its token
in the handshake's ``Authorization: Bearer`` header, a browser its session cookie (a page
cannot set a websocket's headers, and needs none). A token in the socket's address is
refused, not read: proxies write addresses to their logs (nginx's error log on every reset
socket), and a secret that works there keeps being sent there."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

from django.utils.translation import gettext as _

from games.exceptions import TokenInUrl
from web import bearer

# Query-string names that carried a socket's token before it moved to the header.
SECRET_QUERY_NAMES = frozenset({"token"})


def refuse_secret_in_url(scope: dict[str, Any]) -> None:
    """Raise TokenInUrl when the socket's address names a token, whatever its value (an
    empty one too): the client must hear at once that its secret does not go there."""
    query = scope.get("query_string", b"").decode("latin-1")
    names = {name for name, _value in parse_qsl(query, keep_blank_values=True)}
    if names & SECRET_QUERY_NAMES:
        raise TokenInUrl(
            _(
                "a token never goes in the address (addresses end up in logs): send it in"
                " the Authorization header as Bearer <token>"
            )
        )


def handshake_token(scope: dict[str, Any]) -> str | None:
    """The player's token from the handshake's ``Authorization: Bearer`` header, or None
    (a browser: the session cookie names the player)."""
    return bearer.token_of_scope(scope)
