"""JSON shapes of rooms, players, rounds and results, as the API and websocket send them.

One place for each shape, so HTTP responses and websocket events always agree
(docs/api.md documents them).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, NamedTuple

from games import chess, common_words, coop, modes, room_dictionaries, teams
from games.hints import HINT_COST, round_score
from games.models import Challenge, JoinRequest, Player, Room, Round, Submission
from solver.board import parse_board
from solver.common import words_left
from solver.judge import Verdict
from solver.scoring import points_table
from solver.themes import Theme


def timestamp_ms(moment: datetime | None) -> int | None:
    return None if moment is None else int(moment.timestamp() * 1000)


def player_dict(player: Player, total_points: int) -> dict:
    """A player as the state's ``players`` and ``player.joined`` show them (one shape for
    both, so a player who comes back keeps their points on every page)."""
    return {
        "id": player.id,
        "nickname": player.nickname,
        "online": player.online,
        "is_host": player.room.host_id == player.id,
        "total_points": total_points,
        "team": player.team if player.room.mode == modes.TEAMS else None,
    }


def join_request_dict(join_request: JoinRequest) -> dict:
    """A newcomer asking to join a locked room (games.waiting_room): never its key."""
    return {
        "id": join_request.id,
        "nickname": join_request.nickname,
        "status": join_request.status,
        "asked_at": timestamp_ms(join_request.created_at),
    }


def settings_dict(room: Room) -> dict:
    dictionary = room_dictionaries.dictionary_facts(room.dictionary)
    return {
        "board_size": room.board_size,
        "dice_set": room.effective_dice_set(dictionary.language),
        "round_seconds": room.round_seconds,
        # The shrinking clock (solver.clocks), and what it makes of the next round.
        "shrink_seconds": room.shrink_seconds,
        "shrink_floor": room.shrink_floor,
        "next_round_seconds": room.next_round_seconds(),
        # What the lobby shows as the shortest word: never below what the dictionary keeps.
        "min_length": max(room.effective_min_length(), dictionary.min_length),
        "dictionary": room.dictionary,
        # Themed word rules (games.room_themes) on top of the dictionary.
        "theme": room.theme,
        "theme_letter": room.theme_letter or None,
        "theme_list": room.theme_list or None,
        "cancel_duplicates": room.cancel_duplicates,
        "instant_verdicts": room.instant_verdicts,
        "ready_check": room.ready_check,
        "mode": room.mode,
        "coop_goal": room.coop_goal,
        "team_count": room.team_count,
        "chess_seconds": room.chess_seconds,
        "paper": room.paper,
        "next_board": room.next_board or None,
    }


def round_dict(round_: Round, common: frozenset[str] | None = None) -> dict:
    """What everyone may see of a round (never other players' words). ``common``: the
    round's common words when the caller has them already (else looked up if needed)."""
    shown = board_shown(round_)
    return {
        "number": round_.number,
        "game": round_.game,
        "number_in_game": number_in_game(round_),
        "status": round_.status,
        "board": round_.board if shown else None,
        "rows": round_.rows,
        "cols": round_.cols,
        "grid": _grid(round_) if shown else None,
        "min_length": round_.min_length,
        "dictionary": round_.dictionary,
        "cancel_duplicates": round_.cancel_duplicates,
        "instant_verdicts": round_.instant_verdicts,
        "round_seconds": round_.round_seconds,
        "mode": round_.mode,
        "coop_goal": round_.coop_goal,
        "teams": dict(round_.teams) if round_.mode == modes.TEAMS else None,
        "chess": chess.chess_dict(round_, timestamp_ms(round_.ended_at)),
        "theme": round_.theme or None,
        "paper": round_.paper,
        "starts_at": timestamp_ms(round_.starts_at),
        # A chess round's deadline is its running clock's flag: clients read ``chess``.
        "ends_at": None if round_.mode == modes.CHESS else timestamp_ms(round_.ends_at),
        "ended_at": timestamp_ms(round_.ended_at),
        # String keys: JSON would make them strings anyway, and the Redis channel layer's
        # msgpack refuses int map keys (every socket in the room would close with 1011).
        "points_table": {str(n): p for n, p in points_table(round_.rows, round_.cols).items()},
        "word_counts": word_counts(round_, common),
        "ready_check": ready_check_dict(round_),
    }


def board_shown(round_: Round) -> bool:
    """Whether a round's letters may leave the server: once it has started (its countdown
    with them), so everyone gets them at once with ``round.started``. A round preparing or
    waiting in a ready check shows its size only: its board would be a head start for
    whoever holds back "ready" (issue 48)."""
    return round_.status != Round.Status.PREPARING


def ready_check_dict(round_: Round) -> dict | None:
    """While the round waits for its players (``games.ready``): who said they are ready,
    who is waited for; None otherwise (no ready check, not solved yet, or started)."""
    if round_.status != Round.Status.PREPARING or round_.ready_since is None:
        return None
    return {"ready": list(round_.ready_players), "waiting": list(round_.ready_waiting)}


def number_in_game(round_: Round) -> int:
    """The round's number within its game (1 for a game's first round): what players see,
    while ``number`` runs on across a room's games (new_game) and stays in its addresses."""
    if round_.game == 1:  # the room's first game: its rounds are 1, 2, 3 … (no query)
        return round_.number
    earlier = Round.objects.filter(
        room_id=round_.room_id, game=round_.game, number__lt=round_.number
    ).count()
    return earlier + 1


def word_counts(round_: Round, common: frozenset[str] | None = None) -> list[dict] | None:
    """While a round runs: how many words of each length the board has, all and common
    (games.common_words), for every player's "words left"; counts only, never the words."""
    if round_.status != Round.Status.RUNNING or not round_.solution:
        return None
    if common is None:
        common = common_words.round_common_words(round_.solution, round_.dictionary)
    rows = words_left([entry[0] for entry in round_.solution], common, ())
    return [
        {"length": row["length"], "total": row["total"], "common": row["common"]} for row in rows
    ]


def _grid(round_: Round) -> list[list[str]]:
    return parse_board(round_.board).grid()


class ScoredEntry(NamedTuple):
    """What the results show of one entry (read as plain rows: a big room has thousands)."""

    player_id: int
    word: str
    verdict: str
    points: int | None
    cancelled: bool


def verdict_reason(verdict: str, theme: Theme | None = None) -> str:
    """Why an entry does not count, in English (what goes to the whole room): the round's
    theme says why a word is off it."""
    if verdict == Verdict.OFF_THEME and theme is not None:
        return theme.reason
    return Verdict(verdict).message


def submission_dict(
    submission: Submission, instant_verdicts: bool = True, theme: Theme | None = None
) -> dict:
    data: dict[str, Any] = {"word": submission.word, "client_id": submission.client_id or None}
    if instant_verdicts:
        data["verdict"] = submission.verdict
        data["accepted"] = submission.verdict == Verdict.ACCEPTED
        data["reason"] = None if data["accepted"] else verdict_reason(submission.verdict, theme)
    else:
        data["verdict"] = "received"
    return data


def results_dict(
    round_: Round,
    submissions: list[ScoredEntry],
    players: dict[int, Player],
    totals: dict[int, int],
    challenges: list[Challenge],
    common: frozenset[str] = frozenset(),
    hints_used: dict[int, int] | None = None,
    team_totals: dict[int, int] | None = None,
) -> dict:
    """Everything a finished round shows: each player's words, totals, the solution.

    ``submissions``: the round's entries in order; ``players``: the round's players by id
    (every one who entered a word, and those listed without one); ``totals``: points by
    player id over the room's ended rounds up to this one; ``challenges``: the round's
    challenges in order (see ``games.state.results``); ``common``: the solution's words that
    most players know (games.common_words), what "% of the common maximum" is measured on;
    ``hints_used``: hints bought per player id (practice rooms, games.hints), each costing
    ``HINT_COST`` points off the round's score, never below 0; ``team_totals``: in a teams
    round, each team's points over the game up to this round (games.teams)."""
    solution_paths = {entry[0]: entry[2] for entry in round_.solution}
    theme = Theme.from_dict(round_.theme)
    found_by: dict[str, list[int]] = defaultdict(list)
    per_player: dict[int, dict] = {}
    for player_id, player in players.items():
        per_player[player_id] = {
            "id": player_id,
            "nickname": player.nickname,
            "round_points": 0,
            "total_points": totals.get(player_id, 0),
            "share_of_max": 0.0,
            "share_of_common_max": 0.0,
            "words_counted": 0,
            "words": [],
            "rejected": [],
        }
    seen_rejected: set[tuple[int, str]] = set()
    for submission in submissions:
        entry = per_player[submission.player_id]
        if submission.verdict == Verdict.ACCEPTED:
            found_by[submission.word].append(submission.player_id)
            entry["words"].append(
                {
                    "word": submission.word,
                    "points": submission.points or 0,
                    "cancelled": submission.cancelled,
                    "path": solution_paths.get(submission.word),
                    "common": submission.word in common,
                }
            )
            entry["round_points"] += submission.points or 0
        elif submission.verdict == Verdict.ALREADY_ENTERED:
            continue  # the word is among the player's words already
        elif (submission.player_id, submission.word) not in seen_rejected:
            seen_rejected.add((submission.player_id, submission.word))
            entry["rejected"].append(
                {
                    "word": submission.word,
                    "verdict": submission.verdict,
                    "reason": verdict_reason(submission.verdict, theme),
                }
            )
    for player_id, used in (hints_used or {}).items():
        if used and player_id in per_player:
            entry = per_player[player_id]
            entry["hints"] = used
            entry["hint_points"] = used * HINT_COST
            entry["round_points"] = round_score(entry["round_points"], used)
    common_max = sum(entry[1] for entry in round_.solution if entry[0] in common)
    for entry in per_player.values():
        entry["words"].sort(key=lambda item: (-item["points"], item["word"]))
        entry["words_counted"] = sum(1 for word in entry["words"] if not word["cancelled"])
        if round_.max_points:
            entry["share_of_max"] = round(entry["round_points"] / round_.max_points, 4)
        if common_max:
            common_points = sum(
                word["points"]
                for word in entry["words"]
                if word["common"] and not word["cancelled"]
            )
            entry["share_of_common_max"] = round(common_points / common_max, 4)
    # A chess round ranks by its outcome first (games.chess.places); others by points.
    places = chess.places(round_)
    ranked = sorted(
        per_player.values(),
        key=lambda e: (
            places.get(e["id"], len(places)),
            -e["round_points"],
            -e["total_points"],
            e["nickname"].lower(),
        ),
    )
    return {
        "round": round_dict(round_),
        "players": ranked,
        "solution": [
            {
                "word": word,
                "points": points,
                "path": path,
                "found_by": found_by.get(word, []),
                "common": word in common,
            }
            for word, points, path, *_ in round_.solution
        ],
        "max_points": round_.max_points,
        "word_count": len(round_.solution),
        "common_max_points": common_max,
        "common_word_count": sum(1 for entry in round_.solution if entry[0] in common),
        "challenges": [challenge_dict(challenge) for challenge in challenges],
        "team": _team_result(round_, per_player.values()),
        "teams": teams.teams_dict(round_, ranked, team_totals or {}),
    }


def _team_result(round_: Round, players: Iterable[dict]) -> dict | None:
    """A co-op round's team result (games.coop.summary), from the players' scored words;
    None in a classic round."""
    if round_.mode != modes.COOP:
        return None
    points_by_word = {
        word["word"]: word["points"] for player in players for word in player["words"]
    }
    solution_words = frozenset(entry[0] for entry in round_.solution)
    return coop.summary(solution_words, points_by_word, round_.coop_goal or coop.DEFAULT_GOAL)


def team_dict(round_: Round, accepted: Iterable[tuple[int, str]]) -> dict | None:
    """A co-op round's team so far, for the state: its goal, the board's word count, how
    many of them the team found, and its words with their first finders (``accepted``:
    (player id, word) in the order accepted). None for a classic round or one not solved."""
    if round_.mode != modes.COOP or round_.status == Round.Status.PREPARING:
        return None
    words = coop.first_finders(accepted)
    solution_words = frozenset(entry[0] for entry in round_.solution)
    return {
        "goal": round_.coop_goal,
        "total": len(solution_words),
        "found": coop.found_count(solution_words, (item["word"] for item in words)),
        "words": words,
    }


# A player's entry in the results less the lists that make a big room's results large.
_WORD_LISTS = ("words", "rejected")
_RESULT_TOTALS = (
    "max_points",
    "word_count",
    "common_max_points",
    "common_word_count",
    "team",
    "teams",
)


def scores_dict(results: dict) -> dict:
    """The scores of a finished round without anyone's words or the solution: what every
    socket of the room gets first when a round ends (docs/api.md, "round.ended"). A room of
    100 players' results run to hundreds of kilobytes, sent to each of them; this is a few.
    ``results``: the round's ``results_dict``."""
    return {
        "round": results["round"],
        "players": [
            {key: value for key, value in entry.items() if key not in _WORD_LISTS}
            for entry in results["players"]
        ],
        **{key: results[key] for key in _RESULT_TOTALS},
    }


def own_results_by_player(results: dict) -> dict[int, dict]:
    """Each player's own words and refused words from a round's ``results_dict``, by
    player id: the part of ``round.ended`` that differs from socket to socket."""
    return {entry["id"]: {key: entry[key] for key in _WORD_LISTS} for entry in results["players"]}


def challenge_dict(challenge: Challenge) -> dict:
    """A challenge of a refused word, its votes so far, and the decision once made."""
    accepts = sum(1 for vote in challenge.votes.values() if vote)
    return {
        "id": challenge.id,
        "round_number": challenge.round.number,
        "word": challenge.word,
        "player_id": challenge.player_id,
        "nickname": challenge.player.nickname,
        "status": challenge.status,
        "created_at": timestamp_ms(challenge.created_at),
        "decided_at": timestamp_ms(challenge.decided_at),
        "votes": {
            "voters": list(challenge.voters),
            "voted": sorted(int(player_id) for player_id in challenge.votes),
            "accept": accepts,
            "decline": len(challenge.votes) - accepts,
            "needed": len(challenge.voters) // 2 + 1,
        },
    }


def room_state_dict(
    room: Room,
    viewer: Player | None,
    players: Sequence[Player],
    totals: dict[int, int],
    current: Round | None,
    counts: dict[str, int],
    my_words: list[Submission],
    results: dict | None,
    dictionaries: dict[str, str],
    common: frozenset[str] | None = None,
    theme_lists: dict[str, str] | None = None,
) -> dict:
    """The full picture a client needs after connecting or missing an event (the parts are
    read by ``games.state.room_state``, which calls this). ``results``: the current round's, once it ended;
    ``common``: the current round's common words, while it runs."""
    state = {
        "code": room.code,
        "version": room.version,
        "settings": settings_dict(room),
        "dictionaries": dictionaries,
        "theme_lists": theme_lists or {},
        "host_id": room.host_id,
        "players": [player_dict(p, totals.get(p.id, 0)) for p in players],
        "round": None,
        "counts": counts,
        "my_words": [],
        "results": results,
        "you": None if viewer is None else viewer.id,
    }
    if current is not None:
        # An ended round's results hold its round_dict already (built from the same row).
        state["round"] = (
            dict(results["round"]) if results is not None else round_dict(current, common)
        )
        instant = current.instant_verdicts or current.status == Round.Status.ENDED
        theme = Theme.from_dict(current.theme)
        state["my_words"] = [submission_dict(s, instant, theme) for s in my_words]
    return state
