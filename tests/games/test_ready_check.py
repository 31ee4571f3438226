"""The ready check (games.ready, docs/api.md "Ready check"): with the room's ``ready_check``
on, a solved round waits for every online player's ``ready`` before its countdown, or for
the host's ``force_start``; a player who goes away is no longer waited for; words before the
countdown, a ready for another round and a force by a guest are refused clearly."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from games.models import Round
from tests.games.ws_helpers import (
    BOARD,
    ask,
    collect,
    connect,
    join_room,
    receive_until,
    submit,
    two_players,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]


async def start_with_ready_check(ann, *others) -> dict:
    """The host starts a round on a room with the ready check on; every socket gets
    ``round.ready_check``, with the board's size but not its letters (they come with
    ``round.started``: test_board_until_start.py). Returns that round."""
    assert (await ask(ann.comm, "set_board", board=BOARD))["type"] == "ok"
    assert (await ask(ann.comm, "start_round"))["type"] == "ok"
    waiting = [await receive_until(p.comm, "round.ready_check") for p in (ann, *others)]
    round_ = waiting[0]["round"]
    assert all(message["round"] == round_ for message in waiting)
    assert round_["status"] == "preparing" and round_["starts_at"] is None
    assert round_["board"] is None and (round_["rows"], round_["cols"]) == (4, 4)
    return round_


async def test_the_countdown_waits_until_everyone_online_is_ready():
    ann, bob = await two_players(ready_check=True)
    round_ = await start_with_ready_check(ann, bob)
    number = round_["number"]
    assert round_["ready_check"] == {"ready": [], "waiting": [ann.id, bob.id]}

    # Not yet: words wait for the countdown.
    refused = await submit(bob.comm, "cats")
    assert refused["type"] == "error" and refused["code"] == "wrong_round_state"

    reply = await ask(ann.comm, "ready", round_number=number)
    assert (reply["type"], reply["request"]) == ("ok", "ready")
    for player in (ann, bob):
        update = await receive_until(player.comm, "round.ready")
        assert (update["ready"], update["waiting"]) == ([ann.id], [bob.id])
    # Ready again: answered, but the room hears nothing new.
    assert (await ask(ann.comm, "ready", round_number=number))["type"] == "ok"
    assert not any(m["type"] == "round.ready" for m in await collect(bob.comm))
    assert not any(m["type"] == "round.started" for m in await collect(bob.comm))
    stored = await sync_to_async(Round.objects.get)(room__code=ann.code, number=number)
    assert stored.status == Round.Status.PREPARING

    assert (await ask(bob.comm, "ready", round_number=number))["type"] == "ok"
    for player in (ann, bob):
        started = await receive_until(player.comm, "round.started")
        assert started["round"]["number"] == number
        assert started["round"]["ready_check"] is None
        assert started["round"]["starts_at"] is not None


async def test_the_host_starts_without_waiting_and_a_guest_cannot():
    ann, bob = await two_players(ready_check=True)
    number = (await start_with_ready_check(ann, bob))["number"]
    refused = await ask(bob.comm, "force_start", round_number=number)
    assert (refused["type"], refused["code"]) == ("error", "not_host")
    reply = await ask(ann.comm, "force_start", round_number=number)
    assert (reply["type"], reply["request"]) == ("ok", "force_start")
    for player in (ann, bob):
        assert (await receive_until(player.comm, "round.started"))["round"]["number"] == number
    # Started: nothing waits any more.
    late = await ask(bob.comm, "ready", round_number=number)
    assert (late["type"], late["code"]) == ("error", "wrong_round_state")


async def test_a_player_who_leaves_is_no_longer_waited_for():
    ann, bob = await two_players(ready_check=True)
    number = (await start_with_ready_check(ann, bob))["number"]
    assert (await ask(ann.comm, "ready", round_number=number))["type"] == "ok"
    assert (await ask(bob.comm, "leave"))["type"] == "ok"
    # Every web process follows presence once a second (games.background): nobody online
    # is waited for now, and Ann is ready.
    started = await receive_until(ann.comm, "round.started")
    assert started["round"]["number"] == number


async def test_a_player_who_comes_online_is_waited_for_too():
    ann, bob = await two_players(ready_check=True)
    number = (await start_with_ready_check(ann, bob))["number"]
    cid = await join_room(ann.code, "Cid")
    state = await connect(cid)
    assert state["round"]["ready_check"] == {"ready": [], "waiting": [ann.id, bob.id]}
    update = await receive_until(ann.comm, "round.ready")
    assert (update["ready"], update["waiting"]) == ([], [ann.id, bob.id, cid.id])
    for player in (ann, bob):
        assert (await ask(player.comm, "ready", round_number=number))["type"] == "ok"
    assert not any(m["type"] == "round.started" for m in await collect(ann.comm))
    assert (await ask(cid.comm, "ready", round_number=number))["type"] == "ok"
    assert (await receive_until(cid.comm, "round.started"))["round"]["number"] == number


@pytest.mark.parametrize("number", ["1", 0, -1, 1.0, True, None, 2**40, [1]])
async def test_a_round_number_that_is_not_one_is_refused(number):
    ann, bob = await two_players(ready_check=True)
    await start_with_ready_check(ann, bob)
    for kind in ("ready", "force_start"):
        refused = await ask(ann.comm, kind, round_number=number)
        assert (refused["type"], refused["code"], refused["request"]) == ("error", "invalid", kind)


async def test_ready_for_a_round_that_does_not_wait_is_refused():
    ann, bob = await two_players(ready_check=True)
    # No round yet.
    refused = await ask(ann.comm, "ready", round_number=1)
    assert (refused["type"], refused["code"]) == ("error", "wrong_round_state")
    number = (await start_with_ready_check(ann, bob))["number"]
    refused = await ask(ann.comm, "ready", round_number=number + 1)
    assert (refused["type"], refused["code"]) == ("error", "wrong_round_state")


async def test_without_the_ready_check_the_countdown_starts_at_once():
    ann, bob = await two_players()
    assert (await ask(ann.comm, "start_round"))["type"] == "ok"
    started = await receive_until(bob.comm, "round.started")
    assert started["round"]["ready_check"] is None


async def test_the_setting_is_a_boolean_the_host_changes_between_rounds():
    ann, bob = await two_players()
    reply = await ask(ann.comm, "update_settings", settings={"ready_check": True})
    assert reply["type"] != "error", reply
    changed = await receive_until(bob.comm, "settings.changed")
    assert changed["settings"]["ready_check"] is True
    refused = await ask(ann.comm, "update_settings", settings={"ready_check": "yes"})
    assert (refused["type"], refused["code"]) == ("error", "invalid")
