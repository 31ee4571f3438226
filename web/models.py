"""The web toolkit's one table."""

from __future__ import annotations

from django.db import models


class IdempotentResponse(models.Model):
    """The answer to a POST sent with an ``Idempotency-Key`` header: a retry of the same
    request (a lost response, a timeout) gets the same answer instead of a second room or a
    "nickname taken". A key belongs to its caller (``web.idempotency``): another caller's
    same key is another key, never this answer. Kept for a day (``games.housekeeping`` deletes them)."""

    key = models.CharField(max_length=64)
    path = models.CharField(max_length=200)  # its SHA-256 (hex): a path of any length fits
    caller = models.CharField(
        max_length=64,
        default="",
        help_text="SHA-256 of who sent the key: their session cookie, token or address.",
    )
    request_hash = models.CharField(
        max_length=64, default="", help_text="SHA-256 of the request's method, path and body."
    )
    status = models.PositiveSmallIntegerField()
    body = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        # The table it had while it was a model of the games app.
        db_table = "games_idempotentresponse"
        constraints = [
            models.UniqueConstraint(
                fields=["caller", "key", "path"], name="one_response_per_caller_key_and_path"
            )
        ]

    def __str__(self) -> str:
        return f"{self.path} {self.key}"
