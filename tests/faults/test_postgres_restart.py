"""PostgreSQL restarted (``pg_ctl restart -m fast``: every connection dropped) mid-round, on
a private cluster: no word is lost, the round ends, the next one starts.

Players keep sending words through the restart. A word answered ``server_error`` is sent
again with the same client_id, as the site's page does; every word answered ``accepted``
must be in the results.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from tests.faults.stack import PostgresCluster, RedisServer, check_no_word_lost, play_short_round
from tests.stack import (
    database_round,
    now_ms,
    open_room,
    round_results,
)

pytestmark = pytest.mark.integration

PLAYERS = 6
ROUND_SECONDS = 6.0
RESTART_AT = 1.5


async def test_postgres_restart_mid_round(
    private_postgres: PostgresCluster, private_redis: RedisServer, site
) -> None:
    stack = site(private_postgres.url, private_redis.url(0))
    code, clients = await open_room(stack, PLAYERS)
    host = clients[0]
    try:
        played = await play_short_round(stack, code, clients, ROUND_SECONDS)
        number, deadline, marks = played.number, played.deadline, played.marks
        await asyncio.sleep(RESTART_AT)
        restarted = await asyncio.to_thread(private_postgres.restart)
        back_ms = now_ms() - int((time.monotonic() - restarted) * 1000)
        entries = await played.entries()
        retried = [(e.client.name, e.word, e.verdicts) for e in entries if len(e.verdicts) > 1]
        print(f"entries sent more than once: {retried}")

        for client, mark in zip(clients, marks, strict=True):
            await client.wait_round_ended(number, mark, 30.0, "told the round ended")
        stored = await asyncio.to_thread(database_round, stack.database_url, code, number)
        assert stored["status"] == "ended"
        print(f"round ended {stored['ended_at'] - deadline} ms after its deadline")
        accepted = check_no_word_lost(await round_results(stack, code, number), entries)
        assert accepted > 0
        unanswered = [
            (e.word, e.verdicts)
            for e in entries
            if not e.verdicts or e.verdicts[-1] in ("server_error", "no answer")
        ]
        assert not unanswered, f"never answered: {unanswered}"

        # The next round: the host asks (again after an error, as a player would).
        marks = [len(c.messages) for c in clients]
        for _ in range(5):
            answer = await host.request({"type": "start_round"})
            if answer["type"] == "ok":
                break
            print(f"start_round: {answer}")
            await asyncio.sleep(0.5)
        assert answer["type"] == "ok", answer
        for client, mark in zip(clients, marks, strict=True):
            await client.wait_for("round.started", after=mark)
        started = next(at for at, m in host.messages[marks[0] :] if m["type"] == "round.started")
        since = max(back_ms, stored["ended_at"])
        # How soon is the bench's to measure (bench/load.py --faults); the floor is 5 s.
        print(f"next round started {started - since} ms after the round ended")
        for process in stack.processes:
            assert process.running, f"{process.name} exited:\n{process.output()[-5000:]}"
    finally:
        await asyncio.gather(*(c.close() for c in clients))
