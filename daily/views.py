"""The full leaderboard page (the start page shows the top ten)."""

from __future__ import annotations

from datetime import date, timedelta

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache

from daily import boards, leaderboard
from daily.api import device_entry


@never_cache  # today's board fills up as people finish
def leaderboard_page(request: HttpRequest) -> HttpResponse:
    """A date's leaderboard, top 50 (``?date=YYYY-MM-DD``, today by default: UTC)."""
    today = boards.today()
    try:
        day = date.fromisoformat(request.GET.get("date", ""))
    except ValueError:
        day = today
    day = min(day, today)  # future boards stay secret, even their empty leaderboards
    mine = device_entry(request, day)
    entries = leaderboard.top(day)
    for entry in entries:
        entry["mine"] = mine is not None and entry["rank"] == mine["rank"]
    return render(
        request,
        "daily/leaderboard.html",
        {
            "day": day,
            "is_today": day == today,
            "entries": entries,
            "players": leaderboard.entries(day).count(),
            "dictionary": boards.dictionary_of(day),
            "mine": mine,
            "previous": (day - timedelta(days=1)).isoformat(),
            "next": (day + timedelta(days=1)).isoformat() if day < today else None,
        },
    )
