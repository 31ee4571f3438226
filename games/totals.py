"""Running totals: each player's points over the ended rounds of a game.

A round's score is the sum of its entries' points, less the hints bought in a practice room
(``games.hints``); a total adds up round scores. Both functions read them through
``_round_scores``, the one place that rule lives.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import NamedTuple

from django.db.models import QuerySet, Sum

from games import hints
from games.models import Room, Round, Submission


class RoundScore(NamedTuple):
    """One player's score in one ended round."""

    room_id: int
    game: int
    number: int
    player_id: int
    points: int


def room_totals(
    room: Room, through_round: int | None = None, game: int | None = None
) -> dict[int, int]:
    """Running totals: each player's points over the ended rounds of ``game`` (the room's
    current game by default; a rematch starts from zero), or over those up to round number
    ``through_round`` (what that round's results show)."""
    scored = Submission.objects.filter(
        round__room=room, round__game=room.game if game is None else game
    )
    if through_round is not None:
        scored = scored.filter(round__number__lte=through_round)
    totals: dict[int, int] = defaultdict(int)
    for score in _round_scores(scored, practice=room.practice):
        totals[score.player_id] += score.points
    return dict(totals)


def game_round_scores(room: Room, game: int) -> list[RoundScore]:
    """Each player's score in each ended round of one of the room's games."""
    scored = Submission.objects.filter(round__room=room, round__game=game)
    return _round_scores(scored, practice=room.practice)


def totals_through(rounds: Iterable[Round]) -> dict[int, dict[int, int]]:
    """``room_totals(room, through_round=r.number, game=r.game)`` for each ended round ``r``,
    keyed by its id, for rooms whose rounds end together: two or three queries whatever
    their number. Each round's room must be loaded (``select_related("room")``)."""
    targets = list(rounds)
    by_room: dict[int, list[Round]] = defaultdict(list)
    for round_ in targets:
        by_room[round_.room_id].append(round_)
    practice = any(round_.room.practice for round_ in targets)
    totals: dict[int, dict[int, int]] = {round_.id: defaultdict(int) for round_ in targets}
    scored = Submission.objects.filter(round__room_id__in=list(by_room))
    for score in _round_scores(scored, practice, practice_rooms=_practice_rooms(targets)):
        for round_ in by_room[score.room_id]:
            if score.game == round_.game and score.number <= round_.number:
                totals[round_.id][score.player_id] += score.points
    return {round_id: dict(points) for round_id, points in totals.items()}


def _practice_rooms(rounds: list[Round]) -> set[int]:
    return {round_.room_id for round_ in rounds if round_.room.practice}


def _round_scores(
    scored: QuerySet[Submission], practice: bool, practice_rooms: set[int] | None = None
) -> list[RoundScore]:
    """Each player's score in each ended round of ``scored`` (entries of some rooms): one
    query, and one more for the hints when ``practice`` (of ``practice_rooms``, or all)."""
    rows = list(
        scored.filter(round__status=Round.Status.ENDED)
        .values("round_id", "round__room_id", "round__game", "round__number", "player_id")
        .annotate(total=Sum("points", default=0))
    )
    used = hints.hints_used({row["round_id"] for row in rows}) if practice else {}
    scores = []
    for row in rows:
        points = row["total"] or 0
        if practice and (practice_rooms is None or row["round__room_id"] in practice_rooms):
            points = hints.round_score(points, used.get((row["round_id"], row["player_id"]), 0))
        scores.append(
            RoundScore(
                row["round__room_id"],
                row["round__game"],
                row["round__number"],
                row["player_id"],
                points,
            )
        )
    return scores
