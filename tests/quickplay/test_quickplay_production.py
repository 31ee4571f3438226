"""Quick play in production (PostgreSQL, Redis, two Daphne processes, a Celery worker):
strangers join the queue through different web processes and land in one room, whose first
round the autopilot starts with nobody pressing anything. The queue is the database's, so
no process holds it (quickplay.queue)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.stack import SOLO_WORKER, WAIT, Client, Stack, http, running_site

pytestmark = pytest.mark.integration


@pytest.fixture
def stack(postgres_url: str, redis_url: str, redis_prefix: str, tmp_path: Path) -> Iterator[Stack]:
    with running_site(
        postgres_url,
        redis_url,
        tmp_path,
        beat=False,
        worker_options=SOLO_WORKER,
        redis_prefix=redis_prefix,
    ) as site:
        yield site


def poll_ticket(base: str, key: str) -> dict:
    """Ask how the ticket stands, once a second as the page does, until it is placed."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        status, body = http(base, "GET", "/api/quickplay", token=key)
        assert status == 200, body
        if body["ticket"]["status"] == "placed":
            return body["ticket"]
        time.sleep(1.0)
    raise AssertionError("never placed")


async def test_strangers_on_two_web_processes_share_one_room(stack: Stack) -> None:
    keys = []
    for index in range(4):
        base = stack.http_url("AB"[index % 2])
        status, body = http(base, "POST", "/api/quickplay", {"nickname": f"Q{index}"})
        assert status == 201, body
        keys.append((base, body["ticket"]["key"]))
    tickets = await asyncio.gather(
        *(asyncio.to_thread(poll_ticket, base, key) for base, key in keys)
    )
    codes = {ticket["room"]["code"] for ticket in tickets}
    assert len(codes) == 1, codes
    code = codes.pop()
    players = [
        Client(
            ticket["nickname"],
            stack.ws_url("AB"[index % 2], code),
            ticket["player"]["id"],
            ticket["player"]["token"],
        )
        for index, ticket in enumerate(tickets)
    ]
    try:
        states = [await player.open() for player in players]
        assert all(s["state"]["public"] and s["state"]["autopilot"]["rounds"] == 3 for s in states)
        # Nobody starts it: the autopilot does, on whichever process's watcher comes first.
        for player in players:
            started = await player.wait_for("round.started", timeout=WAIT)
            assert started["round"]["number"] == 1
        refused = await players[0].request({"type": "start_round"})
        assert refused["type"] == "error" and refused["code"] == "not_host"
    finally:
        for player in players:
            await player.close()
