"""Production mode end to end: PostgreSQL, Redis, two Daphne processes and a Celery worker.

Each test gets a throwaway database (migrated, then dropped), a flushed Redis test database,
two web processes ("A" and "B") and one worker, all as subprocesses with the production
environment. Players talk to different web processes, as they would behind the proxy, so
every event crosses processes through the Redis channel layer. Subprocess logs are printed
at teardown: pytest shows them when a test fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest
import redis
import websockets
from celery import Celery
from psycopg import sql

from boggle_site.env import celery_config
from games.models import PRESENCE_TIMEOUT
from games.presence import BEAT_SECONDS, HOST_AWAY
from solver import dictionaries, parse_board, solve

pytestmark = pytest.mark.integration

REPO_ROOT = Path(__file__).resolve().parents[2]
# Bound on any single wait for a process, a reply or an event (seconds).
WAIT = 20.0
# When the second ender (the worker's end task) is due after the deadline (ms).
END_TASK_DELAY_MS = 1000
DAPHNE = [sys.executable, "-m", "daphne"]
CELERY_WORKER = [sys.executable, "-m", "celery", "-A", "boggle_site", "worker", "-l", "info"]
# Seconds from "now" (or the end of the countdown) to the shortened deadline.
SHORT_ROUND_SECONDS = 2.5


# ---------------------------------------------------------------- processes


@dataclass
class Process:
    """A subprocess writing stdout and stderr to one log file."""

    name: str
    popen: subprocess.Popen
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def stop(self, sig: int = signal.SIGTERM, grace: float = 5.0) -> None:
        if self.popen.poll() is None:
            self.popen.send_signal(sig)
            try:
                self.popen.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                print(f"{self.name} still running {grace} s after signal {sig}: SIGKILL")
                self.popen.kill()
                self.popen.wait(timeout=10)


@dataclass
class Stack:
    """The running site: web processes by name, the worker, the database URL."""

    database_url: str
    redis_url: str
    web: dict[str, Process] = field(default_factory=dict)
    ports: dict[str, int] = field(default_factory=dict)
    processes: list[Process] = field(default_factory=list)

    def http_url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.ports[name]}"

    def ws_url(self, name: str, code: str, token: str) -> str:
        return f"ws://127.0.0.1:{self.ports[name]}/ws/rooms/{code}/?token={token}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(name: str, args: list[str], env: dict[str, str], logs: Path) -> Process:
    log = logs / f"{name}.log"
    with log.open("wb") as out:
        popen = subprocess.Popen(args, cwd=REPO_ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    return Process(name, popen, log)


def wait_until(ready, what: str, process: Process, timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.popen.poll() is not None:
            raise AssertionError(f"{process.name} exited early:\n{process.output()}")
        if ready():
            return
        time.sleep(0.1)
    raise AssertionError(f"{what} not ready after {timeout} s:\n{process.output()}")


def answers_http(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as response:
            return response.status == 200
    except (OSError, urllib.error.URLError):
        return False


def flush_redis(url: str) -> None:
    with redis.Redis.from_url(url, socket_timeout=5) as client:
        client.flushdb()


@pytest.fixture
def stack(postgres_url: str, redis_url: str, tmp_path: Path) -> Iterator[Stack]:
    """Two Daphne processes and a Celery worker on a fresh database; all stopped after."""
    flush_redis(redis_url)
    name = f"boggle_it_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_url, autocommit=True, connect_timeout=5) as connection:
        connection.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
    database_url = postgres_url.rsplit("/", 1)[0] + "/" + name
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "BOGGLE_"))}
    env |= {
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "DJANGO_SECRET_KEY": "test-only-key",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_SETTINGS_MODULE": "boggle_site.settings",
        "BOGGLE_DICTIONARY_DIR": str(REPO_ROOT / "var" / "dictionaries"),
        "PYTHONUNBUFFERED": "1",
    }
    site = Stack(database_url, redis_url)
    try:
        for command in (["-m", "solver", "build"], ["manage.py", "migrate", "--noinput"]):
            done = subprocess.run(
                [sys.executable, *command],
                cwd=REPO_ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
            assert done.returncode == 0, done.stdout + done.stderr
        for web in ("A", "B"):
            port = site.ports[web] = free_port()
            process = start(
                f"daphne-{web}",
                [*DAPHNE, "-b", "127.0.0.1", "-p", str(port), "boggle_site.asgi:application"],
                env,
                tmp_path,
            )
            site.web[web] = process
            site.processes.append(process)
        worker = start(
            "celery",
            [*CELERY_WORKER, "--pool=solo", "--without-mingle", "--without-gossip"],
            env,
            tmp_path,
        )
        site.processes.append(worker)
        for web, process in site.web.items():
            url = f"{site.http_url(web)}/api/dictionaries"
            wait_until(lambda url=url: answers_http(url), f"daphne {web}", process)
        wait_until(lambda: " ready." in worker.output(), "celery worker", worker)
        yield site
    finally:
        # Let the servers finish handling the clients' disconnects first: a Daphne that gets
        # SIGTERM in the middle of one never exits (a thread waits on the stopped loop).
        time.sleep(0.5)
        for process in site.processes:
            process.stop()
        for process in site.processes:
            print(f"\n===== {process.name} (exit {process.popen.returncode}) =====")
            print(process.output()[-20000:])
        with psycopg.connect(postgres_url, autocommit=True, connect_timeout=5) as connection:
            connection.execute(
                sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name))
            )
        flush_redis(redis_url)


# ---------------------------------------------------------------- clients (docs/api.md)


def http(base: str, method: str, path: str, body: Any = None, token: str | None = None):
    """One API call; returns (status, JSON)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=WAIT) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


class Player:
    """A websocket client that records every message with its arrival time (ms)."""

    def __init__(self, name: str, url: str) -> None:
        self.name = name
        self.url = url
        self.messages: list[tuple[int, dict]] = []
        self.arrived = asyncio.Event()
        self.closed = False
        self.ws = None
        self.reader: asyncio.Task | None = None
        self.id = 0
        self.token = ""

    async def open(self) -> dict:
        self.ws = await websockets.connect(self.url, open_timeout=WAIT, close_timeout=2)
        self.closed = False
        self.reader = asyncio.create_task(self._read())
        return await self.wait_for("state", after=len(self.messages))

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                self.messages.append((int(time.time() * 1000), json.loads(raw)))
                self.arrived.set()
        except websockets.ConnectionClosed:
            pass
        finally:
            self.closed = True
            self.arrived.set()

    async def send(self, message: dict) -> None:
        await self.ws.send(json.dumps(message))

    async def wait_for(
        self, kind: str, after: int = 0, timeout: float = WAIT, **match: Any
    ) -> dict:
        """The first message of ``kind`` (matching ``match``) at index ``after`` or later."""
        return (await self.wait_for_timed(kind, after, timeout, **match))[1]

    async def wait_for_timed(
        self, kind: str, after: int = 0, timeout: float = WAIT, **match: Any
    ) -> tuple[int, dict]:
        """Like ``wait_for``, with the message's arrival time (ms since the epoch)."""

        def wanted(message: dict) -> bool:
            return message["type"] == kind and all(message.get(k) == v for k, v in match.items())

        return await self._first(wanted, after, timeout, kind)

    async def request(self, message: dict) -> dict:
        """Send with a fresh request_id; the answer that echoes it."""
        request_id = uuid.uuid4().hex
        mark = len(self.messages)
        await self.send({**message, "request_id": request_id})

        def answer(reply: dict) -> bool:
            return reply.get("request_id") == request_id

        return (await self._first(answer, mark, WAIT, f"an answer to {message}"))[1]

    async def _first(self, wanted, after: int, timeout: float, what: str) -> tuple[int, dict]:
        deadline = time.monotonic() + timeout
        while True:
            for arrived, message in self.messages[after:]:
                if wanted(message):
                    return arrived, message
            if self.closed:
                raise AssertionError(f"{self.name}: socket closed waiting for {what}")
            left = deadline - time.monotonic()
            if left <= 0:
                seen = [m["type"] for _, m in self.messages[after:]]
                raise AssertionError(f"{self.name}: no {what} within {timeout} s; saw {seen}")
            self.arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.arrived.wait(), left)

    def count(self, kind: str, after: int = 0) -> int:
        return sum(1 for _, message in self.messages[after:] if message["type"] == kind)

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            await asyncio.wait_for(self.reader, WAIT)


async def open_room(site: Stack) -> tuple[str, Player, Player]:
    """Ann creates a room on A (her socket on A), Bob joins on B (his socket on B)."""
    status, created = await asyncio.to_thread(
        http,
        site.http_url("A"),
        "POST",
        "/api/rooms",
        {"nickname": "Ann", "settings": {"round_seconds": 30}},
    )
    assert status == 201, created
    code = created["room"]["code"]
    status, joined = await asyncio.to_thread(
        http, site.http_url("B"), "POST", f"/api/rooms/{code}/join", {"nickname": "Bob"}
    )
    assert status == 201, joined
    ann = Player("ann@A", site.ws_url("A", code, created["player"]["token"]))
    bob = Player("bob@B", site.ws_url("B", code, joined["player"]["token"]))
    ann.id, bob.id = created["player"]["id"], joined["player"]["id"]
    ann.token, bob.token = created["player"]["token"], joined["player"]["token"]
    await ann.open()
    await bob.open()
    return code, ann, bob


async def start_round(host: Player, others: list[Player]) -> tuple[dict, list[tuple[str, int]]]:
    """Start rounds until the board has at least 4 words (rolled boards rarely have fewer);
    returns the round (from round.started) and its words, solved here."""
    for _ in range(5):
        marks = [len(p.messages) for p in (host, *others)]
        ok = await host.request({"type": "start_round"})
        assert ok["type"] == "ok", ok
        started = [
            (await p.wait_for("round.started", after=mark))["round"]
            for p, mark in zip((host, *others), marks, strict=True)
        ]
        assert all(r == started[0] for r in started)
        round_ = started[0]
        lexicon = dictionaries.load(round_["dictionary"])
        found = solve(parse_board(round_["board"]), lexicon, round_["min_length"]).words
        if len(found) >= 4:
            return round_, [(w.word, w.points) for w in found]
        assert (await host.request({"type": "end_round"}))["type"] == "ok"
    raise AssertionError("five boards in a row with under 4 words")


def shorten_round(database_url: str, code: str, number: int) -> tuple[int, int]:
    """Move the round's deadline to SHORT_ROUND_SECONDS after its countdown (or now).

    Rounds last at least 30 s (the API refuses shorter ones), far too long for a test. The
    web processes' deadline watchers read ``ends_at`` from the database every 0.25 s, so
    moving it makes them end the round a few seconds from now through the real path. The
    Celery ``end_round`` task scheduled for the original deadline would come later and find
    the round already ended (it is idempotent); the fixture stops the worker before then.
    Clients are not told of the new deadline: the test measures against the returned value.
    Returns the round's id and its new deadline in ms since the epoch.
    """
    with psycopg.connect(database_url, autocommit=True, connect_timeout=5) as connection:
        row = connection.execute(
            """
            update games_round set ends_at = greatest(now(), starts_at) + %s * interval '1 second'
            where number = %s and room_id = (select id from games_room where code = %s)
            returning id, ends_at
            """,
            (SHORT_ROUND_SECONDS, number, code),
        ).fetchone()
    assert row is not None
    return row[0], int(row[1].timestamp() * 1000)


def database_round(database_url: str, code: str, number: int) -> dict:
    with psycopg.connect(database_url, connect_timeout=5) as connection:
        status, ended_at, ends_at, round_id = connection.execute(
            """
            select r.status, r.ended_at, r.ends_at, r.id from games_round r
            join games_room m on m.id = r.room_id where m.code = %s and r.number = %s
            """,
            (code, number),
        ).fetchone()
        submissions = connection.execute(
            "select player_id, word, verdict, client_id, points, cancelled from games_submission"
            " where round_id = %s order by id",
            (round_id,),
        ).fetchall()
    return {
        "status": status,
        "ended_at": int(ended_at.timestamp() * 1000) if ended_at else None,
        "ends_at": int(ends_at.timestamp() * 1000),
        "submissions": submissions,
    }


async def wait_for_start(round_: dict) -> None:
    """Sleep through the countdown (same machine: no clock offset to apply)."""
    await asyncio.sleep(max(round_["starts_at"] / 1000 - time.time(), 0) + 0.05)


def assert_no_tracebacks(site: Stack) -> None:
    for process in site.processes:
        assert "Traceback" not in process.output(), f"{process.name}:\n{process.output()}"


# ---------------------------------------------------------------- tests


async def test_round_across_two_daphne_processes(stack: Stack) -> None:
    """Ann on Daphne A and Bob on Daphne B play a round: both get every event, one shared
    word is cancelled, scores follow the table, results reach both (never before the
    deadline; how soon after is bench/load.py's to measure) and agree with each other and
    with the HTTP API on both processes."""
    code, ann, bob = await open_room(stack)
    try:
        round_, words = await start_round(ann, [bob])
        marks = {ann.name: len(ann.messages), bob.name: len(bob.messages)}
        _, deadline = await asyncio.to_thread(
            shorten_round, stack.database_url, code, round_["number"]
        )
        await wait_for_start(round_)
        (shared, shared_points), (a_word, a_points), (b_word, b_points) = words[:3]
        for player, word in ((ann, shared), (ann, a_word), (bob, shared), (bob, b_word)):
            verdict = await player.request({"type": "submit", "word": word, "client_id": word})
            assert verdict["verdict"] == "accepted", verdict
        refused = await bob.request({"type": "submit", "word": "zzzqx"})
        assert refused["verdict"] == "not_in_dictionary", refused
        # Bob sees Ann's words counted, though Ann's socket is on the other process.
        await bob.wait_for("round.counts", counts={str(ann.id): 2, str(bob.id): 2})

        arrivals = {}
        for player in (ann, bob):
            arrived, ended = await player.wait_for_timed("round.ended", marks[player.name])
            arrivals[player.name] = (arrived, ended)
        lateness = {name: arrived - deadline for name, (arrived, _) in arrivals.items()}
        print(f"results after the deadline (ms): {lateness}")
        assert all(late >= 0 for late in lateness.values()), lateness

        results = arrivals["ann@A"][1]["results"]
        assert results == arrivals["bob@B"][1]["results"]
        assert arrivals["ann@A"][1]["version"] == arrivals["bob@B"][1]["version"]
        assert results["round"]["ended_at"] >= deadline
        players = {p["nickname"]: p for p in results["players"]}
        for name, own, own_points in (("Ann", a_word, a_points), ("Bob", b_word, b_points)):
            scored = {w["word"]: w for w in players[name]["words"]}
            assert scored[shared] == {**scored[shared], "points": 0, "cancelled": True}
            assert scored[own] == {**scored[own], "points": own_points, "cancelled": False}
            assert players[name]["round_points"] == own_points
            assert players[name]["total_points"] == own_points
        assert players["Bob"]["rejected"] == [
            {"word": "zzzqx", "verdict": "not_in_dictionary", "reason": "not in the dictionary"}
        ]
        solution = {entry["word"]: entry for entry in results["solution"]}
        assert solution[shared]["points"] == shared_points
        assert sorted(solution[shared]["found_by"]) == sorted([ann.id, bob.id])

        for web in ("A", "B"):
            status, body = await asyncio.to_thread(
                http, stack.http_url(web), "GET", f"/api/rooms/{code}/rounds/{round_['number']}"
            )
            assert status == 200 and body["results"] == results, web
        stored = await asyncio.to_thread(database_round, stack.database_url, code, round_["number"])
        assert stored["status"] == "ended" and stored["ends_at"] == deadline
        assert ann.count("round.ended", marks[ann.name]) == 1
        assert bob.count("round.ended", marks[bob.name]) == 1

        # Bob leaves: ok, a normal close, and Ann on the other process sees him go.
        answer = await bob.request({"type": "leave"})
        assert answer["type"] == "ok" and answer["request"] == "leave"
        await asyncio.wait_for(bob.reader, WAIT)
        assert bob.ws.close_code == 1000
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
    celery.conf.update(celery_config({"REDIS_URL": stack.redis_url}))
    code, ann, bob = await open_room(stack)
    try:
        round_, words = await start_round(ann, [bob])
        mark_bob = len(bob.messages)
        round_id, deadline = await asyncio.to_thread(
            shorten_round, stack.database_url, code, round_["number"]
        )
        # A second ender: the worker's end_round task, as the server schedules it, due a
        # little after the deadline. Whichever of it and B's deadline watcher comes first
        # ends the round; the other finds it ended: one round.ended either way.
        eta = datetime.fromtimestamp((deadline + END_TASK_DELAY_MS) / 1000, UTC)
        end_task = celery.send_task("games.tasks.end_round", args=(round_id,), eta=eta)
        await wait_for_start(round_)
        (a_word, a_points), (b_word, b_points) = words[:2]
        assert (await bob.request({"type": "submit", "word": b_word, "client_id": "b1"}))[
            "accepted"
        ]
        # Ann's word leaves just before A dies: it may or may not have been judged.
        await ann.send({"type": "submit", "word": a_word, "client_id": "a1"})
        stack.web["A"].stop(signal.SIGKILL)
        assert stack.web["A"].popen.returncode == -signal.SIGKILL
        await asyncio.wait_for(ann.reader, WAIT)  # her socket is gone

        # Like a client behind the proxy: reconnect (now to B), resend with the same id.
        ann.url = stack.ws_url("B", code, ann.token)
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
        players = {p["nickname"]: p for p in ended["results"]["players"]}
        assert players["Ann"]["round_points"] == a_points
        assert players["Bob"]["round_points"] == b_points
        status, body = await asyncio.to_thread(
            http, stack.http_url("B"), "GET", f"/api/rooms/{code}/rounds/{round_['number']}"
        )
        assert status == 200 and body["results"] == ended["results"]
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
    code, ann, bob = await open_room(stack)
    try:
        mark = len(bob.messages)
        stack.web["A"].stop(signal.SIGKILL)
        await asyncio.wait_for(ann.reader, WAIT)
        away = PRESENCE_TIMEOUT.total_seconds() + 3 * BEAT_SECONDS + WAIT
        offline = await bob.wait_for("player.online", mark, away, player_id=ann.id)
        assert offline["online"] is False
        changed = await bob.wait_for("host.changed", mark, HOST_AWAY.total_seconds() + WAIT)
        assert changed["host_id"] == bob.id
        state = (await bob.request({"type": "sync"}))["state"]
        assert {p["nickname"]: p["online"] for p in state["players"]} == {
            "Ann": False,
            "Bob": True,
        }

        mark = len(bob.messages)
        ann.url = stack.ws_url("B", code, ann.token)
        await ann.open()
        online = await bob.wait_for("player.online", mark, player_id=ann.id)
        assert online["online"] is True
    finally:
        await ann.close()
        await bob.close()
    assert_no_tracebacks(stack)
