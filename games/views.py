"""Pages of the games app: the start page and a room's page.

Both are shells for the ES modules in ``static/js``, which talk to the JSON API and the
room's websocket (docs/api.md). The room page embeds the room's state so it draws at once,
before the websocket is open.
"""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import get_language
from django.views.decorators.cache import never_cache

from games import state, waiting_api
from games.access import find_room, join_url, viewer
from games.exceptions import NotAPlayer, RoomNotFound
from games.models import NICKNAME_MAX_LENGTH, Room
from games.room_dictionaries import dictionary_choices
from web.throttle import Throttled


def home(request: HttpRequest) -> HttpResponse:
    """The start page: create a room or join one by its code; its dictionary fields offer
    the page's language's dictionary first where one is installed."""
    return render(
        request,
        "games/home.html",
        {"nickname_max_length": NICKNAME_MAX_LENGTH, **dictionary_choices(get_language() or "en")},
    )


def room_for_page(request: HttpRequest, code: str) -> Room | HttpResponse:
    """The room a page of the site shows, or that page's answer when it has none: the
    room-missing page (404), or 429 with ``Retry-After`` for an address that missed too
    many codes (games.access.find_room)."""
    try:
        return find_room(request, code)
    except RoomNotFound:
        return render(request, "games/room_missing.html", {"code": code}, status=404)
    except Throttled as error:
        response = HttpResponse(f"{error.message}.\n", status=429, content_type="text/plain")
        response["Retry-After"] = str(error.retry_after)
        return response


@never_cache  # the embedded state is this browser's, and goes stale at once
def room_page(request: HttpRequest, code: str) -> HttpResponse:
    """A room's page, which is also its join link: browsers that are not yet players of the
    room see a nickname form, players see the lobby, the round or the results."""
    room = room_for_page(request, code)
    if isinstance(room, HttpResponse):
        return room
    try:
        player = viewer(request, room)
    except NotAPlayer:  # a bearer token that is no player's: the page goes by the session
        player = viewer(request, room, tokens=False)
    room_state = state.room_state(room, player)
    if player is None:  # waiting at a locked room, perhaps (games.waiting_room)
        room_state["join_request"] = waiting_api.page_request(request, room)
    return render(
        request,
        "games/room.html",
        {
            "room": room,
            "state": room_state,
            "join_url": join_url(request, room),
            "nickname_max_length": NICKNAME_MAX_LENGTH,
        },
    )
