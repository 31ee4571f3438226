"""Live word counts during a round, coalesced: about a snapshot a second per room.

An accepted word (any entry, when verdicts are hidden) only marks its room as changed; every
``PUBLISH_SECONDS`` each process sends one ``round.counts`` per changed room, counted for all
of them in one query. A crowd typing fast costs the room one snapshot a second, not one per
word per socket, and a player who is typing gets it with their next verdict rather than in
a frame of its own (``games.counts_delivery``).

Counts take no room version: each is a whole snapshot, the newest wins (``counted_at``), and
a missed one loses nothing. So they cost no write, and a room whose players are spread over
two processes may get a snapshot from each a second (nginx's room affinity keeps that rare).
A snapshot that reaches a page after ``round.ended`` is ignored there (the round is over).

The flusher (``games.background``) publishes every ``live.REFUSED_FLUSH_SECONDS``, a share
of the process's rooms each time (``publish_changed(spread=True)``): the frames of rooms
that started together leave spread over the period instead of in one burst. At 1,000
players in rooms of 8 that burst, a thousand frames once a second, held the event loop
long enough to delay every verdict that arrived during it.
"""

from __future__ import annotations

import math
import threading
import time

from django.db.models import Count, Q

from games import coop, counts_delivery, events, modes, team_figures
from games import live as live_rounds
from games.models import Round, Submission
from solver.judge import Verdict

# A changed room gets its counts at most this often, whichever processes took its words.
PUBLISH_SECONDS = 1.0
# An accepted word this long (letters: Qu counts as two) is a moment the table screen
# announces: the counts frame after it names who found one, and its length, not the word.
LONG_WORD_LETTERS = 8

_changed: dict[int, int] = {}  # room id -> round id
_long_words: dict[int, list[tuple[int, int]]] = {}  # room id -> (player id, letters)
_team_words: dict[int, list[tuple[int, str]]] = {}  # round id -> (player id, word): co-op
# When this process last sent each room's counts (time.monotonic), for spread publishing.
_published_at: dict[int, float] = {}
_lock = threading.Lock()


def changed(
    room_id: int,
    round_id: int,
    long_word: tuple[int, int] | None = None,
    team_word: tuple[int, str] | None = None,
) -> None:
    """The round's counts moved: publish them with the next batch; ``long_word`` (player
    id, letters) and, in a co-op round, ``team_word`` (player id, word) go with them."""
    with _lock:
        _changed[room_id] = round_id
        if long_word is not None:
            _long_words.setdefault(room_id, []).append(long_word)
        if team_word is not None:
            _team_words.setdefault(round_id, []).append(team_word)


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


def publish_changed(spread: bool = False) -> int:
    """Send ``round.counts`` to each room whose counts changed; returns how many rooms.
    With ``spread``, only to the changed rooms this process has not sent counts within the
    period, and to no more of them than its share of one flusher pass (``_due``). Worker
    thread (database reads, one unversioned event per room)."""
    with _lock:
        rooms = _due(time.monotonic()) if spread else list(_changed)
        batch = {room_id: _changed.pop(room_id) for room_id in rooms}
        long_words = {
            room_id: _long_words.pop(room_id) for room_id in rooms if room_id in _long_words
        }
        team_words = {
            round_id: _team_words.pop(round_id)
            for round_id in batch.values()
            if round_id in _team_words
        }
        for round_id in _team_words.keys() - set(_changed.values()):
            del _team_words[round_id]  # a round no longer waiting (its room moved on)
    if not batch:
        return 0
    running = list(
        Round.objects.filter(id__in=batch.values(), status=Round.Status.RUNNING).values_list(
            "id", "room_id", "room__code", "mode", "coop_goal"
        )
    )
    counted_at = events.server_now_ms()  # the counts are at least this recent
    counts = counts_by_round([round_id for round_id, *_ in running])
    teams = _team_figures([round_id for round_id, _, _, mode, _ in running if mode == modes.COOP])
    frames: list[tuple[str, dict, dict | None]] = []
    for round_id, room_id, code, _mode, goal in running:
        frame: dict = {"type": "round.counts", "counted_at": counted_at, "counts": counts[round_id]}
        if long_words.get(room_id):
            frame["long_words"] = [
                {"player_id": player_id, "letters": letters}
                for player_id, letters in long_words[room_id]
            ]
        if round_id in teams:
            found, total = teams[round_id]
            frame["team"] = {
                "goal": goal,
                "total": total,
                "found": found,
                "new_words": coop.first_finders(team_words.get(round_id, [])),
            }
        # Counts alone are a snapshot the next one replaces: a socket may hold them back for
        # its player's next verdict (games.counts_delivery). Long words and the team's new
        # words are news that a later frame does not repeat: they go out at once.
        snapshot = "long_words" not in frame and "team" not in frame
        frames.append((code, frame, {counts_delivery.SNAPSHOT_KEY: True} if snapshot else None))
    events.send_room_events_now(frames)
    return len(frames)


def _due(now: float) -> list[int]:
    """The changed rooms to publish in this flusher pass, oldest change first: those not
    sent counts by this process within the period, at most the pass's share of the rooms
    it publishes (so each gets its frame about once a period, spread over it). Marks them
    published now. Under ``_lock``."""
    period = PUBLISH_SECONDS * 0.9  # a pass late still counts as on time
    for room_id, at in list(_published_at.items()):
        if now - at > 2 * PUBLISH_SECONDS:  # not published for long: no longer counted
            del _published_at[room_id]
    waiting = [
        room_id for room_id in _changed if now - _published_at.get(room_id, -period) >= period
    ]
    rooms = len(_published_at.keys() | set(waiting))
    share = math.ceil(rooms * live_rounds.REFUSED_FLUSH_SECONDS / PUBLISH_SECONDS)
    due = waiting[:share]
    for room_id in due:
        _published_at[room_id] = now
    return due


def _team_figures(round_ids: list[int]) -> dict[int, tuple[int, int]]:
    """Co-op rounds' (the board's words found, the board's words), the board's words from
    this process's copy of each round (games.live) where it has one."""
    held = {}
    for round_id in round_ids:
        live = live_rounds.for_round(round_id)
        if live is not None and live.co_op:
            held[round_id] = live.solution_words
    return team_figures.figures(round_ids, held)


def clear() -> None:
    """Forget the changed rooms (tests: a fresh process)."""
    with _lock:
        _changed.clear()
        _long_words.clear()
        _team_words.clear()
        _published_at.clear()
