"""A room's history over HTTP (docs/api.md, "Rounds", "Game stats", "Round picture") and
the read-only results page ``/r/<code>/rounds/<n>/``.

All of it is readable by anyone with the room's code (like the room's state and results):
nothing here needs a player, and nothing here acts on the room.
"""

from __future__ import annotations

import hashlib
import json

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.translation import get_language, gettext, gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from games import history, round_image, state
from games.access import find_room
from games.exceptions import RoundNotFound, WrongRoundState
from games.models import Room, Round
from games.views import room_for_page
from web import throttle
from web.errors import ClientError, InvalidInput
from web.hosts import absolute_url
from web.json_api import error_response, json_api

# How long a browser or proxy may reuse a round's picture without asking again. Short: an
# accepted challenge can rescore a round after it ended (the ETag then changes).
IMAGE_MAX_AGE = 60
# Drawing a picture takes the server about 0.1 s: a table sharing its rounds draws a few, a
# script asking for thousands is refused (answers from the ETag, 304, are not counted).
PICTURE = throttle.Limit(
    "picture", 60, 30, gettext_lazy("too many round pictures asked for from your address")
)


def ended_round(room: Room, number: int) -> Round:
    """The room's round ``number``, which must have ended (its results are secret before)."""
    round_ = Round.objects.filter(room=room, number=number).select_related("room").first()
    if round_ is None:
        raise RoundNotFound(f"room {room.code} has no round {number}")
    if round_.status != Round.Status.ENDED:
        raise WrongRoundState("results come when the round ends")
    return round_


@json_api
@require_http_methods(["GET"])
def round_list(request: HttpRequest, code: str) -> JsonResponse:
    room = find_room(request, code)
    return JsonResponse({"rounds": history.round_list(room)})


@json_api
@require_http_methods(["GET"])
def game_stats(request: HttpRequest, code: str) -> JsonResponse:
    """The current game's stats, or an earlier game's with ``?game=<n>``."""
    room = find_room(request, code)
    game = request.GET.get("game")
    if game is not None and not (game.isdigit() and 1 <= int(game) <= room.game):
        raise InvalidInput(gettext("game is the number of one of this room's games"))
    return JsonResponse({"stats": history.game_stats(room, None if game is None else int(game))})


def page_link(request: HttpRequest, room: Room, number: int) -> str:
    return absolute_url(request, reverse("games:round-page", args=[room.code, number]))


@require_http_methods(["GET", "HEAD"])
def round_picture(request: HttpRequest, code: str, number: int) -> HttpResponse:
    """The round's results as a PNG (games.round_image). Tagged with a hash of what it
    draws, so a repeat request is answered 304 without drawing it again. Errors are JSON,
    as the API's."""
    try:
        room = find_room(request, code)
        results = state.results(ended_round(room, number))
    except ClientError as error:
        return error_response(error)
    footer = page_link(request, room, number).split("://", 1)[-1]
    drawn = {
        "results": {k: results[k] for k in ("round", "players", "max_points", "word_count")},
        "footer": footer,
        "language": get_language(),
    }
    etag = '"' + hashlib.sha256(json.dumps(drawn, sort_keys=True).encode()).hexdigest()[:32] + '"'
    if etag in request.headers.get("If-None-Match", ""):
        response = HttpResponse(status=304)
    else:
        try:
            throttle.take(PICTURE, throttle.client_address(request))
        except ClientError as error:
            return error_response(error)
        response = HttpResponse(round_image.render_png(results, footer), content_type="image/png")
        response["Content-Disposition"] = (
            f'inline; filename="boggle-{room.code}-round-{number}.png"'
        )
    response["ETag"] = etag
    patch_cache_control(response, public=True, max_age=IMAGE_MAX_AGE)
    patch_vary_headers(response, ["Accept-Language"])
    return response


@never_cache  # rescoring (an accepted challenge) changes the results
def round_page(request: HttpRequest, code: str, number: int) -> HttpResponse:
    """The read-only results page a shared link opens: no player needed, no actions."""
    room = room_for_page(request, code)
    if isinstance(room, HttpResponse):
        return room
    try:
        round_ = ended_round(room, number)
    except ClientError as error:
        status = 404 if isinstance(error, RoundNotFound) else 409
        context = {"room": room, "number": number, "error": error.code}
        return render(request, "games/round_results.html", context, status=status)
    return render(
        request,
        "games/round_results.html",
        {
            "room": room,
            "number": number,
            "results": state.results(round_),
            "room_open": room.game_ended_at is None,
            # A link to an ended game's round: say so, and whether a new game is open.
            "game_over": round_.game < room.game or room.game_ended_at is not None,
            "new_game_open": round_.game < room.game and room.game_ended_at is None,
            "page_url": page_link(request, room, number),
            "image_url": absolute_url(
                request, reverse("games:round-picture", args=[room.code, number])
            ),
        },
    )
