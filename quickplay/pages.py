"""The quick-play leaderboard page (``/play-now/``); the queue itself is the start page's
"Play now" card (static/js/quickplay.js)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache

from quickplay import ratings


@never_cache
def leaderboard_page(request: HttpRequest) -> HttpResponse:
    return render(request, "quickplay/leaderboard.html", {"players": ratings.leaderboard()})
