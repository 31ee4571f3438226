"""The table screen: ``/r/<code>/table/``, a big read-only view of a room for a TV or a
laptop in the middle of the table. It joins nobody: the page embeds the room's state as a
viewer who is not a player sees it, and keeps current over the spectators' websocket
(``games.spectators``)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache

from games import state
from games.access import join_url
from games.views import room_for_page


@never_cache  # the embedded state goes stale at once
def table_page(request: HttpRequest, code: str) -> HttpResponse:
    room = room_for_page(request, code)
    if isinstance(room, HttpResponse):
        return room
    return render(
        request,
        "games/table.html",
        {"room": room, "state": state.room_state(room, None), "join_url": join_url(request, room)},
    )
