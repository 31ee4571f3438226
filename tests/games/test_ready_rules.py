"""The ready check's rule (games.ready; docs/api.md "Ready check") on presence as the database
holds it: a round starts once nobody online is waited for AND someone online is ready. A
room whose phones are all away keeps waiting, also when the only players who said "ready"
have gone offline since; a player offline is not waited for."""

from __future__ import annotations

import pytest
from django.utils import timezone

from games import ready, rooms, rounds
from games.models import Connection, Player, Round

pytestmark = pytest.mark.django_db

BOARD = "cats qiex dogz went"


def online(player: Player) -> None:
    """A live socket of the player's (games.presence's row, as a web process writes it)."""
    Connection.objects.create(
        player=player,
        channel_name=f"test.{player.pk}",
        process="test",
        beat_at=timezone.now(),
    )


def offline(player: Player) -> None:
    Connection.objects.filter(player=player).delete()


def waiting_round(*online_nicknames: str) -> tuple[Round, Player, Player]:
    """Ann (host) and Bob in a room with the ready check on; a round solved and waiting for
    its players, those named online when it was solved. Returns the round, Ann, Bob."""
    room, ann = rooms.do_create_room("Ann", {"ready_check": True})
    bob = rooms.do_join_room(room, "Bob")
    rooms.do_set_next_board(ann, BOARD)
    round_ = rounds.do_start_round(ann)
    for player in (ann, bob):
        if player.nickname in online_nicknames:
            online(player)
    assert rounds.do_prepare_round(round_.id)
    round_.refresh_from_db()
    assert round_.status == Round.Status.PREPARING and round_.ready_since is not None
    return round_, ann, bob


def status(round_: Round) -> str:
    round_.refresh_from_db()
    return round_.status


def test_a_room_with_nobody_online_keeps_waiting():
    """Nobody online is waited for, but nobody is ready either: no round plays to nobody."""
    round_, _ann, _bob = waiting_round()
    assert ready.recheck_waiting() == 0
    assert status(round_) == Round.Status.PREPARING


def test_a_ready_player_who_went_offline_does_not_start_the_round():
    round_, ann, bob = waiting_round("Ann", "Bob")
    ready.do_ready(ann, round_.number)  # Bob is waited for
    assert status(round_) == Round.Status.PREPARING
    offline(ann)
    offline(bob)
    # Nobody online is waited for; the only ready player is away: it keeps waiting.
    assert ready.recheck_waiting() == 0
    assert status(round_) == Round.Status.PREPARING
    online(ann)  # back: ready, and nobody else online
    assert ready.recheck_waiting() == 1
    assert status(round_) == Round.Status.RUNNING


def test_an_offline_player_is_not_waited_for():
    round_, ann, _bob = waiting_round("Ann")
    assert round_.ready_waiting == [ann.pk]
    ready.do_ready(ann, round_.number)
    assert status(round_) == Round.Status.RUNNING
