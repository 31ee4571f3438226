"""The end of a game and the rematch. The host ends the game between rounds (``end_game``)
and everyone gets the final standing (``game.ended``): the players ranked by their points
over the game's rounds, and the winner(s). No round starts after it, and no challenge
changes it. Then the host may start a new game in the same room (``new_game``): the same
players, link and code, totals from zero; the ended game's rounds stay in the history."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import events, presenters, signals, teams
from games.awards import game_awards
from games.checks import check_host, current_round
from games.exceptions import WrongRoundState
from games.models import Player, Room, Round, Submission
from games.totals import room_totals


def standing(room: Room) -> dict:
    """The players ranked by total points over the ended rounds of the room's current game
    (highest first, then nickname); equal totals share a rank (1, 1, 3). The players:
    everyone active now and everyone who entered a word in one of the game's rounds (also
    if they left or were kicked)."""
    totals = room_totals(room)
    entered = set(
        Submission.objects.filter(round__room=room, round__game=room.game).values_list(
            "player_id", flat=True
        )
    )
    players = [
        player
        for player in Player.objects.filter(room=room).order_by("joined_at", "id")
        if player.id in entered or (player.active and not player.kicked)
    ]
    players.sort(key=lambda p: (-totals.get(p.id, 0), p.nickname.lower(), p.id))
    team_of = teams.last_teams(room)
    ranked: list[dict] = []
    for position, player in enumerate(players, start=1):
        points = totals.get(player.id, 0)
        rank = ranked[-1]["rank"] if ranked and ranked[-1]["total_points"] == points else position
        ranked.append(
            {
                "rank": rank,
                "id": player.id,
                "nickname": player.nickname,
                "total_points": points,
                "team": team_of.get(player.id),
            }
        )
    rounds = Round.objects.filter(room=room, game=room.game, status=Round.Status.ENDED).count()
    team_totals = teams.game_totals(room)
    team_rows = None
    if team_totals:  # the game had teams rounds: the teams ranked by their points
        team_rows = [
            {"rank": row["rank"], "team": row["team"], "total_points": row["points"]}
            for row in teams.ranked(team_totals, team_totals)
        ]
    return {
        "game": room.game,
        "players": ranked,
        "winners": [entry["id"] for entry in ranked if entry["rank"] == 1],
        "teams": team_rows,
        "rounds": rounds,
        "ended_at": presenters.timestamp_ms(room.game_ended_at),
        "awards": game_awards(room, room.game),
    }


def check_game_on(room: Room) -> None:
    """WrongRoundState once the game has ended."""
    if room.game_ended_at is not None:
        raise WrongRoundState(_("the game has ended: its standing is final"))


@transaction.atomic(durable=True)
def do_end_game(host: Player) -> dict:
    """End the game between rounds: fix the standing, send ``game.ended``; returns it."""
    check_host(host)
    return end_game_in(host.room_id)


@transaction.atomic
def end_game_in(room_id: int) -> dict:
    """End the room's game, whoever asked: the host's ``end_game`` once checked, or the
    server itself (games.autopilot). Sends ``game.ended`` and ``signals.game_ended``."""
    room = Room.objects.select_for_update().get(pk=room_id)
    check_game_on(room)
    latest = current_round(room.pk)
    if latest is None or latest.game != room.game:
        raise WrongRoundState(_("no round has been played yet: play one before ending the game"))
    if latest.status != Round.Status.ENDED:
        raise WrongRoundState(_("the game ends between rounds; end this round first"))
    room.game_ended_at = timezone.now()
    room.final_standing = standing(room)
    room.save(update_fields=["game_ended_at", "final_standing"])
    events.emit_to_room(room, "game.ended", {"standing": room.final_standing})
    signals.game_ended.send_robust(sender=Room, room=room, standing=room.final_standing)
    return room.final_standing


@transaction.atomic(durable=True)
def do_new_game(host: Player) -> int:
    """A rematch: after ``end_game``, the host starts the next game in the same room. Totals
    start from zero (they count the new game's rounds only); the players, the link, the
    settings and the history stay. Sends ``game.started``; returns the new game's number."""
    check_host(host)
    room = Room.objects.select_for_update().get(pk=host.room_id)
    signals.game_starting.send(sender=Room, room=room)  # a receiver may refuse (daily)
    if room.game_ended_at is None:
        raise WrongRoundState(_("this game is still on: end it before starting a new one"))
    room.game += 1
    room.game_ended_at = None
    room.final_standing = None
    room.save(update_fields=["game", "game_ended_at", "final_standing"])
    events.emit_to_room(room, "game.started", {"game": room.game})
    if room.shrink_seconds and room.round_seconds:  # the shrinking clock starts again
        events.emit_to_room(room, "settings.changed", {"settings": presenters.settings_dict(room)})
    return room.game
