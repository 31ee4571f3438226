"""What clients are shown, read from the database and handed to ``games.presenters``
(which only format): a room's state as one viewer sees it, a round's results, live counts.
"""

from __future__ import annotations

from django.db import connection

from games import common_words, hints, live, live_counts, modes, presenters, teams
from games.models import Challenge, Player, Room, Round, Submission
from games.room_dictionaries import available_dictionaries
from games.room_themes import available_theme_lists
from games.state_parts import StateView, parts_of
from games.totals import room_totals, totals_through
from solver import common as solver_common
from solver.judge import Verdict


def live_counts_of(round_: Round) -> dict[str, int]:
    """The entries that count so far in a running round, per player id."""
    return live_counts.counts_by_round([round_.id])[round_.id]


def results(round_: Round, totals: dict[int, int] | None = None) -> dict:
    """Everything a finished round shows (docs/api.md, "Results"). Fixed once the round
    has ended (a challenge the host accepts rescores it): the players of the round (in the
    room when it ended, or who entered a word in it) and totals up to this round, not who
    joined or what was scored later. ``totals``: those totals when the caller has read
    them already (``room_totals`` of the room whose latest round this is)."""
    return results_of([round_], None if totals is None else {round_.id: totals})[round_.id]


def results_of(
    rounds: list[Round],
    totals: dict[int, dict[int, int]] | None = None,
    entries: dict[int, list[presenters.ScoredEntry]] | None = None,
) -> dict[int, dict]:
    """``results`` of several ended rounds, keyed by round id, in a fixed number of queries
    whatever their number: the rooms of a tournament (or a load test) end together, and
    their results are built side by side. Each round's ``room`` must be loaded.
    ``entries``: each round's entries as scored, when the caller has them (the scoring
    that ended the rounds read them a moment ago), in the order entered."""
    if not rounds:
        return {}
    round_ids = [round_.id for round_ in rounds]
    if entries is None:
        entries = {round_id: [] for round_id in round_ids}
        for _, round_id, player_id, word, verdict, points, cancelled in entry_rows(round_ids):
            entries[round_id].append(
                presenters.ScoredEntry(player_id, word, verdict, points, bool(cancelled))
            )
    players_by_room: dict[int, list[Player]] = {round_.room_id: [] for round_ in rounds}
    for player in Player.objects.filter(room_id__in=list(players_by_room)):
        players_by_room[player.room_id].append(player)
    challenges: dict[int, list[Challenge]] = {round_id: [] for round_id in round_ids}
    for challenge in (
        Challenge.objects.filter(round_id__in=round_ids)
        .select_related("player", "round")
        .order_by("id")
    ):
        challenges[challenge.round_id].append(challenge)
    if totals is None:
        totals = totals_through(rounds)
    practice_ids = [round_.id for round_ in rounds if round_.room.practice]
    hints_by_round: dict[int, dict[int, int]] = {round_id: {} for round_id in round_ids}
    if practice_ids:
        for (round_id, player_id), count in hints.hints_used(practice_ids).items():
            hints_by_round[round_id][player_id] = count
    team_totals = {  # teams rounds: each team's points over the game up to the round
        r.id: teams.game_totals(r.room, r.game, through=r.number)
        for r in rounds
        if r.mode == modes.TEAMS
    }
    built = {}
    for round_ in rounds:
        room = round_.room
        submissions = entries[round_.id]
        entered = {entry.player_id for entry in submissions}
        players = {
            player.id: player
            for player in players_by_room[room.id]
            if player.id in entered or in_room_at_end(player, round_)
        }
        for player in players.values():
            player.room = room  # presenters read the host from it
        built[round_.id] = presenters.results_dict(
            round_,
            submissions,
            players,
            totals[round_.id],
            challenges[round_.id],
            common_words.round_common_words(round_.solution, round_.dictionary),
            hints_used=hints_by_round[round_.id],
            team_totals=team_totals.get(round_.id),
        )
    return built


# A row of ``entry_rows``: id, round id, player id, word, verdict, points, cancelled.
EntryRow = tuple[int, int, int, str, str, int | None, bool | int]


def entry_rows(round_ids: list[int]) -> list[EntryRow]:
    """Every entry of these rounds in the order entered, as plain rows: one statement. The
    ids (integers read from the database) are written into it, and the rows are not made
    into model instances or run through the ORM's converters: the rooms that end together
    have tens of thousands of entries, and that Python was most of the time their end held
    the process. ``cancelled`` comes as the database gives it (0/1 on SQLite)."""
    if not round_ids:
        return []
    id_list = ",".join(str(int(round_id)) for round_id in round_ids)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id, round_id, player_id, word, verdict, points, cancelled "
            f"FROM {Submission._meta.db_table} WHERE round_id IN ({id_list}) ORDER BY id"
        )
        return cursor.fetchall()


def team_so_far(round_: Round) -> dict | None:
    """A co-op round's team (``presenters.team_dict``): one read of its accepted words."""
    if round_.mode != modes.COOP:
        return None
    accepted = (
        Submission.objects.filter(round=round_, verdict=Verdict.ACCEPTED)
        .order_by("id")
        .values_list("player_id", "word")
    )
    return presenters.team_dict(round_, accepted)


def in_room_at_end(player: Player, round_: Round) -> bool:
    """Whether the player was in the room when the round ended (or is, if it has not)."""
    end = round_.ended_at
    if end is None:
        return player.active
    return player.joined_at <= end and (player.left_at is None or player.left_at > end)


def words_left(
    current: Round | None, viewer: Player | None, mine: list[Submission], common: frozenset[str]
) -> dict | None:
    """A player's "words left" during a round: counts per length of the board's words, all
    and ``common`` ones (the round's, games.common_words), and how many the player has not
    found. Counts only: the words a player has not found are never sent before the round
    ends. With verdicts hidden until the end, nothing is subtracted (that would tell which
    entries count)."""
    if viewer is None or current is None or current.status != Round.Status.RUNNING:
        return None
    found = (
        {s.word for s in mine if s.verdict == Verdict.ACCEPTED}
        if current.instant_verdicts
        else set()
    )
    words = [entry[0] for entry in current.solution]
    return {
        "by_length": solver_common.words_left(words, common, found),
        "verdicts_hidden": not current.instant_verdicts,
    }


def room_state(room: Room, viewer: Player | None = None) -> dict:
    """The full picture after connecting, reloading or missing an event. Refused entries
    this process still holds in memory are written first: they are part of "my words"."""
    live.flush_refused(room_id=room.pk)
    players = [p for p in room.players.filter(left_at__isnull=True).with_presence() if not p.kicked]
    for player in players:
        player.room = room
    # The current game's latest round: after new_game, none yet (the players are in the lobby).
    current = room.rounds.filter(game=room.game).order_by("-number").first()
    totals = room_totals(room)
    counts: dict[str, int] = {}
    mine: list[Submission] = []
    ended_results = None
    common: frozenset[str] | None = None  # the running round's common words, read once
    if current is not None:
        current.room = room
        if current.status == Round.Status.RUNNING:
            counts = live_counts_of(current)
            common = common_words.round_common_words(current.solution, current.dictionary)
        if current.status == Round.Status.ENDED:
            # The game's latest round: its totals "up to this round" are the game's totals.
            ended_results = results(current, totals)
        if viewer is not None:
            mine = list(Submission.objects.filter(round=current, player=viewer).order_by("id"))
    state = presenters.room_state_dict(
        room,
        viewer,
        players,
        totals,
        current,
        counts,
        mine,
        ended_results,
        available_dictionaries(),
        common,
        theme_lists=available_theme_lists(),
    )
    state["words_left"] = None if common is None else words_left(current, viewer, mine, common)
    if state["words_left"] is not None and common is not None:
        # The page counts the words the player finds from here on (each verdict says too).
        for word in state["my_words"]:
            if word.get("accepted"):
                word["common"] = word["word"] in common
    # Co-op rounds: the team's goal, figure and words so far (games.coop), else None.
    state["team"] = None if current is None else team_so_far(current)
    # The final standing once the host ended the game (games.standings), else None.
    state["standing"] = room.final_standing
    # Which of the room's games this is: new_game (a rematch) adds one (games.standings).
    state["game"] = room.game
    # Kicked players the host has not let back (``unkick`` takes their id).
    state["kicked"] = [
        {"id": player_id, "nickname": nickname}
        for player_id, nickname in room.players.filter(kicked=True)
        .order_by("left_at", "id")
        .values_list("id", "nickname")
    ]
    # A quick-play room (games.autopilot): public, its game run by the server, and when
    # its next round (or the game's end) is due.
    state["public"] = room.public
    state["autopilot"] = (
        {"rounds": room.autopilot_rounds, "next_at": presenters.timestamp_ms(room.next_round_at)}
        if room.autopilot_rounds
        else None
    )
    # What features add (games.state_parts): teams, hints, the waiting list, other apps'.
    state.update(parts_of(StateView(room, current, viewer, players)))
    return state
