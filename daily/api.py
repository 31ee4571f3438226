"""The daily board's JSON API (docs/api.md, "Daily board"): today's board and leaderboard,
an attempt, a practice room. Views parse and authorise; daily.attempts does the work."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.http import HttpRequest, JsonResponse
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from daily import attempts, boards, devices, leaderboard, limits, practice
from daily.models import DailyGame, DailyScore
from games.access import player_response
from games.models import NICKNAME_MAX_LENGTH, Player, Round
from games.nicknames import nickname_key
from games.sessions import remember_player
from games.state_parts import StateView
from web import text, throttle
from web.json_api import idempotent, json_api, rate_limited, read_json

# The browser session remembers the players of this device's attempts of one date, so
# GET /api/daily can show "your result" (and the attempt still running).
SESSION_KEY = "boggle_daily"


def _remember_attempt(session: Any, day: date, player: Player) -> None:
    mine = session.get(SESSION_KEY) or {}
    players = mine.get("players", []) if mine.get("date") == day.isoformat() else []
    session[SESSION_KEY] = {"date": day.isoformat(), "players": [*players, player.id]}


def _device_players(session: Any, day: date) -> list[int]:
    mine = session.get(SESSION_KEY) or {}
    return list(mine.get("players", [])) if mine.get("date") == day.isoformat() else []


def _played(request: HttpRequest, day: date) -> DailyScore | None:
    """The leaderboard entry of ``?nickname=`` if given, else of this device's attempts
    (daily.devices): the first that made the leaderboard."""
    nickname = request.GET.get("nickname", "").strip()
    if nickname:
        # A text no nickname can be (web.text: NUL, too long) has no entry.
        if not text.is_clean(nickname, NICKNAME_MAX_LENGTH, text.JOINERS):
            return None
        return attempts.entry_for(day, nickname_key(nickname))
    device = devices.known_device(request, day)
    if device is None:
        return None
    return (
        DailyScore.objects.filter(date=day, device=device, listed=True)
        .order_by("finished_at", "id")
        .first()
    )


def device_entry(request: HttpRequest, day: date) -> dict[str, Any] | None:
    """``played`` of GET /api/daily: this device's (or ``?nickname=``'s) entry, ranked."""
    played = _played(request, day)
    return None if played is None else leaderboard.entry_dict(played)


def _playing(request: HttpRequest, day: date) -> dict[str, Any] | None:
    """This device's attempt of today whose round has not ended, to go back to."""
    game = (
        DailyGame.objects.filter(
            date=day, player_id__in=_device_players(request.session, day), counted__isnull=True
        )
        .exclude(room__rounds__status=Round.Status.ENDED)
        .select_related("room")
        .order_by("-id")
        .first()
    )
    if game is None:
        return None
    return {"code": game.room.code, "url": reverse("games:room", args=[game.room.code])}


@json_api
@require_http_methods(["GET", "POST"])
def daily(request: HttpRequest) -> JsonResponse:
    if request.method == "POST":
        return _start_attempt(request)
    # ?nickname= (see _played): refused with 400 invalid when it is no nickname's text.
    nickname = request.GET.get("nickname", "").strip()
    text.check_text(nickname, "nickname", NICKNAME_MAX_LENGTH, text.JOINERS)
    day = boards.today()
    return JsonResponse(
        {
            "date": day.isoformat(),
            "board_size": boards.DAILY_BOARD_SIZE,
            "round_seconds": boards.DAILY_ROUND_SECONDS,
            "dictionary": boards.dictionary_of(day),
            "leaderboard": leaderboard.top(day),
            "players": leaderboard.entries(day).count(),
            "played": device_entry(request, day),
            "playing": _playing(request, day),
        }
    )


@rate_limited(throttle.CREATE)
@idempotent
def _start_attempt(request: HttpRequest) -> JsonResponse:
    data = read_json(request)
    day = boards.today()
    device = devices.device_of(request, day)
    limits.take_attempt(throttle.client_address(request), device)
    room, host, game = attempts.do_start_attempt(data.get("nickname"), device)
    remember_player(request.session, host)
    _remember_attempt(request.session, game.date, host)
    return player_response(
        request,
        room,
        host,
        status=201,
        daily={"date": game.date.isoformat(), "counts": _counts(game)},
    )


@json_api
@require_http_methods(["POST"])
@rate_limited(throttle.CREATE)
@idempotent
def start_practice(request: HttpRequest) -> JsonResponse:
    data = read_json(request)
    room, host = practice.do_start_practice(
        data.get("nickname"), data.get("settings"), data.get("board")
    )
    remember_player(request.session, host)
    return player_response(request, room, host, status=201)


def _counts(game: DailyGame) -> bool:
    """Whether the attempt will be the device's result under its nickname: the device has
    none yet that day."""
    if game.counted is not None:
        return game.counted
    return attempts.result_of(game) is None


def daily_state(view: StateView) -> dict[str, Any]:
    """The room state's ``daily`` (games.state_parts): null in other rooms; in a
    daily room, its date, where the attempt stands, and the device's result under its
    nickname once there is one (docs/api.md, "POST /api/daily")."""
    game = DailyGame.objects.filter(room=view.room).select_related("player").first()
    if game is None:
        return {"daily": None}
    result = attempts.result_of(game)
    status = {None: "playing", True: "counted", False: "practice"}[game.counted]
    if status == "playing" and result is not None:
        status = "practice"  # the device's first attempt under this nickname has ended
    if status == "counted" and result is not None and not result.listed:
        status = "unlisted"
    return {
        "daily": {
            "date": game.date.isoformat(),
            "status": status,
            "entry": None if result is None else leaderboard.result_dict(result),
        }
    }
