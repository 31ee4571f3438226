"""A room's history: the rounds it played (in every game: ``new_game`` starts another in
the same room), and each player's stats over one game (the current one by default).

Both read only ended rounds, as their results stand now (``games.state.results``): fixed
when the round ended, except that an accepted challenge rescores it. A word cancelled as a
duplicate scores 0 and does not count as a word here either. Each function runs a fixed
number of queries however many rounds the room played (tests pin them).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Sum

from games import chess, coop, modes, team_figures, teams
from games.awards import game_awards
from games.models import Player, Room, Round, Submission
from games.presenters import timestamp_ms
from games.state import in_room_at_end  # the rule results use
from solver.board import parse_board
from solver.judge import Verdict


def round_list(room: Room) -> list[dict[str, Any]]:
    """The room's ended rounds of all its games, newest first: the game, board, when it
    ended, its maximum and who won it (everyone with the top score; nobody when nobody
    scored). Three queries."""
    rounds = list(
        Round.objects.filter(room=room, status=Round.Status.ENDED)
        .order_by("-number")
        .only(
            "id",
            "number",
            "game",
            "board",
            "rows",
            "cols",
            "ended_at",
            "max_points",
            "mode",
            "coop_goal",
            "teams",
            "chess",
        )
    )
    points: dict[int, dict[int, int]] = defaultdict(dict)
    rows = (
        Submission.objects.filter(round__in=[r.id for r in rounds], verdict=Verdict.ACCEPTED)
        .values("round_id", "player_id")
        .annotate(total=Sum("points", default=0))
    )
    for row in rows:
        points[row["round_id"]][row["player_id"]] = row["total"] or 0
    nicknames = dict(room.players.values_list("id", "nickname"))
    # Each game's rounds count from 1 (new_game). Numbers run on without gaps and only the
    # room's latest round can be unended, so a game's first listed round is its first.
    first_of_game: dict[int, int] = {}
    for round_ in rounds:  # newest first: the last one seen of a game is its first
        first_of_game[round_.game] = round_.number
    team_found = _team_found([round_ for round_ in rounds if round_.mode == modes.COOP])
    listed = []
    for round_ in rounds:
        scores = points.get(round_.id, {})
        top = max(scores.values(), default=0)
        winners = sorted(
            (pid for pid, score in scores.items() if top and score == top),
            key=lambda pid: nicknames.get(pid, "").lower(),
        )
        game = chess.ChessGame.of(round_)
        if game is not None and game.clock is not None and game.clock.winner is not None:
            winners = [game.clock.winner]  # a chess round is won on the clock, not on points
        listed.append(
            {
                "number": round_.number,
                "game": round_.game,
                "number_in_game": round_.number - first_of_game[round_.game] + 1,
                "board": round_.board,
                "rows": round_.rows,
                "cols": round_.cols,
                "grid": parse_board(round_.board).grid(),
                "ended_at": timestamp_ms(round_.ended_at),
                "max_points": round_.max_points,
                "top_points": top,
                "winners": [{"id": pid, "nickname": nicknames.get(pid, "")} for pid in winners],
                "mode": round_.mode,
                "team": team_found.get(round_.id),
                "winning_teams": _winning_teams(round_, scores),
            }
        )
    return listed


def _team_found(coop_rounds: list[Round]) -> dict[int, dict[str, Any]]:
    """Co-op rounds' team figures (games.coop): found, total, goal, reached."""
    goals = {round_.id: round_.coop_goal or coop.DEFAULT_GOAL for round_ in coop_rounds}
    return {
        round_id: {
            "found": found,
            "total": total,
            "goal": goals[round_id],
            "reached": coop.reached(found, total, goals[round_id]),
        }
        for round_id, (found, total) in team_figures.figures(list(goals)).items()
    }


def _winning_teams(round_: Round, scores: dict[int, int]) -> list[int] | None:
    """A teams round's top team(s) by points; None for other rounds."""
    team_of = teams.round_teams(round_)
    if not team_of:
        return None
    ranked = teams.ranked(teams.team_points(scores, team_of), team_of.values())
    return [row["team"] for row in ranked if row["rank"] == 1]


@dataclass
class _Tally:
    """One player's running stats while the rounds are read."""

    rounds: set[int] = field(default_factory=set)
    words: int = 0
    cancelled: int = 0
    points: int = 0
    best: tuple[str, int, int] | None = None  # word, points, round number
    longest: tuple[str, int, int] | None = None


def _best_key(word: str, points: int) -> tuple[int, int, str]:
    """Sorts the best word first: most points, then longest, then alphabetical."""
    return (-points, -len(word), word)


def _longest_key(word: str, points: int) -> tuple[int, int, str]:
    """Sorts the longest word first: longest, then most points, then alphabetical."""
    return (-len(word), -points, word)


def game_stats(room: Room, game: int | None = None) -> dict[str, Any]:
    """Each player's stats over the ended rounds of one of the room's games (the current
    one by default; docs/api.md, "A room's history"), with its awards (``games.awards``).
    Eight queries (nine in a practice room). A player's rounds are those whose results list them: they were in the room
    when it ended, or entered a word in it. ``share_of_max`` = their points over the sum of
    ``max_points`` of their rounds, so a late joiner is not judged on rounds they missed."""
    game = room.game if game is None else game
    ended = Round.objects.filter(room=room, game=game, status=Round.Status.ENDED).only(
        "id", "number", "max_points", "ended_at"
    )
    rounds = {round_.id: (round_.number, round_.max_points, round_) for round_ in ended}
    players = list(room.players.all())
    tallies: dict[int, _Tally] = defaultdict(_Tally)
    entered = Submission.objects.filter(round__in=list(rounds)).values_list("round_id", "player_id")
    for round_id, player_id in entered.order_by().distinct():
        tallies[player_id].rounds.add(round_id)
    for player in players:
        for round_id, (_, _, round_) in rounds.items():
            if in_room_at_end(player, round_):
                tallies[player.id].rounds.add(round_id)
    accepted = Submission.objects.filter(
        round__in=list(rounds), verdict=Verdict.ACCEPTED
    ).values_list("round_id", "player_id", "word", "points", "cancelled")
    for round_id, player_id, word, points, cancelled in accepted:
        tally = tallies[player_id]
        if cancelled:
            tally.cancelled += 1
            continue
        points = points or 0
        tally.words += 1
        tally.points += points
        candidate = (word, points, rounds[round_id][0])
        if tally.best is None or _best_key(word, points) < _best_key(*tally.best[:2]):
            tally.best = candidate
        if tally.longest is None or _longest_key(word, points) < _longest_key(*tally.longest[:2]):
            tally.longest = candidate
    entries = [
        _player_stats(player, tallies[player.id], rounds)
        for player in players
        if tallies[player.id].rounds
    ]
    entries.sort(key=lambda e: (-e["points"], -e["words"], e["nickname"].lower(), e["id"]))
    return {
        "game": game,
        "rounds": len(rounds),
        "max_points": sum(max_points for _, max_points, _ in rounds.values()),
        "players": entries,
        "awards": game_awards(room, game, {player.id: player.nickname for player in players}),
    }


def _player_stats(
    player: Player, tally: _Tally, rounds: dict[int, tuple[int, int, Round]]
) -> dict[str, Any]:
    max_points = sum(rounds[round_id][1] for round_id in tally.rounds)
    return {
        "id": player.id,
        "nickname": player.nickname,
        "in_room": player.active and not player.kicked,
        "rounds": len(tally.rounds),
        "words": tally.words,
        "cancelled": tally.cancelled,
        "points": tally.points,
        "max_points": max_points,
        "share_of_max": round(tally.points / max_points, 4) if max_points else 0.0,
        "best_word": _word_dict(tally.best),
        "longest_word": _word_dict(tally.longest),
    }


def _word_dict(word: tuple[str, int, int] | None) -> dict[str, Any] | None:
    if word is None:
        return None
    return {"word": word[0], "points": word[1], "round": word[2]}
