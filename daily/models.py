"""A date's board, the solo rooms that play it, and its leaderboard.

Dates are UTC calendar dates (``daily.boards.today``). Scores outlive their rooms: idle
rooms are deleted after a day (games.housekeeping), the leaderboard keeps its rows.
"""

from __future__ import annotations

from django.db import models

from games.models import NICKNAME_MAX_LENGTH, Player, Room

# A device id (daily.devices): 22 URL-safe characters; room for longer ones.
DEVICE_MAX_LENGTH = 64


class DailyBoard(models.Model):
    """The board of one date, derived once (solver.daily) and kept, so a dictionary edited
    during the day never changes the board players already had."""

    date = models.DateField(unique=True)
    board = models.CharField(max_length=64, help_text="Board text (docs/api.md, Board text).")
    dictionary = models.CharField(max_length=64, help_text="The dictionary it was checked with.")
    word_count = models.PositiveIntegerField(help_text="Words on the board when derived.")
    roll_number = models.PositiveSmallIntegerField(
        help_text="Which seeded roll of the date it is (0: the first was rich enough)."
    )

    class Meta:
        ordering = ["-date"]

    def __str__(self) -> str:
        return f"{self.date}: {self.board}"


class DailyGame(models.Model):
    """One attempt at a date's board: a solo room whose first round plays it."""

    room = models.OneToOneField(Room, on_delete=models.CASCADE, related_name="daily_game")
    date = models.DateField(db_index=True)
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    device = models.CharField(
        max_length=DEVICE_MAX_LENGTH,
        blank=True,
        help_text="The browser (session) that played it (daily.devices).",
    )
    counted = models.BooleanField(
        null=True,
        help_text="Set when its round ends: True if it is the device's entry under the "
        "nickname, False if the device had one already that day (practice).",
    )

    class Meta:
        ordering = ["-date", "-id"]

    def __str__(self) -> str:
        return f"{self.date} in room {self.room_id}"


class DailyScore(models.Model):
    """A device's result under a nickname on a date: its first finished attempt. The public
    leaderboard lists the ``listed`` ones: per nickname, the first with points, a human
    pace and human findings (daily.attempts, daily.plausibility); that device owns the nickname for the day."""

    date = models.DateField()
    nickname = models.CharField(max_length=NICKNAME_MAX_LENGTH)
    nickname_key = models.TextField(help_text="The nickname as compared (games.nicknames).")
    device = models.CharField(
        max_length=DEVICE_MAX_LENGTH,
        blank=True,
        help_text="The browser (session) that played it (daily.devices).",
    )
    points = models.PositiveIntegerField()
    words = models.PositiveIntegerField(help_text="Words that scored.")
    best_word = models.CharField(max_length=72, blank=True)
    finished_at = models.DateTimeField()
    listed = models.BooleanField(
        default=True,
        help_text="On the public leaderboard: the nickname's first entry with points that a "
        "person plausibly played. Off for 0 points, flagged entries, and a nickname another "
        "device holds.",
    )
    flagged = models.BooleanField(
        default=False,
        help_text="Played at a pace, or finding words, no person does (daily.plausibility: "
        "the reason says which rule): kept off the public leaderboard.",
    )
    flag_reason = models.CharField(max_length=200, blank=True)
    player = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["date", "-points", "finished_at", "id"]
        constraints = [
            # One public entry per nickname: the device that owns it that day.
            models.UniqueConstraint(
                fields=["date", "nickname_key"],
                condition=models.Q(listed=True),
                name="one_listed_daily_score_per_nickname",
            ),
            # One result per device and nickname: a board seen once is not replayed.
            models.UniqueConstraint(
                fields=["date", "nickname_key", "device"],
                name="one_daily_score_per_device_and_nickname",
            ),
        ]
        indexes = [models.Index(fields=["date", "-points", "finished_at"])]

    def __str__(self) -> str:
        return f"{self.date}: {self.nickname} {self.points}"
