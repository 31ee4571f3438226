"""The Celery worker killed (SIGKILL, with its pool processes) mid-round, then replaced, as a
process supervisor would: no round is lost.

The killed worker held the round's ``end_round`` task (waiting for its eta, unacknowledged:
Redis gives it back only after its visibility timeout, an hour); the next round is asked
for before the replacement is up, so its ``prepare_round`` waits in the queue with nobody
to take it (a web process prepares it). The round must still end, and the next one be prepared and start.
"""

from __future__ import annotations

import asyncio

import pytest

from tests.faults.stack import RedisServer, check_no_word_lost, play_short_round
from tests.stack import (
    database_round,
    now_ms,
    open_room,
    round_results,
    shorten_round,
)

pytestmark = pytest.mark.integration

ROUND_SECONDS = 4.0
KILL_AT = 1.0


async def test_worker_killed_mid_round(private_redis: RedisServer, postgres_url: str, site) -> None:
    stack = site(postgres_url, private_redis.url(0))
    code, clients = await open_room(stack, 4)
    host = clients[0]
    try:
        played = await play_short_round(stack, code, clients, ROUND_SECONDS)
        number, deadline, marks = played.number, played.deadline, played.marks
        await asyncio.sleep(KILL_AT)
        dead = stack.workers[-1]
        dead.kill()
        entries = await played.entries()

        # The round ends (the web processes' deadline watchers), for everyone, on time.
        for client, mark in zip(clients, marks, strict=True):
            await client.wait_for("round.ended", after=mark)
        stored = await asyncio.to_thread(database_round, stack.database_url, code, number)
        assert stored["status"] == "ended"
        print(f"round {number} ended {stored['ended_at'] - deadline} ms after its deadline")
        check_no_word_lost(await round_results(stack, code, number), entries)

        # The next round, asked for while no worker runs; the replacement comes later.
        marks = [len(c.messages) for c in clients]
        asked = now_ms()
        assert (await host.request({"type": "start_round"}))["type"] == "ok"
        for client, mark in zip(clients, marks, strict=True):
            await client.wait_for("round.started", after=mark)
        # Started with no worker at all: a web process prepared it (games.tasks). How
        # soon is the bench's to measure (bench/load.py --faults); the floor is 5 s.
        started = next(at for at, m in host.messages[marks[0] :] if m["type"] == "round.started")
        print(f"next round started {started - asked} ms after the host asked")
        replacement = stack.start_worker()
        stored = await asyncio.to_thread(database_round, stack.database_url, code, number + 1)
        assert stored["status"] == "running"

        # The replacement works: it takes the queued prepare_round (finding the round
        # prepared) and the next round's end task.
        stack.wait_worker_ready(replacement)
        await asyncio.to_thread(shorten_round, stack.database_url, code, number + 1, 1.0)
        mark = len(host.messages)
        await host.wait_for("round.ended", after=mark)
        assert replacement.running
    finally:
        await asyncio.gather(*(c.close() for c in clients))
