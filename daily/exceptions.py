"""Errors of the daily board, in the games hierarchy (games.exceptions) so the API's JSON
errors carry them.

ClientError
 ├── SoloRoom              a daily board's room takes no other players (403)
 ├── OneRoundRoom          a daily board's room plays its one round only (``daily_room``)
 └── NicknameTaken
      └── NicknameHeldToday  another device owns the nickname on today's leaderboard (409,
                             the same ``nickname_taken`` code as in a room)
"""

from __future__ import annotations

from games.exceptions import NicknameTaken
from web.errors import ClientError


class SoloRoom(ClientError):
    code = "solo_room"
    status = 403


class OneRoundRoom(ClientError):
    """A daily board's room plays exactly one round, its daily board: no ``start_round``
    after it and no ``new_game`` (docs/api.md, "Daily board and solo practice")."""

    code = "daily_room"


class NicknameHeldToday(NicknameTaken):
    """The nickname (or one that looks the same) is on today's leaderboard from another
    device: first come, first served for the day (docs/api.md, "What the leaderboard
    guarantees")."""
