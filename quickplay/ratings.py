"""The quick-play rating: OpenSkill's Weng-Lin Plackett-Luce model, made for games of more
than two players, over the final standing of each quick-play game (quick-play games only).
The leaderboard ranks by the ordinal (mu - 3 sigma): a new player starts low, as nothing is
known of them yet, and rises as their games say more."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from openskill.models import PlackettLuce

from games.models import Room
from quickplay.models import Rating, Seat

MODEL = PlackettLuce()
LEADERBOARD_SIZE = 20


def rate_game(sender: Any, room: Room, standing: dict, **kwargs: Any) -> None:
    """Receiver of ``games.signals.game_ended``: a quick-play game rates its players (two at
    least, each by their rank in the final standing; equal ranks are a tie)."""
    if not room.public:
        return
    ranks = {entry["id"]: entry["rank"] for entry in standing["players"]}
    seats = {
        seat.player_id: (seat.identity, seat.player.nickname)
        for seat in Seat.objects.filter(player_id__in=list(ranks)).select_related("player")
    }
    placed = [(player_id, rank) for player_id, rank in ranks.items() if player_id in seats]
    if len(placed) < 2:
        return
    with transaction.atomic():
        identities = [seats[player_id][0] for player_id, _ in placed]
        kept = {
            rating.identity: rating
            for rating in Rating.objects.select_for_update().filter(identity__in=identities)
        }
        now = timezone.now()
        before = []
        for player_id, _ in placed:
            identity, nickname = seats[player_id]
            rating = kept.get(identity) or Rating(identity=identity, games=0)
            rating.nickname = nickname
            model_rating = (
                MODEL.rating(name=identity)
                if rating.pk is None
                else MODEL.create_rating([rating.mu, rating.sigma], name=identity)
            )
            before.append((rating, model_rating))
        after = MODEL.rate([[r] for _, r in before], ranks=[rank for _, rank in placed])
        for (rating, _), [new] in zip(before, after, strict=True):
            rating.mu, rating.sigma, rating.ordinal = new.mu, new.sigma, new.ordinal()
            rating.games += 1
            rating.updated_at = now
            rating.save()


def leaderboard() -> list[dict[str, Any]]:
    """The best ratings, as the leaderboard shows them."""
    rows = Rating.objects.order_by("-ordinal", "updated_at")[:LEADERBOARD_SIZE]
    return [
        {
            "rank": index,
            "nickname": rating.nickname,
            "rating": round(rating.ordinal, 1),
            "games": rating.games,
        }
        for index, rating in enumerate(rows, start=1)
    ]
