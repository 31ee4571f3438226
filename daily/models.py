"""A date's board, the solo rooms that play it, and its leaderboard.

Dates are UTC calendar dates (``daily.boards.today``). Scores outlive their rooms: idle
rooms are deleted after a day (games.housekeeping), the leaderboard keeps its rows.
"""

from __future__ import annotations

from django.db import models

from games.models import NICKNAME_MAX_LENGTH, Player, Room


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
    counted = models.BooleanField(
        null=True,
        help_text="Set when its round ends: True if it made the leaderboard, False if the "
        "nickname already had an entry that day (practice).",
    )

    class Meta:
        ordering = ["-date", "-id"]

    def __str__(self) -> str:
        return f"{self.date} in room {self.room_id}"


class DailyScore(models.Model):
    """A leaderboard entry: the first finished attempt of a nickname on a date."""

    date = models.DateField()
    nickname = models.CharField(max_length=NICKNAME_MAX_LENGTH)
    nickname_key = models.TextField(help_text="The nickname as compared (games.nicknames).")
    points = models.PositiveIntegerField()
    words = models.PositiveIntegerField(help_text="Words that scored.")
    best_word = models.CharField(max_length=72, blank=True)
    finished_at = models.DateTimeField()
    player = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["date", "-points", "finished_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["date", "nickname_key"], name="one_daily_score_per_nickname"
            )
        ]
        indexes = [models.Index(fields=["date", "-points", "finished_at"])]

    def __str__(self) -> str:
        return f"{self.date}: {self.nickname} {self.points}"
