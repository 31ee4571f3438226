"""Whose ``Idempotency-Key`` it is, and which request it was sent with (docs/api.md,
"Retrying a request"; the decorator is ``web.json_api.idempotent``).

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

A key is also bound to its request (SHA-256 of method, path and body): the same caller
sending the same key with another body is a client bug, refused with 422
``idempotency_key_reused``, never answered with the first request's result.
Only hashes are stored: no session cookie, token or address in the table.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.http import HttpRequest

from web import throttle


def caller(request: HttpRequest, token: str | None) -> str:
    """SHA-256 (hex) of who sends the request: the Bearer token, the session cookie or
    the client address (the module's docstring). ``token``: the Bearer token, if any."""
    if token:
        identity = f"token:{token}"
    elif cookie := request.COOKIES.get(settings.SESSION_COOKIE_NAME):
        identity = f"session:{cookie}"
    else:
        identity = f"address:{throttle.client_address(request)}"
    return hashlib.sha256(identity.encode("utf-8", "surrogatepass")).hexdigest()


def request_hash(request: HttpRequest) -> str:
    """SHA-256 (hex) of the request's method, path and body, as sent."""
    digest = hashlib.sha256()
    for part in (request.method or "", request.path):
        digest.update(part.encode("utf-8", "surrogatepass") + b"\n")
    digest.update(request.body)
    return digest.hexdigest()
