"""Locking a room: while it is locked, newcomers wait for the host's yes.

A newcomer is a device that was never a player of the room (no token, no session player):
it asks to join (``do_ask_to_join``) and waits; the host lets it in (``do_admit``: a player is
made, as by an open join) or refuses (``do_refuse``). Players of the room come back freely,
locked or not, and a kicked player stays out until the host lets them back (games.rooms).
The newcomer's page learns the answer by polling its request (games.waiting_api); the room
hears of every change through versioned events: ``room.locked``, ``join.requested``,
``join.decided``. Each ``do_*`` runs in one transaction and sends its events after commit.

A few addresses cannot fill a room's list: each has at most
``WAITING_PER_ADDRESS_PER_ROOM`` requests per room and ``WAITING_PER_ADDRESS`` across rooms
within ``WAITING_EXPIRES_AFTER`` (web.throttle windows, in Redis in production), and a
request still unanswered that long after it was made is withdrawn, whether its page still
polls or not (the newcomer may ask again).
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games import events, presenters, rooms
from games.checks import check_host, check_nickname, is_int
from games.exceptions import NicknameTaken, WaitingListFull
from games.models import NICKNAME_MAX_LENGTH, JoinRequest, Player, Room
from games.nicknames import nickname_key
from games.state_parts import StateView
from web import throttle
from web.errors import InvalidInput

# Newcomers waiting at one room at most: the host's list stays short enough to read, and a
# script cannot fill the database (each address has a few of them, see below, and joins
# are also limited per address, web.throttle).
MAX_WAITING = 20
# A waiting page asks for its answer every few seconds; one silent this long was closed,
# and is no longer shown to the host nor counted (it shows again if it comes back).
WAITING_FRESH_FOR = timedelta(seconds=30)
# A request unanswered this long after it was made is withdrawn: a host busy with a round
# or two has answered by then, and a script's requests do not hold the list for good.
WAITING_EXPIRES_AFTER = timedelta(minutes=10)
# Join requests per address within that time: at one room (a household behind one NAT
# asking at once), and at all rooms together. Refused: 429 ``rate_limited``.
WAITING_PER_ADDRESS_PER_ROOM = throttle.Window(
    "waiting_room",
    5,
    WAITING_EXPIRES_AFTER.total_seconds(),
    gettext_lazy("too many people from your address are waiting to join this room"),
)
WAITING_PER_ADDRESS = throttle.Window(
    "waiting",
    10,
    WAITING_EXPIRES_AFTER.total_seconds(),
    gettext_lazy("too many people from your address are waiting to join rooms"),
)
# What a join request's key looks like (games.models.new_player_token).
KEY_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")


def is_locked(room: Room) -> bool:
    """Whether a newcomer waits: the room is locked and has a host to ask (a room whose
    players all left has none, and lets the first to come in, who becomes its host)."""
    return room.locked and room.host_id is not None


def waiting(room: Room) -> QuerySet[JoinRequest]:
    """The room's newcomers still waiting whose page is still open, oldest first."""
    now = timezone.now()
    return JoinRequest.objects.filter(
        room=room,
        status=JoinRequest.Status.WAITING,
        seen_at__gte=now - WAITING_FRESH_FOR,
        created_at__gte=now - WAITING_EXPIRES_AFTER,
    ).order_by("created_at", "id")


def has_expired(join_request: JoinRequest) -> bool:
    return join_request.created_at < timezone.now() - WAITING_EXPIRES_AFTER


def state_part(view: StateView) -> dict[str, Any]:
    """The room state's ``locked`` and ``waiting`` (games.state_parts)."""
    room = view.room
    return {
        "locked": room.locked,
        "waiting": [presenters.join_request_dict(item) for item in waiting(room)],
    }


@transaction.atomic(durable=True)
def do_lock(host: Player, locked: Any) -> bool:
    """The host locks or unlocks the room; ``room.locked`` tells the room when it changes.
    Newcomers already waiting keep waiting for the host's answer either way."""
    check_host(host)
    if not isinstance(locked, bool):
        raise InvalidInput("locked is true or false")
    room = Room.objects.select_for_update().get(pk=host.room_id)
    if room.locked != locked:
        room.locked = locked
        room.save(update_fields=["locked"])
        events.emit_to_room(room, "room.locked", {"locked": locked})
    return locked


@transaction.atomic
def do_ask_to_join(room: Room, nickname: Any, address: str = "") -> JoinRequest:
    """A newcomer asks to join the locked ``room`` under ``nickname``: checked as a join's
    is, and against the others waiting, so the host never sees two of one name; then
    counted against ``address``'s requests (web.throttle.Throttled when it has none left)."""
    room = Room.objects.select_for_update().get(pk=room.pk)  # one asker at a time: the bound
    cleaned = check_nickname(room, nickname)
    others = list(waiting(room))
    if len(others) >= MAX_WAITING:
        raise WaitingListFull(
            _("%(count)s people are already waiting to join this room; try again later")
            % {"count": MAX_WAITING}
        )
    key = nickname_key(cleaned)
    if any(nickname_key(other.nickname) == key for other in others):
        raise NicknameTaken(
            _("someone called %(nickname)r is already waiting to join; pick another nickname")
            % {"nickname": cleaned}
        )
    _count_request(room, address)
    join_request = JoinRequest.objects.create(room=room, nickname=cleaned)
    events.emit_to_room(
        room, "join.requested", {"join_request": presenters.join_request_dict(join_request)}
    )
    return join_request


def _count_request(room: Room, address: str) -> None:
    """Count a new request of ``address`` at ``room`` and at all rooms; Throttled, and
    nothing counted, when either is used up."""
    at_room = throttle.reserve(WAITING_PER_ADDRESS_PER_ROOM, address, scope=f"room{room.pk}")
    try:
        throttle.reserve(WAITING_PER_ADDRESS, address)
    except throttle.Throttled:
        throttle.release(at_room)
        raise


def find_request(room: Room, key: str | None) -> JoinRequest | None:
    """The room's join request with this secret key, if any (withdrawn first if it has
    waited ``WAITING_EXPIRES_AFTER``)."""
    # Keys are token_urlsafe text: anything else (NUL, surrogates, 10 kB) names none, and
    # never reaches the database (PostgreSQL refuses NUL in text).
    if not isinstance(key, str) or not KEY_PATTERN.fullmatch(key):
        return None
    found = JoinRequest.objects.filter(room=room, key=key).select_related("player").first()
    if found is not None and found.status == JoinRequest.Status.WAITING and has_expired(found):
        return do_expire(found)
    return found


@transaction.atomic
def do_expire(join_request: JoinRequest) -> JoinRequest:
    """Withdraw a request unanswered for ``WAITING_EXPIRES_AFTER`` (the room hears
    ``join.decided``, as for a withdrawal)."""
    updated = JoinRequest.objects.filter(
        pk=join_request.pk,
        status=JoinRequest.Status.WAITING,
        created_at__lt=timezone.now() - WAITING_EXPIRES_AFTER,
    ).update(status=JoinRequest.Status.WITHDRAWN, decided_at=timezone.now())
    join_request.refresh_from_db()
    if updated:
        _tell_decision(join_request)
    return join_request


@transaction.atomic(durable=True)
def do_check_in(join_request: JoinRequest) -> JoinRequest:
    """The newcomer's page asks for its answer: note that it is still open. One that had
    gone quiet (a phone asleep) is shown to the host again."""
    now = timezone.now()
    stale = join_request.seen_at < now - WAITING_FRESH_FOR
    JoinRequest.objects.filter(pk=join_request.pk).update(seen_at=now)
    join_request.seen_at = now
    if stale and join_request.status == JoinRequest.Status.WAITING:
        events.emit_to_room(
            join_request.room,
            "join.requested",
            {"join_request": presenters.join_request_dict(join_request)},
        )
    return join_request


@transaction.atomic(durable=True)
def do_withdraw(join_request: JoinRequest) -> JoinRequest:
    """The newcomer stops waiting (their "Cancel"); nothing happens once the host answered."""
    updated = JoinRequest.objects.filter(
        pk=join_request.pk, status=JoinRequest.Status.WAITING
    ).update(status=JoinRequest.Status.WITHDRAWN, decided_at=timezone.now())
    join_request.refresh_from_db()
    if updated:
        _tell_decision(join_request)
    return join_request


@transaction.atomic(durable=True)
def do_admit(host: Player, join_request_id: Any) -> Player:
    """The host lets a waiting newcomer in: they become a player (``player.joined``), under
    their nickname, or with a number added if a player took it while they waited."""
    check_host(host)
    room = Room.objects.select_for_update().get(pk=host.room_id)
    join_request = _waiting_request(room, join_request_id)
    player = _join_as_free_nickname(room, join_request.nickname)
    join_request.status = JoinRequest.Status.ADMITTED
    join_request.decided_at = timezone.now()
    join_request.player = player
    join_request.save(update_fields=["status", "decided_at", "player"])
    _tell_decision(join_request)
    return player


@transaction.atomic(durable=True)
def do_refuse(host: Player, join_request_id: Any) -> JoinRequest:
    """The host says no: the newcomer is told, and their device cannot ask this room again."""
    check_host(host)
    room = Room.objects.select_for_update().get(pk=host.room_id)
    join_request = _waiting_request(room, join_request_id)
    join_request.status = JoinRequest.Status.REFUSED
    join_request.decided_at = timezone.now()
    join_request.save(update_fields=["status", "decided_at"])
    _tell_decision(join_request)
    return join_request


def _waiting_request(room: Room, join_request_id: Any) -> JoinRequest:
    if not is_int(join_request_id):
        raise InvalidInput("join_request_id is a number")
    join_request = (
        JoinRequest.objects.select_for_update()
        .filter(
            pk=join_request_id,
            room=room,
            status=JoinRequest.Status.WAITING,
            created_at__gte=timezone.now() - WAITING_EXPIRES_AFTER,
        )
        .first()
    )
    if join_request is None:
        raise InvalidInput(_("nobody with that id is waiting to join (answered or gone)"))
    return join_request


def _join_as_free_nickname(room: Room, nickname: str) -> Player:
    """``rooms.do_join_room`` under ``nickname``, else "nickname 2", "nickname 3"..."""
    for number in range(1, 10):
        suffix = "" if number == 1 else f" {number}"
        wanted = nickname[: NICKNAME_MAX_LENGTH - len(suffix)] + suffix
        try:
            with transaction.atomic():
                return rooms.do_join_room(room, wanted)
        except NicknameTaken:
            continue
    raise NicknameTaken(
        _("%(nickname)r is taken in this room; refuse, and ask them to pick another nickname")
        % {"nickname": nickname}
    )


def _tell_decision(join_request: JoinRequest) -> None:
    events.emit_to_room(
        join_request.room,
        "join.decided",
        {
            "join_request_id": join_request.id,
            "status": join_request.status,
            "player_id": join_request.player_id,
        },
    )
