"""The autopilot: a room whose game runs itself (``Room.autopilot_rounds``, set by quick
play): the server starts each round, shows the results for a while, and ends the game
after its rounds, with nobody to press a button (docs/api.md, "Quick play").

``Room.next_round_at`` says when the next step is due: the first round's start (set when
the room is made), then after each round's end the next round, or the game's end once the
room has played its rounds. Every web process's deadline watcher runs the due steps
(``run_due``); each step takes the room's row and clears the time first, so one process
does it.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from games import rounds, standings
from games.checks import current_round
from games.models import Player, Room, Round
from games.presenters import number_in_game
from web.errors import ClientError

logger = logging.getLogger(__name__)

# How long the results show before the next round starts, and before the game's end after
# its last round (seconds).
PAUSE_SECONDS = 20
LAST_PAUSE_SECONDS = 4
# Rooms stepped per pass at most (the rest on the next pass, a second later).
PER_PASS = 50


def after_rounds_ended(sender: Any, rounds: list[Round], **kwargs: Any) -> None:
    """Receiver of ``signals.rounds_ended``: the autopilot's rooms get their next step."""
    now = timezone.now()
    for round_ in rounds:
        room = round_.room
        if not room.autopilot_rounds or round_.game != room.game:
            continue
        last = number_in_game(round_) >= room.autopilot_rounds
        pause = LAST_PAUSE_SECONDS if last else PAUSE_SECONDS
        with transaction.atomic():
            Room.objects.filter(pk=room.pk).update(next_round_at=now + timedelta(seconds=pause))


def run_due(now: datetime | None = None) -> int:
    """Start the rounds and end the games now due; returns how many rooms stepped."""
    now = now or timezone.now()
    due = list(Room.objects.filter(next_round_at__lte=now).values_list("pk", flat=True)[:PER_PASS])
    return sum(1 for room_id in due if _step(room_id, now))


def _step(room_id: int, now: datetime) -> bool:
    try:
        with transaction.atomic():
            room = (
                Room.objects.select_for_update().filter(pk=room_id, next_round_at__lte=now).first()
            )
            if room is None:  # another process took it
                return False
            room.next_round_at = None
            room.save(update_fields=["next_round_at"])
            if room.game_ended_at is not None:
                return False
            if not Player.objects.filter(room=room, left_at__isnull=True).exists():
                return False  # everyone left: the room idles until housekeeping deletes it
            latest = current_round(room.pk)
            played = 0 if latest is None or latest.game != room.game else number_in_game(latest)
            if played >= room.autopilot_rounds:
                standings.end_game_in(room.pk)
            else:
                rounds.start_round_in(room.pk)
            return True
    except ClientError as error:  # a round under way, a dictionary gone: logged, not retried
        logger.warning("autopilot: room %s not stepped: %s", room_id, error)
        return False
