"""Errors of the daily board, in the games hierarchy (games.exceptions) so the API's JSON
errors carry them.

GameError
 └── SoloRoom   a daily board's room takes no other players (403)
"""

from __future__ import annotations

from games.exceptions import GameError


class SoloRoom(GameError):
    code = "solo_room"
