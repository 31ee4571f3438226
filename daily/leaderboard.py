"""A date's public leaderboard: the listed results (daily.attempts: one per nickname, with
points, played by a person as far as daily.plausibility tells) by points (highest first), ties to the earlier finish."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.db.models import Q, QuerySet

from daily.models import DailyScore

# Entries GET /api/daily lists.
TOP = 50
ORDER = ("-points", "finished_at", "id")


def entries(day: date) -> QuerySet[DailyScore]:
    return DailyScore.objects.filter(date=day, listed=True).order_by(*ORDER)


def top(day: date, limit: int = TOP) -> list[dict[str, Any]]:
    """The first ``limit`` entries, ranked 1, 2, 3... (a tie on points is broken by who
    finished first, so ranks never repeat)."""
    return [entry_dict(score, rank) for rank, score in enumerate(entries(day)[:limit], 1)]


def rank_of(score: DailyScore) -> int | None:
    """The entry's place on its date's leaderboard (1 = first); None when not listed."""
    if not score.listed:
        return None
    ahead = entries(score.date).filter(
        Q(points__gt=score.points)
        | Q(points=score.points, finished_at__lt=score.finished_at)
        | Q(points=score.points, finished_at=score.finished_at, id__lt=score.id)
    )
    return ahead.count() + 1


def entry_dict(score: DailyScore, rank: int | None = None) -> dict[str, Any]:
    return {
        "rank": rank_of(score) if rank is None else rank,
        "nickname": score.nickname,
        "points": score.points,
        "words": score.words,
        "best_word": score.best_word,
    }


def unlisted_reason(score: DailyScore) -> str | None:
    """Why a device's result is not on the public leaderboard, for its player: ``no_points``,
    ``under_review`` (flagged, daily.plausibility: staff see it in the admin) or
    ``nickname_taken`` (another device listed the nickname first); None when listed."""
    if score.listed:
        return None
    if score.points == 0:
        return "no_points"
    if score.flagged:
        return "under_review"
    return "nickname_taken"


def result_dict(score: DailyScore) -> dict[str, Any]:
    """A device's own result: ``entry_dict`` (rank null when not listed) and ``unlisted``."""
    return {**entry_dict(score), "unlisted": unlisted_reason(score)}
