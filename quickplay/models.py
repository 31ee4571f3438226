"""The quick-play queue, the seats it gave, the players' ratings and their reports."""

from __future__ import annotations

import secrets

from django.db import models

from games.models import NICKNAME_MAX_LENGTH, Player, Room

IDENTITY_MAX_LENGTH = 64


def new_ticket_key() -> str:
    return secrets.token_urlsafe(24)


class Ticket(models.Model):
    """A place in the queue: waiting until ``room`` is set (placed) or it is dropped (left,
    or not asked about for a while: the page was closed)."""

    key = models.CharField(max_length=64, unique=True, default=new_ticket_key)
    nickname = models.CharField(max_length=NICKNAME_MAX_LENGTH)
    identity = models.CharField(
        max_length=IDENTITY_MAX_LENGTH, help_text="Who is rated: an account or a browser."
    )
    address = models.CharField(max_length=64, blank=True)
    dictionary = models.CharField(max_length=64)
    created_at = models.DateTimeField(db_index=True)
    seen_at = models.DateTimeField(help_text="The last time its player asked how it stands.")
    room = models.ForeignKey(
        Room, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    player = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        indexes = [
            models.Index(
                fields=["dictionary", "created_at"],
                condition=models.Q(room__isnull=True),
                name="quickplay_ticket_waiting",
            )
        ]

    def __str__(self) -> str:
        return f"{self.nickname} ({'placed' if self.room_id else 'waiting'})"


class Seat(models.Model):
    """A player placed by the queue, and who they are for the rating."""

    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="quick_seat")
    identity = models.CharField(max_length=IDENTITY_MAX_LENGTH)


class Rating(models.Model):
    """A player's skill over quick-play games (OpenSkill's Weng-Lin Plackett-Luce): ``mu``
    and ``sigma``; the leaderboard ranks by ``ordinal`` (mu - 3 sigma: what we are sure of)."""

    identity = models.CharField(max_length=IDENTITY_MAX_LENGTH, unique=True)
    nickname = models.CharField(max_length=NICKNAME_MAX_LENGTH, help_text="The latest one.")
    mu = models.FloatField()
    sigma = models.FloatField()
    ordinal = models.FloatField(db_index=True)
    games = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.nickname}: {self.ordinal:.1f}"


class Report(models.Model):
    """A player of a quick-play room reported by another, for staff to look at."""

    class Reason(models.TextChoices):
        NICKNAME = "nickname", "offensive nickname"
        CHEATING = "cheating", "cheating"
        OTHER = "other", "other"

    room = models.ForeignKey(Room, null=True, on_delete=models.SET_NULL, related_name="+")
    room_code = models.CharField(max_length=16)
    reported = models.ForeignKey(Player, null=True, on_delete=models.SET_NULL, related_name="+")
    reported_nickname = models.CharField(max_length=NICKNAME_MAX_LENGTH)
    reported_identity = models.CharField(max_length=IDENTITY_MAX_LENGTH, blank=True)
    reporter_nickname = models.CharField(max_length=NICKNAME_MAX_LENGTH)
    reporter_address = models.CharField(max_length=64, blank=True)
    reason = models.CharField(max_length=16, choices=Reason.choices)
    created_at = models.DateTimeField(auto_now_add=True)
    handled = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["room_code", "reported_nickname", "reporter_nickname"],
                name="quickplay_report_once",
            )
        ]

    def __str__(self) -> str:
        return f"{self.reported_nickname} in {self.room_code}: {self.reason}"
