"""Live word counts during a round, coalesced: a frame or two a second per room.

An accepted word (any entry, when verdicts are hidden) only marks its room as changed; every
``PUBLISH_SECONDS`` each process sends one ``round.counts`` per changed room, counted for all
of them in one query. The latest state wins, so a crowd typing fast costs the room a couple
of frames a second, not one per word per socket.
"""

from __future__ import annotations

import threading

from django.db import transaction
from django.db.models import Count, Q

from games import events
from games.models import Room, Round, Submission
from solver.judge import Verdict

# Each process sends a changed room its counts at most this often (with several web
# processes, each sends its own: a room gets a frame or two a second).
PUBLISH_SECONDS = 1.0

_changed: dict[int, int] = {}  # room id -> round id
_lock = threading.Lock()


def changed(room_id: int, round_id: int) -> None:
    """The round's counts moved: publish them with the next batch."""
    with _lock:
        _changed[room_id] = round_id


def counts_by_round(round_ids: list[int]) -> dict[int, dict[str, int]]:
    """Entries that count so far, per round and player id (as strings: JSON object keys):
    accepted words, or every entry where verdicts are hidden (counts must not reveal them)."""
    rows = (
        Submission.objects.filter(round_id__in=round_ids)
        .filter(Q(verdict=Verdict.ACCEPTED) | Q(round__instant_verdicts=False))
        .values("round_id", "player_id")
        .annotate(n=Count("id"))
    )
    counts: dict[int, dict[str, int]] = {round_id: {} for round_id in round_ids}
    for row in rows:
        counts[row["round_id"]][str(row["player_id"])] = row["n"]
    return counts


def publish_changed() -> int:
    """Send ``round.counts`` to each room whose counts changed; returns how many rooms.
    Worker thread (database reads, one versioned event per room)."""
    with _lock:
        batch = dict(_changed)
        _changed.clear()
    if not batch:
        return 0
    running = list(
        Round.objects.filter(id__in=batch.values(), status=Round.Status.RUNNING).values_list(
            "id", "room_id", "room__code"
        )
    )
    counts = counts_by_round([round_id for round_id, _, _ in running])
    for round_id, room_id, code in running:
        with transaction.atomic():
            room = Room(pk=room_id, code=code)  # what an event needs of the room
            events.emit_to_room(room, "round.counts", {"counts": counts[round_id]})
    return len(running)


def clear() -> None:
    """Forget the changed rooms (tests: a fresh process)."""
    with _lock:
        _changed.clear()
