"""Teams mode: two to four teams in one room. A word found by players of two teams cancels
(when the room cancels duplicates); teammates who share a word each score it
(``solver.judge.score_round``). A team's points in a round are its players' points, and its
total adds up its rounds, each with the teams as they were then (``Round.teams``).

Players pick their team between rounds (``choose_team``; the host may move anyone). A
player without a team (a newcomer, or when the room switches to teams or has fewer teams
than before) goes to the smallest team; a round needs players in two teams at least.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from games import events, modes
from games.checks import MIN_TEAMS, check_host, current_round, is_int
from games.exceptions import TeamsIncomplete, WrongRoundState
from games.models import Player, Room, Round
from games.state_parts import StateView
from games.totals import game_round_scores
from web.errors import InvalidInput


def smallest_team(members: Mapping[int, int], team_count: int) -> int:
    """The team a newcomer joins: the one with the fewest players, the lowest number of
    those. ``members``: players per team."""
    return min(range(1, team_count + 1), key=lambda team: (members.get(team, 0), team))


def round_teams(round_: Round) -> dict[int, int]:
    """A teams round's teams (player id -> team); empty for other rounds."""
    if round_.mode != modes.TEAMS:
        return {}
    return {int(player_id): team for player_id, team in round_.teams.items()}


def team_points(points_by_player: Mapping[int, int], teams: Mapping[int, int]) -> dict[int, int]:
    """Each team's points: its players' (a player without a team counts for none)."""
    totals: dict[int, int] = defaultdict(int)
    for player_id, points in points_by_player.items():
        if player_id in teams:
            totals[teams[player_id]] += points
    return dict(totals)


def ranked(points_by_team: Mapping[int, int], team_numbers: Iterable[int]) -> list[dict[str, Any]]:
    """The teams, highest points first (then by number), with their rank: equal points
    share a rank (1, 1, 3)."""
    order = sorted(set(team_numbers), key=lambda team: (-points_by_team.get(team, 0), team))
    rows: list[dict[str, Any]] = []
    for position, team in enumerate(order, start=1):
        points = points_by_team.get(team, 0)
        rank = rows[-1]["rank"] if rows and rows[-1]["points"] == points else position
        rows.append({"team": team, "rank": rank, "points": points})
    return rows


def game_team_totals(rounds: Iterable[tuple[Round, Mapping[int, int]]]) -> dict[int, int]:
    """Each team's total over ended rounds: ``rounds`` as (round, points by player id)."""
    totals: dict[int, int] = defaultdict(int)
    for round_, points_by_player in rounds:
        teams = round_teams(round_)
        scored = team_points(points_by_player, teams)
        for team in set(teams.values()):  # a team that scored nothing is still listed
            totals[team] += scored.get(team, 0)
    return dict(totals)


def game_totals(room: Room, game: int | None = None, through: int | None = None) -> dict[int, int]:
    """Each team's points over the ended rounds of one of the room's games (its current one
    by default), or over those up to round number ``through``; empty without teams rounds."""
    game = room.game if game is None else game
    played = Round.objects.filter(room=room, game=game, status=Round.Status.ENDED)
    if through is not None:
        played = played.filter(number__lte=through)
    rounds = list(played.only("number", "mode", "teams"))
    if not any(round_.mode == modes.TEAMS for round_ in rounds):
        return {}
    points: dict[int, dict[int, int]] = {}
    for score in game_round_scores(room, game):
        points.setdefault(score.number, {})[score.player_id] = score.points
    return game_team_totals((round_, points.get(round_.number, {})) for round_ in rounds)


def last_teams(room: Room) -> dict[int, int]:
    """Each player's team in the latest teams round of the room's current game they played
    in (ended rounds; player id -> team); empty without teams rounds."""
    played = Round.objects.filter(
        room=room, game=room.game, status=Round.Status.ENDED, mode=modes.TEAMS
    ).order_by("number")
    latest: dict[int, int] = {}
    for round_ in played.only("number", "mode", "teams"):
        latest.update(round_teams(round_))
    return latest


# ------------------------------------------------------------------ the room's teams


def check_team(room: Room, team: Any) -> int:
    if room.mode != modes.TEAMS:
        raise InvalidInput(_("this room does not play in teams; the host can set mode to teams"))
    if not is_int(team) or not 1 <= team <= room.team_count:
        raise InvalidInput(
            _("team is a team's number, 1 to %(count)s") % {"count": room.team_count}
        )
    return int(team)


@transaction.atomic(durable=True)
def do_choose_team(player: Player, team: Any, player_id: Any = None) -> int:
    """Put ``player`` (or, for the host, the player ``player_id``) in ``team``, between
    rounds. Returns the team."""
    room = Room.objects.select_for_update().get(pk=player.room_id)
    chosen = check_team(room, team)
    target = player
    if player_id is not None and player_id != player.pk:
        check_host(player)
        if not is_int(player_id):
            raise InvalidInput(_("player_id is a player's id"))
        found = Player.objects.filter(
            room=room, pk=player_id, left_at__isnull=True, kicked=False
        ).first()
        if found is None:
            raise InvalidInput(_("no such player in this room"))
        target = found
    running = current_round(room.pk)
    if running is not None and running.status != Round.Status.ENDED:
        raise WrongRoundState(_("teams change between rounds; wait for this round to end"))
    if target.team != chosen:
        Player.objects.filter(pk=target.pk).update(team=chosen)
        events.emit_to_room(room, "player.team", {"player_id": target.pk, "team": chosen})
    return chosen


def place_players(room: Room, announce_all: bool = False) -> None:
    """In a teams room, give every active player without a valid team the smallest team,
    announced with ``player.team``; with ``announce_all`` (the room just switched to teams:
    its pages have shown nobody's team) every player's team is announced. Inside the
    caller's transaction, the room row locked."""
    if room.mode != modes.TEAMS:
        return
    players = Player.objects.filter(room=room, left_at__isnull=True, kicked=False).order_by(
        "joined_at", "id"
    )
    for player in list(players):
        if has_team(room, player):
            if not announce_all:
                continue
            team = player.team
        else:
            team = place(room, player)
        events.emit_to_room(room, "player.team", {"player_id": player.pk, "team": team})


def has_team(room: Room, player: Player) -> bool:
    return player.team is not None and 1 <= player.team <= room.team_count


def seat(room: Room, player: Player) -> int | None:
    """A player who joins, comes back or is let back in: in a teams room, their team (the
    one they kept, else the smallest: ``place``), and a place in the teams round under way
    (``round.teams``: else their words would cancel against their teammates' and their
    points count for no team). None in other rooms. The caller tells the room."""
    if room.mode != modes.TEAMS:
        return None
    if not has_team(room, player):
        return place(room, player)
    assert player.team is not None  # has_team
    _join_round_under_way(room, player, player.team)
    return player.team


def place(room: Room, player: Player) -> int:
    """Put ``player`` (without a valid team, in a teams room) in the smallest team, also in
    a teams round under way; returns the team. The caller tells the room.

    The room's row is locked first (``FOR NO KEY UPDATE``: it waits for another join's
    placing, not for the inserts of players, which only share-lock it), so players joining
    at once are counted one after another and the teams stay even (on SQLite one writer
    at a time does the same)."""
    Room.objects.select_for_update(no_key=True).filter(pk=room.pk).values_list("pk").first()
    members = Counter(
        team
        for team in Player.objects.filter(
            room=room, left_at__isnull=True, kicked=False, team__gte=1, team__lte=room.team_count
        )
        .exclude(pk=player.pk)
        .values_list("team", flat=True)
        if team is not None
    )
    team = smallest_team(members, room.team_count)
    player.team = team
    Player.objects.filter(pk=player.pk).update(team=team)
    _join_round_under_way(room, player, team)
    return team


def _join_round_under_way(room: Room, player: Player, team: int) -> None:
    """Add the player with ``team`` to the room's teams round that has not ended, if any
    (one that is preparing, waiting for its players or running), unless they are in it."""
    under_way = (
        Round.objects.select_for_update()
        .filter(room=room, mode=modes.TEAMS)
        .exclude(status=Round.Status.ENDED)
        .order_by("-number")
        .first()
    )
    if under_way is None or under_way.number != _latest_number(room):
        return
    if str(player.pk) in under_way.teams:  # in it from its start: its teams stay as they are
        return
    Round.objects.filter(pk=under_way.pk).update(teams={**under_way.teams, str(player.pk): team})


def _latest_number(room: Room) -> int | None:
    latest = current_round(room.pk)
    return None if latest is None else latest.number


def teams_for_new_round(room: Room) -> dict[str, int]:
    """The teams a new round of a teams room plays in (player id as text -> team), once
    every player has one; ``TeamsIncomplete`` unless two teams have players."""
    place_players(room)
    teams = {
        str(player_id): team
        for player_id, team in Player.objects.filter(
            room=room, left_at__isnull=True, kicked=False
        ).values_list("id", "team")
        if team is not None
    }
    if len(set(teams.values())) < MIN_TEAMS:
        raise TeamsIncomplete(
            _(
                "a teams round needs players in two teams at least: move someone to another"
                " team, or play classic or co-op"
            )
        )
    return teams


def teams_dict(round_: Round, players: Iterable[dict], totals: Mapping[int, int]) -> list | None:
    """A teams round's results by team: each team's players, round points and total over
    the game up to this round, ranked by round points; None for other rounds. ``players``:
    the results' player entries; ``totals``: each team's total through this round."""
    teams = round_teams(round_)
    if not teams:
        return None
    entries = list(players)
    round_points = team_points({e["id"]: e["round_points"] for e in entries}, teams)
    rows = ranked(round_points, teams.values())
    for row in rows:
        row["round_points"] = row.pop("points")
        row["total_points"] = totals.get(row["team"], 0)
        row["player_ids"] = [e["id"] for e in entries if teams.get(e["id"]) == row["team"]]
    return rows


def state_part(view: StateView) -> dict[str, Any]:
    """The room state's ``teams`` (games.state_parts): in teams mode (or when the latest
    round was a teams round), each team's active players and its points over the game's
    ended rounds; None otherwise."""
    room, current, players = view.room, view.current, view.players
    if room.mode != modes.TEAMS and (current is None or current.mode != modes.TEAMS):
        return {"teams": None}
    totals = game_totals(room)
    count = max([room.team_count, *totals, *(p.team or 0 for p in players)])
    teams = [
        {
            "team": team,
            "player_ids": [p.id for p in players if p.team == team],
            "total_points": totals.get(team, 0),
        }
        for team in range(1, count + 1)
    ]
    return {"teams": teams}
