"""Whose ``Idempotency-Key`` it is, which request it was sent with, and what a replay gives
back (docs/api.md, "Retrying a request"; the decorator is ``web.json_api.idempotent``).

A key belongs to its caller, as Stripe scopes keys to an API key: the same key from another
caller is another key, so a stored answer (a player and its token) goes back only to the
caller who made it. The caller is, first match wins:

- a request with ``Authorization: Bearer``: the token (a player's token never changes, so
  it stands for the player);
- else one with a session cookie: that cookie, as sent (whether or not the session still
  exists: a retry sends the same cookie, and only its holder knows it);
- else the client address. A first ``POST /api/rooms`` has no session yet, and when its
  answer is lost the cookie that answer set is lost with it: the retry comes from the same
  address with no cookie. Another client at that address (one household, one NAT) would
  also need the same key and the same body; clients make keys random.

When the answer set a new session cookie, the key is also that session's: a retry that
lost only the body carries the cookie the answer set, and is the same caller (the session
was made for it, and only it holds the cookie).

A key is also bound to its request (SHA-256 of method, path and body): the same caller
sending the same key with another body is a client bug, refused with 422
``idempotency_key_reused``, never answered with the first request's result.
Only hashes are stored: no session cookie, token or address in the table, and the path as
its hash (any length fits the column).

A replay restores the session as the first answer left it: when the first copy came with
no session (or one that no longer existed), what the view wrote in the new session (the
player it made, a join request, a daily attempt) is kept with the answer and written
again into the retry's session. A first copy that had a session keeps nothing: its retry
carries that session, which already holds the writes, and nothing of one session is ever
copied into another.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.conf import settings
from django.http import HttpRequest

from web import throttle

# The name under which a stored answer keeps the session the first answer made (no API
# answer has a field of that name); a replay takes it out before answering.
SESSION_WRITES = "__session__"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def caller(request: HttpRequest, token: str | None) -> str:
    """SHA-256 (hex) of who sends the request: the Bearer token, the session cookie or
    the client address (the module's docstring). ``token``: the Bearer token, if any."""
    if token:
        return _digest(f"token:{token}")
    if cookie := request.COOKIES.get(settings.SESSION_COOKIE_NAME):
        return session_caller(cookie)
    return _digest(f"address:{throttle.client_address(request)}")


def session_caller(cookie: str) -> str:
    """SHA-256 (hex) of the caller whose session cookie is ``cookie``."""
    return _digest(f"session:{cookie}")


def scope(request: HttpRequest, key: str, token: str | None) -> dict[str, str]:
    """What a key is stored under: the key, its path's hash, its caller's hash."""
    return {"key": key, "path": _digest(request.path), "caller": caller(request, token)}


def request_hash(request: HttpRequest) -> str:
    """SHA-256 (hex) of the request's method, path and body, as sent."""
    digest = hashlib.sha256()
    for part in (request.method or "", request.path):
        digest.update(part.encode("utf-8", "surrogatepass") + b"\n")
    digest.update(request.body)
    return digest.hexdigest()


def stored_answer(body: Any, session_made: dict[str, Any]) -> Any:
    """What is stored of an answer: its body, and the session it made (if any)."""
    if session_made and isinstance(body, dict):
        return {**body, SESSION_WRITES: session_made}
    return body


def replayed_answer(stored: Any) -> tuple[Any, dict[str, Any]]:
    """A stored answer's body, and the session writes to make again."""
    if not isinstance(stored, dict) or SESSION_WRITES not in stored:
        return stored, {}
    body = dict(stored)
    writes = body.pop(SESSION_WRITES)
    return body, writes if isinstance(writes, dict) else {}


def write_again(session: Any, writes: dict[str, Any]) -> None:
    """Make a first answer's session writes in ``session``: a value that is a mapping (the
    rooms a browser plays in) is merged into the session's own, so a retry from a session
    that plays elsewhere keeps those rooms."""
    for name, value in writes.items():
        current = session.get(name)
        if isinstance(value, dict) and isinstance(current, dict):
            value = {**current, **value}
        session[name] = value
