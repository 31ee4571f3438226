"""Play on paper (games.paper, docs/api.md "Play on paper"): the phones are the timer while
everyone writes; no entry is taken until the time is up; then each player enters their
list, judged as in any round; the round waits for the host, who may also stop the writing
early; the lists are scored, shared words cancelled, as usual."""

from __future__ import annotations

from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from games import live, rounds
from games.models import Round
from tests.games.ws_helpers import (
    ask,
    receive_until,
    seconds_from_now,
    set_round_times,
    start_round,
    submit,
    two_players,
    whole_results,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]


async def test_a_paper_round_takes_the_lists_once_the_time_is_up_and_the_host_scores_them():
    ann, bob = await two_players(paper=True, round_seconds=60)
    assert (await ask(bob.comm, "sync"))["state"]["settings"]["paper"] is True
    round_ = await start_round(ann, bob)
    sync = (await ask(bob.comm, "sync"))["state"]["round"]
    assert sync["paper"] is True and sync["ends_at"] is not None

    # Writing: nothing is taken, and nothing is stored.
    early = await submit(ann.comm, "cats", "a1")
    assert early["type"] == "error" and early["code"] == "wrong_round_state"
    assert "paper" in early["message"]
    assert not await sync_to_async(round_.submissions.exists)()

    # The time is up: the deadline does not end a paper round; the lists come in.
    await set_round_times(round_, ends_at=timezone.now() - timedelta(seconds=5))
    live.mark_stale(round_.room_id)  # the times moved under the process's copy
    assert await sync_to_async(rounds.end_overdue_rounds)() == 0
    for word in ("cats", "quiet", "zebra", "cats"):
        await submit(ann.comm, word)
    accepted = await submit(bob.comm, "cats", "b1")
    assert accepted["verdict"] == "accepted"
    assert (await submit(bob.comm, "went"))["verdict"] == "accepted"
    refused = await submit(ann.comm, "dogz")
    assert refused["verdict"] == "not_in_dictionary"

    # The host scores the lists: shared words cancel as usual.
    assert (await ask(ann.comm, "end_round"))["type"] == "ok"
    ended = await receive_until(bob.comm, "round.ended")
    results = await whole_results(bob.comm, ended, bob.id)
    by_name = {entry["nickname"]: entry for entry in results["players"]}
    ann_words = {w["word"]: (w["points"], w["cancelled"]) for w in by_name["Ann"]["words"]}
    assert ann_words == {"cats": (0, True), "quiet": (2, False)}
    assert {w["word"] for w in by_name["Ann"]["rejected"]} == {"zebra", "dogz"}
    assert by_name["Bob"]["round_points"] == 1  # went; cats cancelled
    assert results["round"]["paper"] is True

    # A list entry that arrives once the round ended is too late, as in any round.
    late = await submit(bob.comm, "diet")
    assert late["verdict"] == "round_over"


async def test_the_host_stops_the_writing_early_and_everyone_hears_it():
    ann, bob = await two_players(paper=True, round_seconds=600)
    round_ = await start_round(ann, bob)
    assert (await ask(bob.comm, "end_round"))["code"] == "not_host"
    assert (await ask(ann.comm, "end_round"))["type"] == "ok"
    time_up = await receive_until(bob.comm, "round.time_up")
    assert time_up["round"]["status"] == "running"
    assert time_up["round"]["ends_at"] <= int(timezone.now().timestamp() * 1000)
    await sync_to_async(round_.refresh_from_db)()
    assert round_.status == Round.Status.RUNNING
    # Bob's phone heard the time is up: his list is taken now.
    assert (await submit(bob.comm, "diet"))["verdict"] == "accepted"
    # The host's second end_round scores the lists.
    assert (await ask(ann.comm, "end_round"))["type"] == "ok"
    await receive_until(bob.comm, "round.ended")


async def test_an_untimed_paper_round_writes_until_the_host_says_the_time_is_up():
    ann, bob = await two_players(paper=True, round_seconds=None)
    await start_round(ann, bob)
    assert (await submit(bob.comm, "diet"))["code"] == "wrong_round_state"
    assert (await ask(ann.comm, "end_round"))["type"] == "ok"
    await receive_until(bob.comm, "round.time_up")
    assert (await submit(bob.comm, "diet"))["verdict"] == "accepted"


async def test_a_paper_round_left_past_its_deadline_is_never_ended_by_the_watchers():
    ann, bob = await two_players(paper=True, round_seconds=60)
    round_ = await start_round(ann, bob)
    await set_round_times(round_, ends_at=seconds_from_now(-3600))
    live.mark_stale(round_.room_id)
    assert (await submit(bob.comm, "diet"))["verdict"] == "accepted"  # loads the round
    # The process's watcher does not wake for it (a deadline long past would make it spin).
    assert live.next_deadline() is None
    assert round_.id not in await sync_to_async(rounds.overdue_round_ids)()
    assert await sync_to_async(rounds.end_overdue_rounds)(0.0) == 0
    await sync_to_async(round_.refresh_from_db)()
    assert round_.status == Round.Status.RUNNING
    assert (await ask(ann.comm, "end_round"))["type"] == "ok"  # the host scores the lists
    await receive_until(bob.comm, "round.ended")


async def test_paper_is_a_setting_that_rooms_change_between_rounds():
    ann, bob = await two_players()
    reply = await ask(ann.comm, "update_settings", settings={"paper": True})
    assert reply["type"] == "ok" and reply["settings"]["paper"] is True
    bad = await ask(ann.comm, "update_settings", settings={"paper": "yes"})
    assert bad["type"] == "error" and bad["code"] == "invalid"
    await start_round(ann, bob)
    assert (await ask(bob.comm, "sync"))["state"]["round"]["paper"] is True
