"""What clients are shown, read from the database and handed to ``games.presenters``
(which only format): a room's state as one viewer sees it, a round's results, live counts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import Sum

from games import live, live_counts, presenters, waiting_room
from games.lexicons import available_dictionaries
from games.models import Player, Room, Round, Submission

# Parts of a room's state that other apps own (the photos app: the board photo being read
# or read and not yet used), added by their AppConfig.ready: games does not import them.
StatePart = Callable[[Room, Round | None], dict[str, Any]]
_parts: list[StatePart] = []


def add_state_part(part: StatePart) -> None:
    if part not in _parts:
        _parts.append(part)


def room_totals(room: Room, through_round: int | None = None) -> dict[int, int]:
    """Running totals: each player's points over the room's ended rounds, or over those
    up to round number ``through_round`` (what that round's results show)."""
    rounds = Submission.objects.filter(round__room=room, round__status=Round.Status.ENDED)
    if through_round is not None:
        rounds = rounds.filter(round__number__lte=through_round)
    rows = rounds.values("player_id").annotate(total=Sum("points", default=0))
    return {row["player_id"]: row["total"] or 0 for row in rows}


def live_counts_of(round_: Round) -> dict[str, int]:
    """The entries that count so far in a running round, per player id."""
    return live_counts.counts_by_round([round_.id])[round_.id]


def results(round_: Round) -> dict:
    """Everything a finished round shows (docs/api.md, "Results"). Fixed once the round
    has ended (a challenge the host accepts rescores it): the players of the round (in the
    room when it ended, or who entered a word in it) and totals up to this round, not who
    joined or what was scored later."""
    room = round_.room
    submissions = [
        presenters.ScoredEntry(*row)
        for row in Submission.objects.filter(round=round_)
        .order_by("id")
        .values_list("player_id", "word", "verdict", "points", "cancelled")
    ]
    entered = {entry.player_id for entry in submissions}
    players = {
        player.id: player
        for player in room.players.all()
        if player.id in entered or in_room_at_end(player, round_)
    }
    for player in players.values():
        player.room = room  # presenters read the host from it
    challenges = list(round_.challenges.select_related("player", "round").order_by("id"))
    totals = room_totals(room, through_round=round_.number)
    return presenters.results_dict(round_, submissions, players, totals, challenges)


def in_room_at_end(player: Player, round_: Round) -> bool:
    """Whether the player was in the room when the round ended (or is, if it has not)."""
    end = round_.ended_at
    if end is None:
        return player.active
    return player.joined_at <= end and (player.left_at is None or player.left_at > end)


def room_state(room: Room, viewer: Player | None = None) -> dict:
    """The full picture after connecting, reloading or missing an event. Refused entries
    this process still holds in memory are written first: they are part of "my words"."""
    live.flush_refused(room_id=room.pk)
    players = [p for p in room.players.filter(left_at__isnull=True).with_presence() if not p.kicked]
    for player in players:
        player.room = room
    current = room.rounds.order_by("-number").first()
    counts: dict[str, int] = {}
    mine: list[Submission] = []
    ended_results = None
    if current is not None:
        current.room = room
        if current.status == Round.Status.RUNNING:
            counts = live_counts_of(current)
        if current.status == Round.Status.ENDED:
            ended_results = results(current)
        if viewer is not None:
            mine = list(Submission.objects.filter(round=current, player=viewer).order_by("id"))
    state = presenters.room_state(
        room,
        viewer,
        players,
        room_totals(room),
        current,
        counts,
        mine,
        ended_results,
        available_dictionaries(),
    )
    # The final standing once the host ended the game (games.standings), else None.
    state["standing"] = room.final_standing
    # Kicked players the host has not let back (``unkick`` takes their id).
    state["kicked"] = [
        {"id": player_id, "nickname": nickname}
        for player_id, nickname in room.players.filter(kicked=True)
        .order_by("left_at", "id")
        .values_list("id", "nickname")
    ]
    # Whether newcomers wait for the host's yes, and who waits (games.waiting_room).
    state.update(waiting_room.state_part(room))
    for part in _parts:
        state.update(part(room, current))
    return state
