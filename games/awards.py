"""Awards at the end of a game: something to cheer for besides the winner.

Five awards, each to the player (players, on a tie) who did best at one thing over the
game's ended rounds; an award nobody earned (no word scored, a single round) is left out:

- ``longest_word``: the longest word that scored;
- ``most_unique``: the most accepted words that no other player found in the same round;
- ``best_find``: the rarest word that scored, by how often it appears in print (its Zipf
  frequency, ``games.common_words``; words rarer than once per million words tie, and then
  the longer, the higher scoring wins);
- ``fastest_first_word``: the quickest accepted word after a round's start, by when it
  reached the server (``Submission.received_at``), not when it was written;
- ``most_improved``: the biggest rise in points from the player's first round of the game to
  their last (two rounds at least).

``decide`` is the rule, on plain data; ``game_awards`` reads a game from the database for
it. The standing at the end of a game (``games.standings``) and a game's stats in the
history (``games.history``) both carry them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models.functions import Coalesce

from games import common_words
from games.models import Player, Room, Round, Submission
from games.totals import game_round_scores
from solver.judge import Verdict

AWARDS = ("longest_word", "most_unique", "best_find", "fastest_first_word", "most_improved")


@dataclass(frozen=True)
class Accepted:
    """An accepted entry of the game."""

    round_number: int
    player_id: int
    word: str
    points: int
    counted: bool  # it scored: not cancelled as a duplicate
    seconds: float | None  # after the round's start; None when unknown


def decide(
    accepted: Iterable[Accepted],
    round_points: dict[int, list[int]],
    zipf: Callable[[str], float],
) -> list[dict[str, Any]]:
    """The awards of a game, in ``AWARDS`` order: ``{"award", "winners": [{"id", …}]}``,
    each winner with what earned it. ``round_points``: each player's points per round they
    played, in round order."""
    entries = list(accepted)
    counted = [entry for entry in entries if entry.counted]
    awards = [
        _best(
            "longest_word",
            counted,
            key=lambda e: (-len(e.word), -e.points, e.word),
            same=lambda e: len(e.word),
            detail=lambda e: {"word": e.word, "round": e.round_number},
        ),
        _most_unique(entries),
        _best(
            "best_find",
            counted,
            key=lambda e: (zipf(e.word), -len(e.word), -e.points, e.word),
            same=lambda e: (zipf(e.word), len(e.word), e.points),
            detail=lambda e: {"word": e.word, "round": e.round_number},
        ),
        _best(
            "fastest_first_word",
            [entry for entry in _first_words(entries) if entry.seconds is not None],
            key=lambda e: (e.seconds, e.word),
            # To the millisecond: a tie is two words at once.
            same=lambda e: round((e.seconds or 0.0) * 1000),
            detail=lambda e: {
                "word": e.word,
                "round": e.round_number,
                "seconds": round(e.seconds or 0.0, 1),
            },
        ),
        _most_improved(round_points),
    ]
    return [award for award in awards if award is not None]


def _best(
    name: str,
    entries: list[Accepted],
    key: Callable[[Accepted], Any],
    same: Callable[[Accepted], Any],
    detail: Callable[[Accepted], dict[str, Any]],
) -> dict[str, Any] | None:
    """The award to whoever has the best entry by ``key``; players whose own best entry is
    as good by ``same`` share it."""
    best_of: dict[int, Accepted] = {}
    for entry in sorted(entries, key=key):
        best_of.setdefault(entry.player_id, entry)
    if not best_of:
        return None
    top = same(min(best_of.values(), key=key))
    winners = [
        {"id": player_id, **detail(entry)}
        for player_id, entry in sorted(best_of.items(), key=lambda item: key(item[1]))
        if same(entry) == top
    ]
    return {"award": name, "winners": winners}


def _most_unique(entries: list[Accepted]) -> dict[str, Any] | None:
    finders: dict[tuple[int, str], set[int]] = defaultdict(set)
    for entry in entries:
        finders[(entry.round_number, entry.word)].add(entry.player_id)
    unique: dict[int, int] = defaultdict(int)
    for players in finders.values():
        if len(players) == 1:
            unique[next(iter(players))] += 1
    if not unique:
        return None
    top = max(unique.values())
    winners = [{"id": p, "count": n} for p, n in sorted(unique.items()) if n == top]
    return {"award": "most_unique", "winners": winners}


def _first_words(entries: list[Accepted]) -> list[Accepted]:
    """Each player's first accepted entry of each round."""
    first: dict[tuple[int, int], Accepted] = {}
    for entry in entries:
        slot = (entry.round_number, entry.player_id)
        seconds = entry.seconds if entry.seconds is not None else float("inf")
        held = first.get(slot)
        if held is None or seconds < (held.seconds if held.seconds is not None else float("inf")):
            first[slot] = entry
    return list(first.values())


def _most_improved(round_points: dict[int, list[int]]) -> dict[str, Any] | None:
    gains = {
        player_id: (points[0], points[-1])
        for player_id, points in round_points.items()
        if len(points) >= 2 and points[-1] > points[0]
    }
    if not gains:
        return None
    top = max(last - first for first, last in gains.values())
    winners = [
        {"id": player_id, "from": first, "to": last}
        for player_id, (first, last) in sorted(gains.items())
        if last - first == top
    ]
    return {"award": "most_improved", "winners": winners}


def game_awards(room: Room, game: int, names: dict[int, str] | None = None) -> list[dict[str, Any]]:
    """The awards of one of the room's games, over its ended rounds, each winner with their
    nickname (from ``names``, the room's players by id, when the caller has them). Four
    queries (the dictionary's language among them), one more for the names, one more in a
    practice room."""
    rounds = {
        round_.id: round_
        for round_ in Round.objects.filter(room=room, game=game, status=Round.Status.ENDED).only(
            "id", "number", "starts_at", "dictionary"
        )
    }
    if not rounds:
        return []
    # When each word reached the server, not when its row was written (words wait in the
    # writers' lanes); rows from before ``received_at`` was kept have only the latter.
    rows = Submission.objects.filter(
        round_id__in=list(rounds), verdict=Verdict.ACCEPTED
    ).values_list(
        "round_id",
        "player_id",
        "word",
        "points",
        "cancelled",
        Coalesce("received_at", "created_at"),
    )
    accepted = []
    for round_id, player_id, word, points, cancelled, arrived in rows:
        starts_at = rounds[round_id].starts_at
        seconds = (arrived - starts_at).total_seconds() if starts_at and arrived else None
        accepted.append(
            Accepted(
                rounds[round_id].number,
                player_id,
                word,
                points or 0,
                not cancelled,
                max(seconds, 0.0) if seconds is not None else None,
            )
        )
    round_points: dict[int, list[int]] = defaultdict(list)
    for score in sorted(game_round_scores(room, game), key=lambda score: score.number):
        round_points[score.player_id].append(score.points)
    dictionary = next(iter(rounds.values())).dictionary
    awards = decide(accepted, dict(round_points), common_words.zipf_of(dictionary))
    if names is None:
        names = dict(Player.objects.filter(room=room).values_list("id", "nickname"))
    for award in awards:
        for winner in award["winners"]:
            winner["nickname"] = names.get(winner["id"], "")
    return awards
