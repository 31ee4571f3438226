"""Which device plays: the identity a daily nickname belongs to for the day.

A device is a browser session: a random id kept in it the first time it plays a daily
board. An API client keeps its session cookie, or sends the Bearer token of one of its
attempts of the day (``POST /api/daily`` answers one): that attempt's device is its own.
A client that keeps neither is a new device on every request, so it can hold a nickname
but never come back to it (docs/api.md, "What the leaderboard guarantees").
"""

from __future__ import annotations

import secrets
from datetime import date
from typing import Any

from django.http import HttpRequest

from daily.models import DailyGame
from web import text
from web.json_api import bearer_token

SESSION_KEY = "boggle_daily_device"


def _from_token(request: HttpRequest, day: date) -> str | None:
    token = bearer_token(request)
    if not token or not text.looks_like_token(token):
        return None
    return (
        DailyGame.objects.filter(date=day, player__token=token)
        .exclude(device="")
        .values_list("device", flat=True)
        .first()
    )


def known_device(request: HttpRequest, day: date) -> str | None:
    """The request's device if it has played before (token or session), else None: reading
    never gives a visitor a session."""
    device = _from_token(request, day)
    if device:
        return device
    stored: Any = request.session.get(SESSION_KEY)
    return stored if isinstance(stored, str) and stored else None


def device_of(request: HttpRequest, day: date) -> str:
    """The request's device, made up and kept in its session the first time."""
    device = known_device(request, day)
    if device is None:
        device = secrets.token_urlsafe(16)
        request.session[SESSION_KEY] = device
    return device
