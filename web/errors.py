"""Errors a client's request or message can meet. Each has a stable ``code`` for clients,
a message for people and the HTTP ``status`` it is answered with; the JSON API
(``web.json_api``) and the sockets send ``code`` and ``message`` and carry on.

ClientError                  400 unless a subclass says otherwise
 ├── InvalidInput            400 malformed text, settings, board or message
 ├── UnsupportedMediaType    415 a body that is not application/json
 ├── IdempotencyKeyReused    422 a key sent again with another request (web.idempotency)
 └── RateLimited             429 too many requests or messages too fast (web.throttle)

Each app adds its own below ``ClientError`` (``games.exceptions``, ``photos.exceptions``,
``daily.exceptions``, ``dicesets.exceptions``, ``definitions.exceptions``).
"""

from __future__ import annotations

from django.utils.translation import gettext as _


class ClientError(Exception):
    code = "error"
    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


class InvalidInput(ClientError):
    code = "invalid"


class UnsupportedMediaType(ClientError):
    """A body that is not ``application/json``: what a form on another site can send
    without a CORS preflight, so it is never read as JSON."""

    code = "unsupported_media_type"
    status = 415


class IdempotencyKeyReused(ClientError):
    """The caller sent a key already used with another request (method, path or body)."""

    code = "idempotency_key_reused"
    status = 422

    def __init__(self) -> None:
        super().__init__(
            _(
                "this Idempotency-Key was used with another request; "
                "make a new key for each new request"
            )
        )


class RateLimited(ClientError):
    code = "rate_limited"
    status = 429
