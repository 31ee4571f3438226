"""The end of a game: the host ends it between rounds (``end_game``) and everyone gets the
final standing (``game.ended``): the players ranked by their points over all the room's
rounds, and the winner(s). No round starts after it, and no challenge changes it."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import events, presenters, state
from games.checks import check_host, current_round
from games.exceptions import WrongRoundState
from games.models import Player, Room, Round, Submission


def standing(room: Room) -> dict:
    """The players ranked by total points over the room's ended rounds (highest first, then
    nickname); equal totals share a rank (1, 1, 3). The players: everyone active now and
    everyone who entered a word in one of the rounds (also if they left or were kicked)."""
    totals = state.room_totals(room)
    entered = set(Submission.objects.filter(round__room=room).values_list("player_id", flat=True))
    players = [
        player
        for player in Player.objects.filter(room=room).order_by("joined_at", "id")
        if player.id in entered or (player.active and not player.kicked)
    ]
    players.sort(key=lambda p: (-totals.get(p.id, 0), p.nickname.lower(), p.id))
    ranked: list[dict] = []
    for position, player in enumerate(players, start=1):
        points = totals.get(player.id, 0)
        rank = ranked[-1]["rank"] if ranked and ranked[-1]["total_points"] == points else position
        ranked.append(
            {"rank": rank, "id": player.id, "nickname": player.nickname, "total_points": points}
        )
    rounds = Round.objects.filter(room=room, status=Round.Status.ENDED).count()
    return {
        "players": ranked,
        "winners": [entry["id"] for entry in ranked if entry["rank"] == 1],
        "rounds": rounds,
        "ended_at": presenters.timestamp_ms(room.game_ended_at),
    }


def check_game_on(room: Room) -> None:
    """WrongRoundState once the game has ended."""
    if room.game_ended_at is not None:
        raise WrongRoundState(_("the game has ended: its standing is final"))


@transaction.atomic
def do_end_game(host: Player) -> dict:
    """End the game between rounds: fix the standing, send ``game.ended``; returns it."""
    check_host(host)
    room = Room.objects.select_for_update().get(pk=host.room_id)
    check_game_on(room)
    latest = current_round(room.pk)
    if latest is None:
        raise WrongRoundState(_("no round has been played yet: play one before ending the game"))
    if latest.status != Round.Status.ENDED:
        raise WrongRoundState(_("the game ends between rounds; end this round first"))
    room.game_ended_at = timezone.now()
    room.final_standing = standing(room)
    room.save(update_fields=["game_ended_at", "final_standing"])
    events.emit_to_room(room, "game.ended", {"standing": room.final_standing})
    return room.final_standing
