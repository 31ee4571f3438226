"""The HTTP side of locked rooms (games.waiting_room; docs/api.md, "Locked rooms").

A newcomer's ``POST /api/rooms/<code>/join`` at a locked room is answered 202 with a join
request instead of a player; the newcomer's page then reads that request at
``/api/rooms/<code>/join-request`` every few seconds (``GET``) until the host answers,
and gets the player's token there once let in, or withdraws it (``DELETE``). The request
is named by the browser session, or by ``Authorization: Bearer <key>`` for API clients.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, JsonResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from games import access, presenters, rooms, waiting_room
from games.exceptions import JoinRefused, Kicked, NoJoinRequest
from games.models import JoinRequest, Room
from games.sessions import join_request_key_from_session, remember_join_request, remember_player
from web import throttle
from web.json_api import bearer_token, json_api

# How often a waiting page asks for its answer (seconds), as told to clients.
POLL_SECONDS = 2


def newcomer_answer(request: HttpRequest, room: Room, nickname: Any) -> JsonResponse | None:
    """The answer to a join by a device that is no player of ``room``: what became of the
    request this browser made before, or a new request when the room is locked (202);
    None when the device may simply join."""
    key = join_request_key_from_session(request.session, room)
    earlier = waiting_room.find_request(room, key)
    if earlier is not None and earlier.status != JoinRequest.Status.WITHDRAWN:
        return _answer(request, room, earlier, waiting_status=202, nickname=nickname)
    if not waiting_room.is_locked(room):
        return None
    join_request = waiting_room.do_ask_to_join(room, nickname, throttle.client_address(request))
    remember_join_request(request.session, room.code, join_request.key)
    return _waiting_response(room, join_request, status=202, with_key=True)


@json_api
@require_http_methods(["GET", "DELETE"])
def join_request_detail(request: HttpRequest, code: str) -> JsonResponse:
    """``GET``: the newcomer's request and, once the host let them in, their player.
    ``DELETE``: the newcomer stops waiting."""
    room = access.find_room(request, code)
    key = bearer_token(request) or join_request_key_from_session(request.session, room)
    join_request = waiting_room.find_request(room, key)
    if join_request is None:
        raise NoJoinRequest(_("you are not waiting to join this room"))
    if request.method == "DELETE":
        return _waiting_response(room, waiting_room.do_withdraw(join_request), status=200)
    return _answer(request, room, join_request, waiting_status=200)


def page_request(request: HttpRequest, room: Room) -> dict[str, Any] | None:
    """The join request this browser made at ``room`` (not withdrawn), for the room's page
    to go on waiting after a reload; None when it made none."""
    key = join_request_key_from_session(request.session, room)
    join_request = waiting_room.find_request(room, key)
    if join_request is None or join_request.status == JoinRequest.Status.WITHDRAWN:
        return None
    return _request_dict(room, join_request)


def _answer(
    request: HttpRequest,
    room: Room,
    join_request: JoinRequest,
    waiting_status: int,
    nickname: Any = None,
) -> JsonResponse:
    """What a newcomer hears of their request: still waiting, refused, or let in (with the
    player's credentials, remembered in the session as a join's are)."""
    status = join_request.status
    if status == JoinRequest.Status.REFUSED and waiting_status == 202:
        raise JoinRefused(_("the host did not let you in to this room"))
    if status == JoinRequest.Status.ADMITTED and join_request.player is not None:
        player = join_request.player
        if player.kicked:
            raise Kicked(
                _("The host removed you from this room. Only the host can let you back in.")
            )
        if player.left_at is not None:  # let in, then left: back as that player
            player = rooms.do_rejoin(room, player, nickname)
        player.room = room
        remember_player(request.session, player)
        room.refresh_from_db()
        return access.player_response(
            request,
            room,
            player,
            status=200,
            join_request=_request_dict(room, join_request),
        )
    if status == JoinRequest.Status.WAITING:
        waiting_room.do_check_in(join_request)
    return _waiting_response(room, join_request, status=waiting_status)


def _waiting_response(
    room: Room, join_request: JoinRequest, status: int, with_key: bool = False
) -> JsonResponse:
    data = _request_dict(room, join_request)
    if with_key:  # only to whoever made it: the key is what reads the answer
        data["key"] = join_request.key
    return JsonResponse({"join_request": data}, status=status)


def _request_dict(room: Room, join_request: JoinRequest) -> dict[str, Any]:
    return {
        **presenters.join_request_dict(join_request),
        "poll_url": reverse("games:api-join-request", args=[room.code]),
        "poll_seconds": POLL_SECONDS,
    }
