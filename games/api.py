"""The JSON HTTP API (docs/api.md): create a room, join it, read its state and results.

Views parse and authorise only; ``games.rooms`` and ``games.checks`` do the work. A player
is identified by ``Authorization: Bearer <token>`` (API clients) or by the browser session.
"""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from games import replays, rooms, state, waiting_api
from games.access import find_room, player_response, viewer
from games.exceptions import RoundNotFound, WrongRoundState
from games.models import Round
from games.room_dictionaries import available_dictionaries
from games.sessions import player_id_from_session, remember_player
from web import throttle
from web.json_api import bearer_token, idempotent, json_api, rate_limited, read_json


@json_api
@require_http_methods(["POST"])
@rate_limited(throttle.CREATE)
@idempotent
def create_room(request: HttpRequest) -> JsonResponse:
    data = read_json(request)
    # ``board``: a new room on that board ("Play this board again"; games.replays).
    room, host = replays.do_create_room(
        data.get("nickname"), data.get("settings"), data.get("board")
    )
    remember_player(request.session, host)
    return player_response(request, room, host, status=201)


@json_api
@require_http_methods(["GET"])
def room_detail(request: HttpRequest, code: str) -> JsonResponse:
    room = find_room(request, code)
    return JsonResponse({"room": state.room_state(room, viewer(request, room))})


@json_api
@require_http_methods(["POST"])
@rate_limited(throttle.JOIN)
@idempotent
def join_room(request: HttpRequest, code: str) -> JsonResponse:
    data = read_json(request)
    room = find_room(request, code)
    token = bearer_token(request)
    session_player = None if token else player_id_from_session(request.session, room)
    # A device that was a player here before: kicked ones stay out (403 kicked) until the
    # host lets them back; one that left gets the same player back, points and all.
    former = rooms.former_player(room, token, session_player)
    if former is not None:
        player = rooms.do_rejoin(room, former, data.get("nickname"))
        remember_player(request.session, player)
        room.refresh_from_db()
        return player_response(request, room, player, status=200)
    existing = viewer(request, room)
    if existing is not None:  # this browser (or token) already plays here: a rejoin
        return player_response(request, room, existing, status=200)
    # A newcomer at a locked room waits for the host's yes (202; games.waiting_room).
    waiting = waiting_api.newcomer_answer(request, room, data.get("nickname"))
    if waiting is not None:
        return waiting
    player = rooms.do_join_room(room, data.get("nickname"))
    remember_player(request.session, player)
    room.refresh_from_db()
    return player_response(request, room, player, status=201)


@json_api
@require_http_methods(["GET"])
def round_results(request: HttpRequest, code: str, number: int) -> JsonResponse:
    room = find_room(request, code)
    round_ = Round.objects.filter(room=room, number=number).first()
    if round_ is None:
        raise RoundNotFound(
            _("room %(code)s has no round %(number)s") % {"code": room.code, "number": number}
        )
    if round_.status != Round.Status.ENDED:
        raise WrongRoundState(_("results come when the round ends"))
    return JsonResponse({"results": state.results(round_)})


@json_api
@require_http_methods(["GET"])
def dictionary_list(request: HttpRequest) -> JsonResponse:
    return JsonResponse(
        {"dictionaries": [{"name": n, "title": t} for n, t in available_dictionaries().items()]}
    )
