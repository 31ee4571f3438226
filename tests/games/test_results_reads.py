"""Asking for a round's whole results on the socket after ``round.ended`` (the ``results``
message, games.results_cache): answered from what the end built, built once for many
askers in a process that kept nothing, built again after an event that changes them, and
refused clearly when the round or the number is wrong (docs/api.md, "round.ended")."""

from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.sync import sync_to_async

from games import results_cache, state
from games.models import Round
from tests.games.ws_helpers import (
    NOT_A_DICTIONARY_WORD,
    ask,
    receive_until,
    start_round,
    submit,
    two_players,
)
from web import socket_limits

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """Every build of results from the database, by (room id, round number)."""
    built: list[tuple[int, int]] = []
    build = results_cache._build

    def counted(room_id: int, round_number: int) -> dict:
        built.append((room_id, round_number))
        return build(room_id, round_number)

    monkeypatch.setattr(results_cache, "_build", counted)
    return built


async def played_round():
    """Ann and Bob played a round (Bob also entered a word no list has), ended by Ann."""
    ann, bob = await two_players()
    round_ = await start_round(ann, bob)
    assert (await submit(ann.comm, "quiet"))["verdict"] == "accepted"
    assert (await submit(bob.comm, "cats"))["verdict"] == "accepted"
    await submit(bob.comm, NOT_A_DICTIONARY_WORD)
    assert (await ask(ann.comm, "end_round"))["type"] == "ok"
    for player in (ann, bob):
        await receive_until(player.comm, "round.ended")
    return ann, bob, round_


async def results_now(round_: Round) -> dict:
    fresh = await sync_to_async(Round.objects.select_related("room").get)(pk=round_.pk)
    return await sync_to_async(state.results)(fresh)


async def test_the_results_built_at_the_end_are_answered_without_building_again(builds):
    ann, bob, round_ = await played_round()
    for player in (ann, bob, ann):
        reply = await ask(player.comm, "results", round_number=round_.number)
        assert reply["type"] == "results" and reply["round_number"] == round_.number
        assert reply["results"] == await results_now(round_)
    assert builds == []


async def test_a_process_that_kept_nothing_builds_once_for_everyone_asking(builds):
    ann, bob, round_ = await played_round()
    results_cache.clear()  # another web process, or one restarted since the end
    replies = await asyncio.gather(
        *(ask(p.comm, "results", round_number=round_.number) for p in (ann, bob, ann, bob))
    )
    assert {reply["type"] for reply in replies} == {"results"}
    assert builds == [(round_.room_id, round_.number)]
    expected = await results_now(round_)
    assert all(reply["results"] == expected for reply in replies)


async def test_a_challenge_gives_the_next_asker_the_new_results(builds):
    ann, bob, round_ = await played_round()
    before = await ask(ann.comm, "results", round_number=round_.number)
    assert before["results"]["challenges"] == []
    challenged = await ask(
        bob.comm, "challenge", word=NOT_A_DICTIONARY_WORD, round_number=round_.number
    )
    assert challenged["type"] == "ok", challenged
    await receive_until(ann.comm, "challenge.opened")
    after = await ask(ann.comm, "results", round_number=round_.number)
    assert [c["word"] for c in after["results"]["challenges"]] == [NOT_A_DICTIONARY_WORD]
    assert after["results"] == await results_now(round_)
    assert builds == [(round_.room_id, round_.number)]  # once, after the event


def test_a_build_that_an_event_overtook_is_not_kept(monkeypatch):
    """The room's results were dropped while a build read the database: that build answers
    its askers but is not kept, so the next asker gets a fresh one."""
    built: list[int] = []

    def slow_build(room_id: int, round_number: int) -> dict:
        built.append(round_number)
        if len(built) == 1:
            results_cache.forget_room(room_id, 5)  # a challenge's event, mid-build
        return {"build": len(built)}

    monkeypatch.setattr(results_cache, "_build", slow_build)

    async def ask_twice() -> list[str]:
        return [await results_cache.encoded(7, 1), await results_cache.encoded(7, 1)]

    first, second = asyncio.run(ask_twice())
    assert (json.loads(first), json.loads(second)) == ({"build": 1}, {"build": 2})
    assert asyncio.run(results_cache.encoded(7, 1)) == second  # kept this time


def test_results_sent_with_an_event_older_than_a_change_are_not_kept(monkeypatch):
    """Events of two processes may cross: results that came with round.ended (version 9)
    after a challenge's event (version 10) dropped the room's results are the old ones."""
    monkeypatch.setattr(results_cache, "_build", lambda room_id, number: {"built": True})
    results_cache.forget_room(7, 10)
    results_cache.keep(7, 1, '{"sent": 9}', 9)
    assert json.loads(asyncio.run(results_cache.encoded(7, 1))) == {"built": True}
    results_cache.keep(7, 2, '{"sent": 11}', 11)
    assert json.loads(asyncio.run(results_cache.encoded(7, 2))) == {"sent": 11}


def test_the_least_recently_asked_rooms_go_first_when_the_memory_is_full(monkeypatch):
    built: list[int] = []

    def build(room_id: int, round_number: int) -> dict:
        built.append(room_id)
        return {"room": room_id}

    monkeypatch.setattr(results_cache, "_build", build)
    monkeypatch.setattr(results_cache, "KEPT_CHARACTERS", 30)  # two of these 11, not three
    for room_id in (1, 2):
        results_cache.keep(room_id, 1, json.dumps({"room": room_id}), 1)
    assert asyncio.run(results_cache.encoded(1, 1))  # room 1 asked for: used more lately
    results_cache.keep(3, 1, json.dumps({"room": 3}), 1)  # over: room 2 goes
    for room_id in (1, 3, 2, 2):
        assert json.loads(asyncio.run(results_cache.encoded(room_id, 1))) == {"room": room_id}
    assert built == [2]  # built again once, then kept (room 1 went for it)


async def test_results_of_a_round_not_over_or_unknown_are_refused():
    ann, bob = await two_players()
    round_ = await start_round(ann, bob)
    running = await ask(bob.comm, "results", round_number=round_.number)
    assert (running["type"], running["code"]) == ("error", "wrong_round_state")
    missing = await ask(bob.comm, "results", round_number=round_.number + 1)
    assert (missing["type"], missing["code"]) == ("error", "round_not_found")
    for bad in ("1", 0, -1, 1.0, True, None, 2**40, [1]):
        refused = await ask(bob.comm, "results", round_number=bad)
        assert (refused["type"], refused["code"], refused["request"]) == (
            "error",
            "invalid",
            "results",
        ), bad


async def test_results_spend_the_large_replies_budget(monkeypatch):
    """Asked for again and again, the results are refused like a state: the same byte
    budget, never refilling here."""
    monkeypatch.setattr(socket_limits, "SYNC_BYTES_BURST", 1)
    monkeypatch.setattr(socket_limits, "SYNC_BYTES_PER_SECOND", 0.0)
    _ann, bob, round_ = await played_round()
    answered = await ask(bob.comm, "results", round_number=round_.number)
    assert answered["type"] == "results"
    refused = await ask(bob.comm, "results", round_number=round_.number)
    assert (refused["type"], refused["code"]) == ("error", "rate_limited"), refused
