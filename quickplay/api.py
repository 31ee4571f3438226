"""Quick play over HTTP (docs/api.md, "Quick play"): join the queue, ask how the ticket
stands (the answer that places you in a room carries your player's credentials), leave it;
the rating's leaderboard; a report of a player of a quick-play room."""

from __future__ import annotations

import secrets
from typing import Any

from django.db import IntegrityError, transaction
from django.http import HttpRequest, JsonResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games.access import find_room, player_credentials, viewer
from games.exceptions import NotAPlayer
from games.room_dictionaries import available_dictionaries, default_dictionary
from games.sessions import remember_player
from quickplay import queue, ratings
from quickplay.models import Report, Seat, Ticket
from web import text, throttle
from web.errors import InvalidInput
from web.json_api import bearer_token, json_api, read_json

# Joining the queue: a household at once, then one every few seconds; asking how a ticket
# stands: about once a second each, for a household.
QUEUE = throttle.Limit("quickplay", 20, 10, gettext_lazy("too many queue joins from your address"))
TICKET = throttle.Limit(
    "quickplay_ticket", 600, 60, gettext_lazy("too many queue checks from your address")
)
REPORT = throttle.Limit("report", 6, 6, gettext_lazy("too many reports from your address"))
SESSION_TICKET = "boggle_quickplay_ticket"
SESSION_IDENTITY = "boggle_quickplay_identity"


def _identity(request: HttpRequest) -> str:
    """Who the rating follows: the signed-in account, else this browser (its session)."""
    if request.user.is_authenticated:
        return f"account:{request.user.pk}"
    device = request.session.get(SESSION_IDENTITY)
    if not isinstance(device, str) or not device:
        device = secrets.token_urlsafe(16)
        request.session[SESSION_IDENTITY] = device
    return f"device:{device}"


def _ticket_key(request: HttpRequest) -> str:
    key = bearer_token(request) or request.session.get(SESSION_TICKET)
    if not isinstance(key, str) or not text.looks_like_token(key):
        raise queue.NotInQueue(_("this browser is not in the queue: join it first"))
    return key


def _ticket_answer(request: HttpRequest, ticket: Ticket, joined: bool = False) -> JsonResponse:
    """The ticket as the client sees it (with its key when just ``joined``: 201); once
    placed, this browser's session is the player (as joining a room makes it)."""
    data = _ticket_dict(request, ticket)
    status = 201 if joined else 200
    if joined:
        data = {"key": ticket.key, **data}
    if ticket.player is not None:
        remember_player(request.session, ticket.player)
    return JsonResponse({"ticket": data}, status=status)


def _ticket_dict(request: HttpRequest, ticket: Ticket) -> dict[str, Any]:
    data: dict[str, Any] = {
        "status": "placed" if ticket.room_id else "waiting",
        "nickname": ticket.nickname,
        "waiting": queue.waiting_count(ticket.dictionary),
        "joined_at": int(ticket.created_at.timestamp() * 1000),
    }
    if ticket.room is not None and ticket.player is not None:
        data["room"] = {"code": ticket.room.code}
        data["player"] = player_credentials(request, ticket.room, ticket.player)
    return data


@json_api
@never_cache
@require_http_methods(["POST", "GET", "DELETE"])
def ticket(request: HttpRequest) -> JsonResponse:
    """POST ``{"nickname", "dictionary"?}``: join the queue (201, the ticket with its
    ``key``). GET: how it stands, once a second while waiting. DELETE: leave it."""
    if request.method == "POST":
        throttle.take(QUEUE, throttle.client_address(request))
        data = read_json(request)
        dictionary = data.get("dictionary", default_dictionary())
        if not isinstance(dictionary, str) or dictionary not in available_dictionaries():
            raise InvalidInput(_("dictionary: one of the site's dictionaries"))
        new = queue.do_join_queue(
            data.get("nickname"),
            _identity(request),
            throttle.client_address(request),
            dictionary,
        )
        request.session[SESSION_TICKET] = new.key
        placed = queue.do_check_ticket(new.key)  # the fourth to come is placed at once
        return _ticket_answer(request, placed, joined=True)
    throttle.take(TICKET, throttle.client_address(request))
    key = _ticket_key(request)
    if request.method == "DELETE":
        queue.do_leave_queue(key)
        request.session.pop(SESSION_TICKET, None)
        return JsonResponse({"ticket": None})
    return _ticket_answer(request, queue.do_check_ticket(key))


@json_api
@require_GET
def leaderboard(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"players": ratings.leaderboard()})


@json_api
@require_POST
def report(request: HttpRequest, code: str) -> JsonResponse:
    """A player of a quick-play room reports another: ``{"player_id", "reason"}``. Counted
    against the address's reports once the room is found (a miss counts as a miss)."""
    room = find_room(request, code)
    throttle.take(REPORT, throttle.client_address(request))
    reporter = viewer(request, room)
    if reporter is None:
        raise NotAPlayer(_("join the room with a nickname first"))
    if not room.public:
        raise InvalidInput(
            _("reports are for quick-play rooms: in your own room, the host decides")
        )
    data = read_json(request)
    reason, target = data.get("reason"), data.get("player_id")
    if reason not in Report.Reason.values:
        raise InvalidInput(
            _("reason: one of %(reasons)s") % {"reasons": ", ".join(Report.Reason.values)}
        )
    reported = (
        room.players.filter(pk=target).first()
        if isinstance(target, int) and not isinstance(target, bool)
        else None
    )
    if reported is None or reported.pk == reporter.pk:
        raise InvalidInput(_("player_id: another player of the room"))
    seat = Seat.objects.filter(player=reported).first()
    try:
        with transaction.atomic():
            Report.objects.create(
                room=room,
                room_code=room.code,
                reported=reported,
                reported_nickname=reported.nickname,
                reported_identity=seat.identity if seat else "",
                reporter_nickname=reporter.nickname,
                reporter_address=throttle.client_address(request)[:64],
                reason=reason,
            )
    except IntegrityError:
        pass  # reported already: once is enough
    return JsonResponse({"reported": True}, status=201)
