"""Play on paper (the room setting ``paper``): the phones are the round's shared timer while
everyone writes their words down, as at a table with the physical game; when the time is
up each player enters the list they wrote, and the host scores the lists. Scoring, results
and history are a round's as usual.

A paper round is a running round in two parts, told apart by its ``ends_at``: before it
(writing) no entry is taken; from it on (entering the lists) entries are judged as in any
round, and the round is never ended by its deadline (the watchers and the workers leave
it), only by the host's ``end_round``. The host's ``end_round`` while the players still
write stops the writing at once (``ends_at`` becomes now: an untimed paper round ends its
writing so).
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from games import events, presenters
from games.models import Round


def writing(round_: Round) -> bool:
    """Whether the players of a running paper round are still writing."""
    return round_.ends_at is None or timezone.now() < round_.ends_at


@transaction.atomic(durable=True)
def do_stop_writing(round_: Round) -> None:
    """The host says the time is up before the timer did (or in an untimed round): the
    lists' entry opens now for everyone (``round.time_up``)."""
    now = timezone.now()
    still_writing = Q(ends_at__isnull=True) | Q(ends_at__gt=now)
    updated = (
        Round.objects.filter(pk=round_.pk, status=Round.Status.RUNNING, paper=True)
        .filter(still_writing, starts_at__lte=now)
        .update(ends_at=now)
    )
    if not updated:
        return
    round_.refresh_from_db()
    events.emit_to_room(round_.room, "round.time_up", {"round": presenters.round_dict(round_)})
