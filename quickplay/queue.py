"""The quick-play queue (docs/api.md, "Quick play"): players wait for strangers; a room of
up to ``ROOM_SIZE`` is made when ``START_AT`` wait, or when the first has waited
``START_WITH_TWO_AFTER`` seconds with one other at least. The room is public: its game runs
itself (``games.autopilot``), ``ROUNDS`` rounds, then the final standing and the rating.

The queue is the database's (``Ticket``), so every web process serves it: matching takes
one lock (PostgreSQL: a transaction-level advisory lock; SQLite has one writer anyway),
and runs whenever a player joins or asks how their ticket stands, about once a second (the
lock only when there is a room to fill or a ticket to drop):
no process holds the queue, and none needs a timer. A ticket its player stopped asking
about (``GONE_AFTER`` seconds: the page closed) leaves the queue.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import rooms
from games.checks import check_nickname
from games.exceptions import NicknameTaken
from games.models import NICKNAME_MAX_LENGTH, Room
from quickplay.models import Seat, Ticket
from quickplay.names import is_offensive
from web.errors import ClientError, InvalidInput

logger = logging.getLogger(__name__)

ROOM_SIZE = 8
START_AT = 4
START_WITH_TWO_AFTER = 20.0
GONE_AFTER = 10.0
# The game of a quick-play room: its rounds, their length and board, and the time the
# players' pages have to open the room before the first round starts.
ROUNDS = 3
ROUND_SECONDS = 120
BOARD_SIZE = "4x4"
FIRST_ROUND_AFTER = 8.0
# The advisory lock's key (PostgreSQL): one matcher at a time in the whole site.
LOCK_KEY = 0x51_7C_4B_1A


class NotInQueue(ClientError):
    code = "not_in_queue"
    status = 404


def public_nickname(value: object) -> str:
    """A nickname strangers will see: checked as in any room (games.checks), and not
    offensive (quickplay.names)."""
    nickname = check_nickname(Room(), value)  # a room not made yet: no one to clash with
    if is_offensive(nickname):
        raise InvalidInput(_("pick another nickname: strangers will see this one"))
    return nickname


@transaction.atomic(durable=True)
def do_join_queue(nickname: object, identity: str, address: str, dictionary: str) -> Ticket:
    """A new ticket (the identity's waiting one, if any, gives way to it)."""
    cleaned = public_nickname(nickname)
    now = timezone.now()
    Ticket.objects.filter(identity=identity, room__isnull=True).delete()
    return Ticket.objects.create(
        nickname=cleaned,
        identity=identity,
        address=address[:64],
        dictionary=dictionary,
        created_at=now,
        seen_at=now,
    )


def do_check_ticket(key: str) -> Ticket:
    """The ticket as it stands now, after the queue has been matched: placed in a room, or
    still waiting (and seen now)."""
    now = timezone.now()
    if not Ticket.objects.filter(key=key).update(seen_at=now):
        raise NotInQueue(_("this ticket is not in the queue: join it again"))
    match(now)
    return Ticket.objects.select_related("room", "player").get(key=key)


def do_leave_queue(key: str) -> None:
    Ticket.objects.filter(key=key, room__isnull=True).delete()


# Placed tickets kept this long (hours): their rooms are deleted after a day idle anyway.
KEEP_PLACED_HOURS = 24


def on_housekeeping(sender: Any, **kwargs: Any) -> dict[str, int]:
    """``games.signals.housekeeping`` receiver: tickets placed more than a day ago go."""
    old = timezone.now() - timedelta(hours=KEEP_PLACED_HOURS)
    deleted, _ = Ticket.objects.filter(room__isnull=False, created_at__lt=old).delete()
    return {"quickplay_tickets": deleted}


def waiting_count(dictionary: str) -> int:
    return Ticket.objects.filter(room__isnull=True, dictionary=dictionary).count()


def match(now: datetime | None = None) -> int:
    """Fill rooms from the waiting tickets; returns how many rooms were made."""
    now = now or timezone.now()
    made = 0
    if not _work_waiting(now):
        return 0  # most asks: no lock taken, so a crowd asking together never queues on it
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [LOCK_KEY])
        gone = now - timedelta(seconds=GONE_AFTER)
        Ticket.objects.filter(room__isnull=True, seen_at__lt=gone).delete()
        waiting = list(Ticket.objects.filter(room__isnull=True).order_by("created_at", "id"))
        by_dictionary: dict[str, list[Ticket]] = {}
        for ticket in waiting:
            by_dictionary.setdefault(ticket.dictionary, []).append(ticket)
        for tickets in by_dictionary.values():
            while _ready(tickets, now):
                group, tickets = tickets[:ROOM_SIZE], tickets[ROOM_SIZE:]
                _fill_room(group, now)
                made += 1
    return made


def _work_waiting(now: datetime) -> bool:
    """Whether matching would do anything: a room to fill or a ticket gone (read without
    the lock; the matcher reads again under it)."""
    gone = now - timedelta(seconds=GONE_AFTER)
    waiting = Ticket.objects.filter(room__isnull=True).order_by("created_at", "id")
    by_dictionary: dict[str, list[Ticket]] = {}
    for ticket in waiting.only("dictionary", "created_at", "seen_at"):
        if ticket.seen_at < gone:
            return True
        by_dictionary.setdefault(ticket.dictionary, []).append(ticket)
    return any(_ready(tickets, now) for tickets in by_dictionary.values())


def _ready(tickets: list[Ticket], now: datetime) -> bool:
    if len(tickets) >= START_AT:
        return True
    waited = (now - tickets[0].created_at).total_seconds() if tickets else 0.0
    return len(tickets) >= 2 and waited >= START_WITH_TWO_AFTER


def _fill_room(group: list[Ticket], now: datetime) -> Room:
    first, *others = group
    room, host = rooms.do_create_room(
        first.nickname,
        {"board_size": BOARD_SIZE, "round_seconds": ROUND_SECONDS, "dictionary": first.dictionary},
    )
    room.public = True
    room.autopilot_rounds = ROUNDS
    room.next_round_at = now + timedelta(seconds=FIRST_ROUND_AFTER)
    room.save(update_fields=["public", "autopilot_rounds", "next_round_at"])
    seated = [(first, host)]
    for ticket in others:
        seated.append((ticket, _join(room, ticket.nickname)))
    for ticket, player in seated:
        Seat.objects.create(player=player, identity=ticket.identity)
        ticket.room, ticket.player = room, player
        ticket.save(update_fields=["room", "player"])
    logger.info("quick play: room %s for %s players", room.code, len(seated))
    return room


def _join(room: Room, nickname: str):
    """Join under the nickname, or "Ann 2" (3, ...) when a stranger already has it."""
    for suffix in ["", *(f" {n}" for n in range(2, ROOM_SIZE + 2))]:
        try:
            return rooms.do_join_room(room, nickname[: NICKNAME_MAX_LENGTH - len(suffix)] + suffix)
        except NicknameTaken:
            continue
    raise NicknameTaken(_("no free nickname"))
