"""Production mode end to end: PostgreSQL, Redis, two Daphne processes and a Celery worker.

Each test gets a throwaway database (migrated, then dropped), a flushed Redis test database,
two web processes ("A" and "B") and one worker, all as subprocesses with the production
environment (tests/stack.py, shared with the fault tests, which run the same site on
private servers). Players talk to different web processes, as they would behind the proxy,
so every event crosses processes through the Redis channel layer. Subprocess logs are
printed at teardown: pytest shows them when a test fails.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from celery import Celery

from boggle_site.env import celery_config
from games.models import PRESENCE_TIMEOUT
from games.presence import BEAT_SECONDS, HOST_AWAY
from tests.stack import (
    SOLO_WORKER,
    WAIT,
    Stack,
    database_round,
    open_room,
    round_results,
    running_site,
    shorten_round,
    solve_round,
    start_round,
    wait_for_start,
)

pytestmark = pytest.mark.integration

# When the second ender (the worker's end task) is due after the deadline (ms).
END_TASK_DELAY_MS = 1000
# Seconds from "now" (or the end of the countdown) to the shortened deadline.
SHORT_ROUND_SECONDS = 2.5
# Slack (seconds) on the bounds for noticing a dead process's players and passing hosting on.
PRESENCE_SLACK = 20.0


@pytest.fixture
def stack(postgres_url: str, redis_url: str, redis_prefix: str, tmp_path: Path) -> Iterator[Stack]:
    """Two Daphne processes and one Celery worker on a fresh database and Redis keys of this
    test's own; all stopped after. No beat: the rounds' enders are the ones the tests name."""
    with running_site(
        postgres_url,
        redis_url,
        tmp_path,
        beat=False,
        worker_options=SOLO_WORKER,
        redis_prefix=redis_prefix,
    ) as site:
        yield site


def assert_no_tracebacks(site: Stack) -> None:
    for process in site.processes:
        assert "Traceback" not in process.output(), f"{process.name}:\n{process.output()}"


# ---------------------------------------------------------------- tests


async def test_round_across_two_daphne_processes(stack: Stack) -> None:
    """Ann on Daphne A and Bob on Daphne B play a round: both get every event, one shared
    word is cancelled, scores follow the table, results reach both (never before the
    deadline; how soon after is bench/load.py's to measure) and agree with each other and
    with the HTTP API on both processes."""
    code, (ann, bob) = await open_room(stack, ["Ann", "Bob"], reconnect=False)
    try:
        round_, words = await start_round(ann, [bob], min_words=4)
        points = solve_round(round_)
        marks = {ann.name: len(ann.messages), bob.name: len(bob.messages)}
        _, deadline = await asyncio.to_thread(
            shorten_round, stack.database_url, code, round_["number"], SHORT_ROUND_SECONDS
        )
        await wait_for_start(round_)
        shared, a_word, b_word = words[:3]
        shared_points, a_points, b_points = points[shared], points[a_word], points[b_word]
        for player, word in ((ann, shared), (ann, a_word), (bob, shared), (bob, b_word)):
            verdict = await player.request({"type": "submit", "word": word, "client_id": word})
            assert verdict["verdict"] == "accepted", verdict
        refused = await bob.request({"type": "submit", "word": "zzzqx"})  # a lone q: no die
        assert refused["verdict"] == "not_on_board", refused
        # Bob sees Ann's words counted, though Ann's socket is on the other process.
        await bob.wait_for("round.counts", counts={str(ann.id): 2, str(bob.id): 2})

        arrivals = {}
        for player in (ann, bob):
            arrived, ended = await player.wait_for_timed("round.ended", marks[player.name])
            arrivals[player.name] = (arrived, ended)
        lateness = {name: arrived - deadline for name, (arrived, _) in arrivals.items()}
        print(f"results after the deadline (ms): {lateness}")
        assert all(late >= 0 for late in lateness.values()), lateness

        ended_ann, ended_bob = arrivals[ann.name][1], arrivals[bob.name][1]
        assert ended_ann["scores"] == ended_bob["scores"]
        assert ended_ann["version"] == ended_bob["version"]
        # Each asks its own process for the whole results, which came there with round.ended
        # through Redis from whoever ended the round; the same on both.
        number = round_["number"]
        results = (await ann.request({"type": "results", "round_number": number}))["results"]
        assert (await bob.request({"type": "results", "round_number": number}))["results"] == (
            results
        )
        assert results["round"]["ended_at"] >= deadline
        players = {p["nickname"]: p for p in results["players"]}
        for client, ended in ((ann, ended_ann), (bob, ended_bob)):
            mine = next(p for p in results["players"] if p["id"] == client.id)
            assert ended["mine"] == {"words": mine["words"], "rejected": mine["rejected"]}
        for name, own, own_points in (("Ann", a_word, a_points), ("Bob", b_word, b_points)):
            scored = {w["word"]: w for w in players[name]["words"]}
            assert scored[shared] == {**scored[shared], "points": 0, "cancelled": True}
            assert scored[own] == {**scored[own], "points": own_points, "cancelled": False}
            assert players[name]["round_points"] == own_points
            assert players[name]["total_points"] == own_points
        assert players["Bob"]["rejected"] == [
            {"word": "zzzqx", "verdict": "not_on_board", "reason": "not on the board"}
        ]
        solution = {entry["word"]: entry for entry in results["solution"]}
        assert solution[shared]["points"] == shared_points
        assert sorted(solution[shared]["found_by"]) == sorted([ann.id, bob.id])

        for web in ("A", "B"):
            assert await round_results(stack, code, round_["number"], web) == results, web
        stored = await asyncio.to_thread(database_round, stack.database_url, code, round_["number"])
        assert stored["status"] == "ended" and stored["ends_at"] == deadline
        assert ann.count("round.ended", marks[ann.name]) == 1
        assert bob.count("round.ended", marks[bob.name]) == 1

        # Bob leaves: ok, a normal close, and Ann on the other process sees him go.
        answer = await bob.request({"type": "leave"})
        assert answer["type"] == "ok" and answer["request"] == "leave"
        assert await bob.closed() == 1000
        await ann.wait_for("player.left", player_id=bob.id)

        # An idle socket stays open: longer than the channel layer's 5 s blocking read, which
        # once timed out in redis-py and closed every quiet socket with 1011. (The wait also
        # lets Daphne log any error of Bob's closed consumer, checked below.)
        await asyncio.sleep(6)
        pong = await ann.request({"type": "ping", "client_time": 1})
        assert pong["type"] == "pong" and pong["client_time"] == 1
    finally:
        await ann.close()
        await bob.close()
    assert_no_tracebacks(stack)


async def test_round_ends_once_when_a_web_process_dies(stack: Stack) -> None:
    """Ann starts a round through Daphne A, A is killed (SIGKILL) mid-round: Bob on B still
    gets round.ended, exactly once; Ann reconnects through B,
    resends her unanswered word with the same client_id and is scored once for it."""
    celery = Celery("integration-client")
    celery.conf.update(
        celery_config({"REDIS_URL": stack.redis_url, "BOGGLE_REDIS_PREFIX": stack.redis_prefix})
    )
    code, (ann, bob) = await open_room(stack, ["Ann", "Bob"], reconnect=False)
    try:
        round_, words = await start_round(ann, [bob], min_words=4)
        points = solve_round(round_)
        mark_bob = len(bob.messages)
        round_id, deadline = await asyncio.to_thread(
            shorten_round, stack.database_url, code, round_["number"], SHORT_ROUND_SECONDS
        )
        # A second ender: the worker's end_round task, as the server schedules it, due a
        # little after the deadline. Whichever of it and B's deadline watcher comes first
        # ends the round; the other finds it ended: one round.ended either way.
        eta = datetime.fromtimestamp((deadline + END_TASK_DELAY_MS) / 1000, UTC)
        end_task = celery.send_task("games.tasks.end_round", args=(round_id,), eta=eta)
        await wait_for_start(round_)
        a_word, b_word = words[:2]
        a_points, b_points = points[a_word], points[b_word]
        assert (await bob.request({"type": "submit", "word": b_word, "client_id": "b1"}))[
            "accepted"
        ]
        # Ann's word leaves just before A dies: it may or may not have been judged.
        await ann.send({"type": "submit", "word": a_word, "client_id": "a1"})
        stack.web["A"].kill()
        assert stack.web["A"].returncode == -signal.SIGKILL
        await ann.closed()  # her socket is gone

        # Like a client behind the proxy: reconnect (now to B), resend with the same id.
        ann.url = stack.ws_url("B", code)
        mark_ann = len(ann.messages)
        state = (await ann.open())["state"]
        assert state["round"]["status"] == "running"
        verdict = await ann.request({"type": "submit", "word": a_word, "client_id": "a1"})
        assert verdict["verdict"] == "accepted", verdict

        arrived, ended = await bob.wait_for_timed("round.ended", mark_bob)
        print(f"results on B after the deadline: {arrived - deadline} ms")
        assert arrived - deadline >= 0
        await ann.wait_for("round.ended", mark_ann)
        await asyncio.to_thread(end_task.get, timeout=WAIT)  # it ran: ended it, or found it so
        await asyncio.sleep(0.5)  # time for a second round.ended to show, were there one
        assert bob.count("round.ended", mark_bob) == 1
        assert ann.count("round.ended", mark_ann) == 1

        stored = await asyncio.to_thread(database_round, stack.database_url, code, round_["number"])
        assert stored["status"] == "ended" and deadline <= stored["ended_at"] <= arrived
        assert [row[:4] for row in stored["submissions"] if row[0] == ann.id] == [
            (ann.id, a_word, "accepted", "a1")
        ]
        players = {p["nickname"]: p for p in ended["scores"]["players"]}
        assert players["Ann"]["round_points"] == a_points
        assert players["Bob"]["round_points"] == b_points
        asked = {"type": "results", "round_number": round_["number"]}
        results = (await bob.request(asked))["results"]
        assert await round_results(stack, code, round_["number"], "B") == results
    finally:
        await ann.close()
        await bob.close()
        celery.close()
    assert_no_tracebacks(stack)


async def test_players_of_a_killed_web_process_go_offline_and_hosting_passes_on(
    stack: Stack,
) -> None:
    """Daphne A dies with SIGKILL (no disconnect handler runs): within the presence timeout
    (plus a beat) B's beat sweeps A's sockets, Bob hears that Ann went offline, and once she
    has been away for HOST_AWAY hosting passes to him; Ann comes back through B and is online again."""
    code, (ann, bob) = await open_room(stack, ["Ann", "Bob"], reconnect=False)
    try:
        mark = len(bob.messages)
        stack.web["A"].kill()
        await ann.closed()
        away = PRESENCE_TIMEOUT.total_seconds() + 3 * BEAT_SECONDS + PRESENCE_SLACK
        offline = await bob.wait_for("player.online", mark, away, player_id=ann.id)
        assert offline["online"] is False
        changed = await bob.wait_for(
            "host.changed", mark, HOST_AWAY.total_seconds() + PRESENCE_SLACK
        )
        assert changed["host_id"] == bob.id
        state = (await bob.request({"type": "sync"}))["state"]
        assert {p["nickname"]: p["online"] for p in state["players"]} == {
            "Ann": False,
            "Bob": True,
        }

        mark = len(bob.messages)
        ann.url = stack.ws_url("B", code)
        await ann.open()
        online = await bob.wait_for("player.online", mark, player_id=ann.id)
        assert online["online"] is True
    finally:
        await ann.close()
        await bob.close()
    assert_no_tracebacks(stack)
