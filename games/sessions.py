"""Which player a browser is, per room: remembered in the Django session (no accounts)."""

from __future__ import annotations

from typing import Any

from games.models import Player, Room

SESSION_KEY = "boggle_players"


def remember_player(session: Any, player: Player) -> None:
    """Record in the browser's session that it plays as ``player`` in that player's room."""
    players = dict(session.get(SESSION_KEY, {}))
    players[player.room.code] = player.id
    session[SESSION_KEY] = players


def player_id_from_session(session: Any, room: Room) -> int | None:
    """The id of the player this browser plays as in ``room``, if any."""
    if session is None:
        return None
    return session.get(SESSION_KEY, {}).get(room.code)


JOIN_REQUESTS_KEY = "boggle_join_requests"


def remember_join_request(session: Any, code: str, key: str) -> None:
    """Record that this browser waits to join room ``code`` with the request ``key``."""
    requests = dict(session.get(JOIN_REQUESTS_KEY, {}))
    requests[code] = key
    session[JOIN_REQUESTS_KEY] = requests


def join_request_key_from_session(session: Any, room: Room) -> str | None:
    """The key of the join request this browser made at ``room`` (games.waiting_room)."""
    if session is None:
        return None
    return session.get(JOIN_REQUESTS_KEY, {}).get(room.code)
