"""Pages of the games app."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from games.models import Room


def home(request: HttpRequest) -> HttpResponse:
    """The landing page."""
    return render(request, "games/home.html")


def room_page(request: HttpRequest, code: str) -> HttpResponse:
    """The room's join link. The playable page comes with the browser issue; until then it
    says how to play through the API."""
    room = Room.objects.filter(code=code.lower()).first()
    if room is None:
        return render(request, "games/room_missing.html", {"code": code}, status=404)
    return render(request, "games/room.html", {"room": room})
