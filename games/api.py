"""The JSON HTTP API (docs/api.md): create a room, join it, read its state and results.

Views parse and authorise only; ``games.rooms`` and ``games.checks`` do the work. A player
is identified by ``Authorization: Bearer <token>`` (API clients) or by the browser session.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.db import IntegrityError, transaction
from django.http import HttpRequest, JsonResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from boggle_site.hosts import absolute_url
from games import checks, idempotency, replays, rooms, state, throttle
from games.exceptions import (
    GameError,
    InvalidInput,
    RoomNotFound,
    RoundNotFound,
    WrongRoundState,
)
from games.lexicons import available_dictionaries
from games.models import IdempotentResponse, Player, Room, Round
from games.sessions import player_id_from_session, remember_player

# Largest request body the API reads, in bytes.
MAX_BODY_BYTES = 16 * 1024
STATUS_FOR_CODE = {
    "room_not_found": 404,
    "round_not_found": 404,
    "not_a_player": 403,
    "kicked": 403,
    "not_host": 403,
    "nickname_taken": 409,
    "join_refused": 403,  # a locked room's host said no (games.waiting_room)
    "waiting_list_full": 409,
    "join_request_not_found": 404,
    "solo_room": 403,  # a daily board's room (daily.exceptions.SoloRoom)
    "wrong_round_state": 409,
    "rate_limited": 429,
    "idempotency_key_reused": 422,  # games.idempotency
    "unsupported_media_type": 415,
}


class UnsupportedMediaType(GameError):
    """A body that is not ``application/json``: what a form on another site can send
    without a CORS preflight, so it is never read as JSON."""

    code = "unsupported_media_type"


def error_response(error: GameError) -> JsonResponse:
    response = JsonResponse({"error": error.to_dict()}, status=STATUS_FOR_CODE.get(error.code, 400))
    if isinstance(error, throttle.Throttled):
        response["Retry-After"] = str(error.retry_after)
    return response


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


def rate_limited(limit: throttle.Limit) -> Callable[[Callable[..., JsonResponse]], Callable]:
    """Count the request against ``limit`` for its address (games.throttle) before any work."""

    def decorator(view: Callable[..., JsonResponse]) -> Callable[..., JsonResponse]:
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
            throttle.take(limit, throttle.client_address(request))
            return view(request, *args, **kwargs)

        return wrapper

    return decorator


def json_api(view: Callable[..., JsonResponse]) -> Callable[..., JsonResponse]:
    """Turn GameErrors into JSON error responses; API clients carry no CSRF cookie."""

    @csrf_exempt
    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
        try:
            return view(request, *args, **kwargs)
        except GameError as error:
            return error_response(error)

    return wrapper


# Longest Idempotency-Key kept.
MAX_IDEMPOTENCY_KEY = 64


def idempotent(view: Callable[..., JsonResponse]) -> Callable[..., JsonResponse]:
    """A POST sent again with the same ``Idempotency-Key`` header by the same caller gets the
    first answer (docs/api.md, "Retrying a request"); another caller's same key is another
    key, and the same key with another body is refused (``games.idempotency``). The key is
    taken in the same transaction as the work, so two copies racing in run the work once:
    the second waits for the first."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
        key = request.headers.get("Idempotency-Key", "").strip()
        if not key:
            return view(request, *args, **kwargs)
        if len(key) > MAX_IDEMPOTENCY_KEY or not key.isprintable():
            raise InvalidInput(
                f"Idempotency-Key is 1 to {MAX_IDEMPOTENCY_KEY} printable characters"
            )
        scope = {"key": key, "path": request.path}
        scope["caller"] = idempotency.caller(request, bearer_token(request))
        fingerprint = idempotency.request_hash(request)
        with transaction.atomic():
            try:
                with transaction.atomic():  # a savepoint: a taken key leaves the rest usable
                    record = IdempotentResponse.objects.create(
                        **scope, request_hash=fingerprint, status=0, body={}
                    )
            except IntegrityError:  # answered before (or just now, by the first copy)
                stored = IdempotentResponse.objects.get(**scope)
                if stored.request_hash != fingerprint:
                    raise idempotency.IdempotencyKeyReused() from None
                return JsonResponse(stored.body, status=stored.status)
            response = view(request, *args, **kwargs)
            if response.status_code >= 300:  # refused: a corrected retry may succeed
                transaction.set_rollback(True)
                return response
            record.status = response.status_code
            record.body = json.loads(response.content)
            record.save(update_fields=["status", "body"])
            return response

    return wrapper


def read_json(request: HttpRequest) -> dict[str, Any]:
    if len(request.body) > MAX_BODY_BYTES:
        raise InvalidInput(f"request body over {MAX_BODY_BYTES} bytes")
    if not request.body:
        return {}
    if request.content_type != "application/json":
        raise UnsupportedMediaType(
            f"send the body as Content-Type: application/json, not {request.content_type!r}"
        )
    try:
        data = json.loads(request.body)
    except ValueError:
        raise InvalidInput("the body is not valid JSON") from None
    except RecursionError:  # the decoder recurses once per level
        raise InvalidInput("the body's JSON is too deeply nested") from None
    if not isinstance(data, dict):
        raise InvalidInput("the body is a JSON object")
    return data


def bearer_token(request: HttpRequest) -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


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
    except GameError:
        if token:
            raise
        return None


def join_url(request: HttpRequest, room: Room) -> str:
    """The room's join link as phones open it (never a loopback address; boggle_site.hosts)."""
    return absolute_url(request, reverse("games:room", args=[room.code]))


def player_response(
    request: HttpRequest, room: Room, player: Player, status: int, **extra: Any
) -> JsonResponse:
    """A player's credentials (token, links) and the room as that player sees it, plus
    ``extra`` top-level fields (the daily board's ``daily``)."""
    credentials = {
        "id": player.id,
        "nickname": player.nickname,
        "token": player.token,
        "join_url": join_url(request, room),
        "websocket_path": f"/ws/rooms/{room.code}/",
    }
    return JsonResponse(
        {"player": credentials, "room": state.room_state(room, player), **extra}, status=status
    )


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
    from games import waiting_api  # it builds on this module's views

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
