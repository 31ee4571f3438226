"""Which player a browser is, per room: remembered in the Django session (no accounts)."""

from __future__ import annotations

from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.sessions.backends.base import SessionBase

from games.models import Player, Room

SESSION_KEY = "boggle_players"


def remember_player(session: Any, player: Player) -> None:
    """Record in the browser's session that it plays as ``player`` in that player's room."""
    players = dict(session.get(SESSION_KEY, {}))
    players[player.room.code] = player.id
    session[SESSION_KEY] = players


def socket_session(scope: dict[str, Any]) -> SessionBase | None:
    """The browser's session from a websocket handshake's cookie (``scope["cookies"]``, from
    Channels' CookieMiddleware), or None without one. Read from the store when first used
    (a database read: on a thread). Not Channels' SessionMiddleware: that wraps the socket's
    ``send`` for every frame it ever sends, to save a session sockets never change."""
    key = scope.get("cookies", {}).get(settings.SESSION_COOKIE_NAME)
    if not key:
        return None
    store: type[SessionBase] = import_module(settings.SESSION_ENGINE).SessionStore
    return store(session_key=key)


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
