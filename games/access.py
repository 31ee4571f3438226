"""Who is asking, and about which room: the look-ups every HTTP view and socket of a room
starts with. A room code is looked up under one miss budget per address (``find_room``);
the asker is the player named by a Bearer token or the browser session (``viewer``).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, JsonResponse
from django.urls import reverse

from games import checks, state
from games.exceptions import RoomNotFound
from games.models import Player, Room
from games.sessions import player_id_from_session
from web import throttle
from web.errors import ClientError
from web.hosts import absolute_url
from web.json_api import bearer_token


def find_room(request: HttpRequest, code: str) -> Room:
    """The room with this code, for an address that has not missed too many: once its
    misses are used up every look-up is refused, hits too, so guessing learns nothing."""
    return find_room_from(code, throttle.client_address(request))


def find_room_from(code: str, address: str) -> Room:
    """``find_room`` for a client address (the sockets', ``games.consumers``). Every path
    that takes a room code looks it up here: one miss budget per address for all of them."""
    # The slot is taken before looking, so that parallel guesses cannot overrun it; a
    # look-up that finds its room (or fails otherwise) gives it back.
    slot = throttle.reserve(throttle.ROOM_MISS, address)
    missed = False
    try:
        return checks.check_room(code)
    except RoomNotFound:
        missed = True
        raise
    finally:
        if not missed:
            throttle.release(slot)


def viewer(request: HttpRequest, room: Room, tokens: bool = True) -> Player | None:
    """The player making the request, if the token or session names one of this room.
    An unknown token raises NotAPlayer (an API client must hear it is not in the room);
    ``tokens=False`` ignores the Authorization header and goes by the session alone."""
    token = bearer_token(request) if tokens else None
    player_id = None if token else player_id_from_session(request.session, room)
    if not token and not player_id:
        return None
    try:
        return checks.check_player(room, token=token, player_id=player_id)
    except ClientError:
        if token:
            raise
        return None


def join_url(request: HttpRequest, room: Room) -> str:
    """The room's join link as phones open it (never a loopback address; web.hosts)."""
    return absolute_url(request, reverse("games:room", args=[room.code]))


def player_response(
    request: HttpRequest, room: Room, player: Player, status: int, **extra: Any
) -> JsonResponse:
    """A player's credentials (token, links) and the room as that player sees it, plus
    ``extra`` top-level fields (the daily board's ``daily``)."""
    credentials = player_credentials(request, room, player)
    return JsonResponse(
        {"player": credentials, "room": state.room_state(room, player), **extra}, status=status
    )


def player_credentials(request: HttpRequest, room: Room, player: Player) -> dict[str, Any]:
    """What a client needs to be the player: its id, token and the room's links."""
    return {
        "id": player.id,
        "nickname": player.nickname,
        "token": player.token,
        "join_url": join_url(request, room),
        "websocket_path": f"/ws/rooms/{room.code}/",
    }
