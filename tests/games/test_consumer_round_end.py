"""Rounds ending on time through the deadline watcher, and ending exactly once however many
enders (watcher, Celery task, host) try."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from games import rounds, tasks
from games.models import Room, Round, Submission
from tests.games.ws_helpers import (
    ask,
    collect,
    receive_until,
    seconds_from_now,
    set_round_times,
    start_round,
    submit,
    two_players,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]


async def test_the_watcher_ends_a_round_at_its_deadline():
    """A round whose deadline is a second away ends by itself: round.ended reaches both
    players, never before the deadline, with scores. (How soon after it is a matter of
    load, measured by bench/load.py, not asserted here.)"""
    ann, bob = await two_players()
    round_ = await start_round(ann, bob)
    assert (await submit(bob.comm, "quiet"))["verdict"] == "accepted"
    await set_round_times(round_, ends_at=seconds_from_now(1))
    deadline_ms = int(round_.ends_at.timestamp() * 1000)
    for player in (ann, bob):
        ended = await receive_until(player.comm, "round.ended", timeout=30)
        assert ended["server_time"] >= deadline_ms
        scores = ended["scores"]
        assert scores["round"]["status"] == "ended"
        assert scores["round"]["ended_at"] >= deadline_ms
        assert {p["nickname"]: p["round_points"] for p in scores["players"]}["Bob"] == 2
    stored = await sync_to_async(Round.objects.get)(pk=round_.pk)
    assert stored.status == Round.Status.ENDED


@pytest.mark.usefixtures("no_live_counts")  # the room's version counts the round's end alone
async def test_ending_is_idempotent() -> None:
    """do_end_round twice, then the Celery task: the round is scored once and each player
    gets exactly one round.ended."""
    ann, bob = await two_players()
    round_ = await start_round(ann, bob)
    await submit(ann.comm, "cats")
    await submit(bob.comm, "cats")
    await submit(bob.comm, "went")
    version = (await sync_to_async(Room.objects.get)(code=ann.code)).version
    assert await sync_to_async(rounds.do_end_round)(round_.id) is True
    assert await sync_to_async(rounds.do_end_round)(round_.id) is False
    assert await sync_to_async(tasks.end_round)(round_.id) is False
    assert await sync_to_async(rounds.end_overdue_rounds)() == 0
    for player in (ann, bob):
        ended = [m for m in await collect(player.comm) if m["type"] == "round.ended"]
        assert len(ended) == 1
    assert (await sync_to_async(Room.objects.get)(code=ann.code)).version == version + 1
    points: list[tuple[str, int | None, bool]] = await sync_to_async(
        lambda: list(Submission.objects.order_by("id").values_list("word", "points", "cancelled"))
    )()
    assert points == [("cats", 0, True), ("cats", 0, True), ("went", 1, False)]
    reply = await ask(ann.comm, "end_round")
    assert reply["code"] == "wrong_round_state"


async def test_the_host_ending_early_beats_the_deadline():
    """The host ends a timed round early; the watcher later finds nothing to end."""
    ann, bob = await two_players()
    round_ = await start_round(ann, bob)
    await set_round_times(round_, ends_at=seconds_from_now(1))
    assert (await ask(ann.comm, "end_round"))["type"] == "ok"
    await receive_until(bob.comm, "round.ended")
    # Until well past the deadline, the watcher sends nothing more.
    assert await bob.comm.receive_nothing(timeout=1.5)
    assert await sync_to_async(rounds.end_overdue_rounds)() == 0
