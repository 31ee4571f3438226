"""The ``Authorization: Bearer <token>`` header: how an API client sends its secret (a
player's token, a Solve page photo's key), over HTTP and on a websocket's handshake alike.
A secret never goes in an address: addresses end up in proxies' logs (docs/api.md,
"Authentication")."""

from __future__ import annotations

from typing import Any


def token_of(header: str) -> str | None:
    """The token of an ``Authorization`` header's value, or None when it is no Bearer one."""
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def token_of_scope(scope: dict[str, Any]) -> str | None:
    """The Bearer token of an ASGI scope's headers (a websocket's handshake), or None.
    Header bytes are read as Latin-1, as Django reads an HTTP request's."""
    for name, value in scope.get("headers", ()):
        if name.lower() == b"authorization":
            return token_of(value.decode("latin-1"))
    return None
