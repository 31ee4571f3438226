"""A room's running totals: each player's points over the ended rounds of a game."""

from __future__ import annotations

from django.db.models import Sum

from games import hints
from games.models import Room, Round, Submission


def room_totals(
    room: Room, through_round: int | None = None, game: int | None = None
) -> dict[int, int]:
    """Running totals: each player's points over the ended rounds of ``game`` (the room's
    current game by default; a rematch starts from zero), or over those up to round number
    ``through_round`` (what that round's results show)."""
    rounds = Submission.objects.filter(
        round__room=room,
        round__status=Round.Status.ENDED,
        round__game=room.game if game is None else game,
    )
    if through_round is not None:
        rounds = rounds.filter(round__number__lte=through_round)
    if room.practice:  # each round's score less its hints (games.hints)
        return hints.totals_after_hints(rounds)
    rows = rounds.values("player_id").annotate(total=Sum("points", default=0))
    return {row["player_id"]: row["total"] or 0 for row in rows}
