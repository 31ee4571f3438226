"""Upgrades without downtime (issue 49): the previous release's code plays a round on the
schema this checkout's migrations leave, as it must while it keeps serving during an
upgrade, and after a rollback.

Games 0015 and 0016 added NOT NULL columns with no database default: the first production
release's processes answered 500 on POST /api/rooms and server_error on start_round once
they ran. Each release of production/releases.py (the previous one, and the first
production release until a contract step drops what it uses) runs here from its own tree
(``git archive``), as two Daphnes and a solo Celery worker with Redis keys of the test's
own, on a throwaway PostgreSQL database migrated by this checkout. Two players create and
join a room over HTTP, start a round and send words on real websockets, get their verdicts
and the results: no 5xx, no server_error, no traceback in any process's log.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from production.releases import RELEASES_STILL_SERVED
from tests.releases import ReleaseStack, extract, open_room_as_browsers, unavailable
from tests.servers import REPO_ROOT, throwaway_postgres_database
from tests.stack import (
    SOLO_WORKER,
    Client,
    round_results,
    shorten_round,
    start_round,
    wait_for_start,
)

pytestmark = pytest.mark.integration

# Daphne's access log: `"POST /api/rooms" 500 145`.
SERVER_ERROR_LINE = re.compile(r'"[A-Z]+ [^"]*" 5\d\d ')


@pytest.fixture(params=list(RELEASES_STILL_SERVED))
def release_site(
    request: pytest.FixtureRequest,
    postgres_url: str,
    redis_url: str,
    redis_prefix: str,
    tmp_path: Path,
) -> Iterator[ReleaseStack]:
    """The release's code serving a database this checkout migrated."""
    commit = RELEASES_STILL_SERVED[request.param]
    reason = unavailable(commit)
    if reason:
        pytest.skip(reason)
    tree = extract(commit, tmp_path / "releases")
    with throwaway_postgres_database(postgres_url) as database_url:
        site = ReleaseStack(
            database_url,
            redis_url,
            tmp_path,
            beat=False,
            worker_options=SOLO_WORKER,
            redis_prefix=redis_prefix,
            code=tree,
            migrated_by=REPO_ROOT,
        )
        try:
            site.start()
            yield site
        finally:
            site.stop()
            site.print_logs()


def server_errors(clients: Sequence[Client]) -> list[dict]:
    return [
        message
        for client in clients
        for _, message in client.messages
        if message.get("type") == "error" and message.get("code") == "server_error"
    ]


async def test_the_release_plays_a_round_on_this_schema(release_site: ReleaseStack) -> None:
    site = release_site
    # POST /api/rooms and a join (each asserted 201), sockets on A and B.
    code, players = await open_room_as_browsers(site, ["Ann", "Bob"], reconnect=False)
    ann, bob = players
    try:
        round_, words = await start_round(ann, [bob], min_words=4)  # asserts "ok"
        number = round_["number"]
        marks = [len(player.messages) for player in players]
        await asyncio.to_thread(shorten_round, site.database_url, code, number, 2.5)
        await wait_for_start(round_)
        shared, ann_own, bob_own = words[:3]
        for player, word in ((ann, shared), (ann, ann_own), (bob, shared), (bob, bob_own)):
            verdict = await player.request({"type": "submit", "word": word, "client_id": word})
            assert verdict.get("verdict") == "accepted", verdict
        refused = await bob.request({"type": "submit", "word": "zzzqx", "client_id": "zz"})
        assert refused.get("verdict") == "not_on_board", refused
        for player, mark in zip(players, marks, strict=True):
            await player.wait_for("round.ended", after=mark)
        results = await round_results(site, code, number, "A")
        found = {p["nickname"]: {w["word"] for w in p["words"]} for p in results["players"]}
        assert found == {"Ann": {shared, ann_own}, "Bob": {shared, bob_own}}, found
        assert await round_results(site, code, number, "B") == results
        assert not server_errors(players), server_errors(players)
    finally:
        for player in players:
            await player.close()
    for process in site.processes:
        log = process.output()
        assert not SERVER_ERROR_LINE.search(log), f"{process.name} answered 5xx:\n{log}"
        assert "Traceback" not in log, f"{process.name}:\n{log}"
