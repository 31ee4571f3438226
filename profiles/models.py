"""The rounds an account keeps: one row per round of a player's profile, as the browser
recorded it (profiles.rounds). Deleting the account deletes them."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ProfileRound(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile_rounds"
    )
    record_id = models.CharField(max_length=80, help_text="The browser's id of the round.")
    ended_at = models.DateTimeField()
    data = models.JSONField(help_text="The round as profiles.rounds.clean_round keeps it.")

    class Meta:
        ordering = ["ended_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "record_id"], name="profile_round_once")
        ]
        indexes = [models.Index(fields=["user", "ended_at"], name="profile_round_by_time")]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.record_id}"
