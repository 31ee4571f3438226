"""The site as in production, and players' websocket clients, for end-to-end tests.

One place for what tests/games/test_integration_production.py (on the shared PostgreSQL and
Redis) and the fault tests in tests/faults/ (on private servers they break) both need: the
site as subprocesses with the production environment (two Daphne processes "A" and "B",
Celery workers and, unless turned off, beat), HTTP and websocket clients that talk to it as
phones behind the proxy do, and the few database reads and writes that let a test shorten a
round and check what was stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg
import websockets

from tests.servers import REPO_ROOT, throwaway_postgres_database
from web.network import free_ports

# Bound on any single wait for a process, a reply or an event (seconds).
WAIT = 30.0
DAPHNE = [sys.executable, "-m", "daphne"]
CELERY = [sys.executable, "-m", "celery", "-A", "boggle_site"]
# The worker as in production: a prefork pool, as the fault tests kill it with its children.
PREFORK_WORKER = ("--concurrency", "2", "--without-mingle")
# One process, no pool: lighter, for tests that only need tasks to run.
SOLO_WORKER = ("--pool=solo", "--without-mingle", "--without-gossip")
# Close codes after which the site's page does not reconnect (docs/api.md, "Close codes").
FINAL_CLOSE_CODES = {1000, 4001, 4400, 4403, 4404}


def poll_until(
    ready: Callable[[], bool], what: str, timeout: float = WAIT, interval: float = 0.05
) -> float:
    """Poll ``ready()`` until true (it may raise to give up early); returns the monotonic
    time it became true."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ready():
            return time.monotonic()
        time.sleep(interval)
    raise AssertionError(f"{what}: not within {timeout} s")


def now_ms() -> int:
    """Wall-clock time in ms since the epoch, the unit of the site's timestamps."""
    return int(time.time() * 1000)


# ---------------------------------------------------------------- processes


@dataclass
class Process:
    """A subprocess writing stdout and stderr to one log file (appended across restarts)."""

    name: str
    args: list[str]
    env: dict[str, str]
    log: Path
    popen: subprocess.Popen[bytes] | None = None

    def start(self) -> Process:
        with self.log.open("ab") as out:
            self.popen = subprocess.Popen(
                self.args,
                cwd=REPO_ROOT,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # its own group: a kill reaches the pool's children
            )
        return self

    @property
    def running(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    @property
    def returncode(self) -> int | None:
        return self.popen.returncode if self.popen is not None else None

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def kill(self) -> None:
        """SIGKILL the process and every process of its group (a worker's pool children):
        gone at once, as after a crash, with no shutdown code run."""
        if self.popen is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        self.popen.wait(timeout=10)

    def stop(self, grace: float = 5.0) -> None:
        if not self.running:
            return
        assert self.popen is not None
        self.popen.send_signal(signal.SIGTERM)
        try:
            self.popen.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            print(f"{self.name} still running {grace} s after SIGTERM: SIGKILL")
        self.kill()  # and whatever the group left behind


def answers_http(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as response:
            return response.status == 200
    except (OSError, urllib.error.URLError):
        return False


@dataclass
class Stack:
    """The site on the given database and Redis: two Daphnes, a Celery worker and (unless
    ``beat`` is off) Celery beat, each logging to a file in ``workdir``."""

    database_url: str
    redis_url: str
    workdir: Path
    beat: bool = True
    worker_options: Sequence[str] = PREFORK_WORKER
    redis_prefix: str = ""
    env: dict[str, str] = field(default_factory=dict)
    web: dict[str, Process] = field(default_factory=dict)
    ports: dict[str, int] = field(default_factory=dict)
    workers: list[Process] = field(default_factory=list)
    beat_process: Process | None = None

    def __post_init__(self) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "BOGGLE_"))}
        self.env = env | {
            "DATABASE_URL": self.database_url,
            "REDIS_URL": self.redis_url,
            "BOGGLE_REDIS_PREFIX": self.redis_prefix,
            "DJANGO_SECRET_KEY": "test-only-key",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DJANGO_SETTINGS_MODULE": "boggle_site.settings",
            "BOGGLE_DICTIONARY_DIR": str(REPO_ROOT / "var" / "dictionaries"),
            "PYTHONUNBUFFERED": "1",
            "BOGGLE_PRELOAD_READER": "0",  # no photos here: no TensorFlow in the workers
        }

    @property
    def processes(self) -> list[Process]:
        beat = [self.beat_process] if self.beat_process else []
        return [*self.web.values(), *self.workers, *beat]

    def http_url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.ports[name]}"

    def ws_url(self, name: str, code: str) -> str:
        """A room's socket on one web process; the token goes in a header (``Client``)."""
        return f"ws://127.0.0.1:{self.ports[name]}/ws/rooms/{code}/"

    def setup(self) -> None:
        """Compile the dictionaries and migrate the database, as a deployment does."""
        for command in (["-m", "solver", "build"], ["manage.py", "migrate", "--noinput"]):
            done = subprocess.run(
                [sys.executable, *command],
                cwd=REPO_ROOT,
                env=self.env,
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
            assert done.returncode == 0, done.stdout + done.stderr

    def start(self) -> None:
        """Set up, start every process, and return once the web processes answer and the
        worker is ready."""
        self.setup()
        for name, port in zip(("A", "B"), free_ports(2), strict=True):
            self.ports[name] = port
            self.web[name] = Process(
                f"daphne-{name}",
                [*DAPHNE, "-b", "127.0.0.1", "-p", str(port), "boggle_site.asgi:application"],
                self.env,
                self.workdir / f"daphne-{name}.log",
            ).start()
        self.start_worker()
        if self.beat:
            self.beat_process = Process(
                "beat",
                [*CELERY, "beat", "-l", "info", "-s", str(self.workdir / "beat-schedule")],
                self.env,
                self.workdir / "beat.log",
            ).start()
        for name in self.web:
            poll_until(functools.partial(self._web_ready, name), f"daphne {name}")
        self.wait_worker_ready(self.workers[-1])

    def start_worker(self) -> Process:
        """Another worker (a replacement, say), its log in celery-N.log."""
        number = len(self.workers) + 1
        worker = Process(
            f"celery-{number}",
            [*CELERY, "worker", "-l", "info", *self.worker_options],
            self.env,
            self.workdir / f"celery-{number}.log",
        ).start()
        self.workers.append(worker)
        return worker

    def wait_worker_ready(self, worker: Process) -> None:
        def ready() -> bool:
            if not worker.running:
                raise AssertionError(f"{worker.name} exited:\n{worker.output()[-5000:]}")
            return " ready." in worker.output()

        poll_until(ready, worker.name)

    def _web_ready(self, name: str) -> bool:
        process = self.web[name]
        if not process.running:
            raise AssertionError(f"{process.name} exited early:\n{process.output()}")
        return answers_http(f"{self.http_url(name)}/api/dictionaries")

    def stop(self) -> None:
        # Let the servers finish handling the clients' disconnects first: a Daphne that gets
        # SIGTERM in the middle of one may never exit (a thread waits on the stopped loop).
        time.sleep(0.5)
        for process in self.processes:
            process.stop()

    def print_logs(self) -> None:
        """Every process's log (its end): pytest shows them when a test fails."""
        for process in self.processes:
            print(f"\n===== {process.name} (exit {process.returncode}) =====")
            print(process.output()[-20000:])


@contextlib.contextmanager
def running_site(server_url: str, redis_url: str, workdir: Path, **options: Any) -> Iterator[Stack]:
    """A throwaway database on the PostgreSQL server at ``server_url`` and the site started
    on it (``options``: ``Stack``'s); afterwards the site is stopped, its logs printed and
    the database dropped, also when the start failed."""
    with throwaway_postgres_database(server_url) as database_url:
        stack = Stack(database_url, redis_url, workdir, **options)
        try:
            stack.start()
            yield stack
        finally:
            stack.stop()
            stack.print_logs()


# ---------------------------------------------------------------- clients (docs/api.md)


def http(
    base: str, method: str, path: str, body: Any = None, token: str | None = None
) -> tuple[int, Any]:
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


class Client:
    """A player's websocket: every message is recorded with its arrival time (ms).

    With ``reconnect`` (the default) it behaves like the site's page: after a drop with a
    code that allows it, it reconnects (first after ``RETRY_SECONDS``, as the page's backoff
    starts at about a second) and the ``state`` the server sends on connect is its sync.
    Without, a drop is final: the test reconnects by hand with ``open()``, perhaps to
    another web process (set ``url`` first).
    """

    RETRY_SECONDS = 1.0

    def __init__(
        self, name: str, url: str, player_id: int, token: str, *, reconnect: bool = True
    ) -> None:
        self.name = name
        self.url = url
        self.id = player_id
        self.token = token
        self.reconnect = reconnect
        self.messages: list[tuple[int, dict]] = []
        self.closes: list[tuple[int, int | None]] = []  # (ms, code) of each drop
        self.arrived = asyncio.Event()
        self.ws: Any = None
        self.runner: asyncio.Task[None] | None = None
        self.stopping = False
        self.final = False  # closed for good: no message will come any more

    async def open(self) -> dict:
        """Connect (with ``reconnect``, and keep reconnecting after drops); returns the
        first state."""
        assert self.runner is None or self.runner.done(), f"{self.name}: already open"
        self.stopping = self.final = False
        mark = len(self.messages)
        self.runner = asyncio.create_task(self._run())
        return await self.wait_for("state", after=mark)

    def handshake_headers(self) -> dict[str, str]:
        """What the socket's handshake sends: the token in a header, never in the URL."""
        return {"Authorization": f"Bearer {self.token}"}

    async def _run(self) -> None:
        try:
            while not self.stopping:
                ws = None
                try:
                    self.ws = ws = await websockets.connect(
                        self.url,
                        additional_headers=self.handshake_headers(),
                        open_timeout=WAIT,
                        close_timeout=2,
                    )
                    async for raw in ws:
                        self.messages.append((now_ms(), json.loads(raw)))
                        self.arrived.set()
                except (OSError, websockets.WebSocketException, TimeoutError):
                    pass
                code = ws.close_code if ws is not None else None
                self.closes.append((now_ms(), code))
                if not self.reconnect or code in FINAL_CLOSE_CODES:
                    return
                self.arrived.set()
                await asyncio.sleep(self.RETRY_SECONDS)
        finally:
            self.final = True
            self.arrived.set()

    async def closed(self, timeout: float = WAIT) -> int | None:
        """Wait until the socket is closed for good (by the server, or a dead process);
        returns its close code."""
        assert self.runner is not None, f"{self.name}: never opened"
        await asyncio.wait_for(asyncio.shield(self.runner), timeout)
        return self.closes[-1][1]

    async def send(self, message: dict) -> bool:
        """Send if the socket is open; False when it is down (a reconnect may be on its way)."""
        try:
            await self.ws.send(json.dumps(message))
            return True
        except (websockets.ConnectionClosed, AttributeError):
            return False

    async def request(self, message: dict, timeout: float = WAIT) -> dict:
        """Send with a fresh request_id; the answer that echoes it."""
        request_id = uuid.uuid4().hex
        mark = len(self.messages)
        if not await self.send({**message, "request_id": request_id}):
            raise AssertionError(f"{self.name}: socket down, could not send {message}")
        return await self.answer(request_id, mark, timeout, str(message))

    async def answer(self, request_id: str, after: int, timeout: float, what: str) -> dict:
        """The reply that echoes ``request_id``, at index ``after`` or later."""

        def echoes(reply: dict) -> bool:
            return reply.get("request_id") == request_id

        return (await self.first(echoes, after, timeout, what))[1]

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

        return await self.first(wanted, after, timeout, kind)

    async def first(
        self, wanted: Callable[[dict], bool], after: int, timeout: float, what: str
    ) -> tuple[int, dict]:
        """The first message at index ``after`` or later that ``wanted`` accepts, with its
        arrival time."""
        deadline = time.monotonic() + timeout
        while True:
            for arrived, message in self.messages[after:]:
                if wanted(message):
                    return arrived, message
            if self.final:
                raise AssertionError(f"{self.name}: closed for good waiting for {what}")
            left = deadline - time.monotonic()
            if left <= 0:
                seen = [m["type"] for _, m in self.messages[after:]]
                raise AssertionError(f"{self.name}: no {what} within {timeout} s; saw {seen}")
            self.arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.arrived.wait(), left)

    async def wait_until(self, check: Callable[[], bool], timeout: float, what: str) -> None:
        """Wait until ``check()`` holds (it is tried on every message and every drop)."""
        deadline = time.monotonic() + timeout
        while not check():
            left = deadline - time.monotonic()
            if left <= 0:
                seen = [m["type"] for _, m in self.messages[-20:]]
                raise AssertionError(f"{self.name}: not {what} within {timeout} s; last {seen}")
            self.arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.arrived.wait(), min(left, 0.5))

    async def wait_round_ended(self, number: int, after: int, timeout: float, what: str) -> None:
        """Wait until this client knows round ``number`` ended, from message ``after`` on
        (``learned_round_ended``)."""
        await self.wait_until(
            lambda: self.learned_round_ended(number, after) is not None, timeout, what
        )

    def count(self, kind: str, after: int = 0) -> int:
        """How many messages of ``kind`` came at index ``after`` or later."""
        return sum(1 for _, message in self.messages[after:] if message["type"] == kind)

    def learned_round_ended(self, number: int, after: int = 0) -> int | None:
        """When (ms) this client first knew round ``number`` had ended: its ``round.ended``
        event, or a ``state`` (sent on every connect: the sync after a reconnect) showing it
        ended or a later round. None if it never did."""
        for arrived, message in self.messages[after:]:
            if message["type"] == "round.ended":
                if message["scores"]["round"]["number"] >= number:
                    return arrived
            elif message["type"] == "state":
                round_ = message["state"].get("round")
                if round_ and (
                    round_["number"] > number
                    or (round_["number"] == number and round_["status"] == "ended")
                ):
                    return arrived
        return None

    async def close(self) -> None:
        self.stopping = True
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        if self.runner is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.runner, WAIT)


# ---------------------------------------------------------------- rooms and rounds


async def open_room(
    site: Stack,
    players: int | Sequence[str],
    round_seconds: int = 30,
    *,
    reconnect: bool = True,
) -> tuple[str, list[Client]]:
    """A room of ``players`` (a number: nicknamed P0, P1, ...; or their nicknames) whose
    host, the first, is on A; the others join alternately through B and A, each with a
    socket on the process they joined through (as behind the proxy). The sockets open one
    after the other, so no player's arrival is announced after this returns."""
    nicknames = [f"P{i}" for i in range(players)] if isinstance(players, int) else players
    status, created = await asyncio.to_thread(
        http,
        site.http_url("A"),
        "POST",
        "/api/rooms",
        {"nickname": nicknames[0], "settings": {"round_seconds": round_seconds}},
    )
    assert status == 201, created
    code = created["room"]["code"]
    joined = [("A", created)]
    for index, nickname in enumerate(nicknames[1:], start=1):
        web = "B" if index % 2 else "A"
        status, body = await asyncio.to_thread(
            http, site.http_url(web), "POST", f"/api/rooms/{code}/join", {"nickname": nickname}
        )
        assert status == 201, body
        joined.append((web, body))
    clients = [
        Client(
            f"{code}/{nickname}@{web}",
            site.ws_url(web, code),
            body["player"]["id"],
            body["player"]["token"],
            reconnect=reconnect,
        )
        for nickname, (web, body) in zip(nicknames, joined, strict=True)
    ]
    for client in clients:
        await client.open()
    return code, clients


def solve_round(round_: dict) -> dict[str, int]:
    """The round's words and their points, solved here as the server does."""
    from solver import dictionaries, parse_board, solve

    word_list = dictionaries.load(round_["dictionary"])
    found = solve(parse_board(round_["board"]), word_list, round_["min_length"]).words
    return {w.word: w.points for w in found}


async def start_round(
    host: Client, others: list[Client], min_words: int = 8
) -> tuple[dict, list[str]]:
    """Start rounds until the board has at least ``min_words`` words (rolled boards rarely
    have fewer); returns the round (as ``round.started`` gave it, the same to everyone) and
    its words."""
    players = (host, *others)
    for _ in range(8):
        marks = [len(p.messages) for p in players]
        ok = await host.request({"type": "start_round"})
        assert ok["type"] == "ok", ok
        started = [
            (await p.wait_for("round.started", after=mark))["round"]
            for p, mark in zip(players, marks, strict=True)
        ]
        round_ = started[0]
        assert all(r == round_ for r in started), started
        words = list(solve_round(round_))
        if len(words) >= min_words:
            return round_, words
        assert (await host.request({"type": "end_round"}))["type"] == "ok"
        await asyncio.gather(
            *(p.wait_for("round.ended", after=m) for p, m in zip(players, marks, strict=True))
        )
    raise AssertionError(f"eight boards in a row with under {min_words} words")


async def wait_for_start(round_: dict) -> None:
    """Sleep through the countdown (same machine: no clock offset to apply)."""
    await asyncio.sleep(max(round_["starts_at"] / 1000 - time.time(), 0) + 0.05)


def shorten_round(database_url: str, code: str, number: int, seconds: float) -> tuple[int, int]:
    """Move the round's deadline to ``seconds`` after its countdown (or now).

    Rounds last at least 30 s (the API refuses shorter ones), far too long for a test. The
    web processes' deadline watchers read ``ends_at`` from the database every 0.25 s, so
    moving it makes them end the round through the real path. The worker's ``end_round``
    task for the original deadline comes later and finds the round ended (it is
    idempotent). Clients are not told of the new deadline: a test measures against the
    returned value. Returns the round's id and its new deadline in ms since the epoch.
    """
    with psycopg.connect(database_url, autocommit=True, connect_timeout=5) as connection:
        row = connection.execute(
            """
            update games_round set ends_at = greatest(now(), starts_at) + %s * interval '1 second'
            where number = %s and room_id = (select id from games_room where code = %s)
            returning id, ends_at
            """,
            (seconds, number, code),
        ).fetchone()
    assert row is not None, (code, number)
    return row[0], int(row[1].timestamp() * 1000)


def database_round(database_url: str, code: str, number: int) -> dict:
    """The round as stored (times in ms since the epoch) and its submissions, to check
    against what the clients were told."""
    with psycopg.connect(database_url, connect_timeout=5) as connection:
        row = connection.execute(
            """
            select r.status, r.ended_at, r.ends_at, r.id, r.created_at, r.starts_at
            from games_round r join games_room m on m.id = r.room_id
            where m.code = %s and r.number = %s
            """,
            (code, number),
        ).fetchone()
        assert row is not None, (code, number)
        status, ended_at, ends_at, round_id, created_at, starts_at = row
        submissions = connection.execute(
            "select player_id, word, verdict, client_id, points, cancelled from games_submission"
            " where round_id = %s order by id",
            (round_id,),
        ).fetchall()

    def ms(value: datetime | None) -> int | None:
        return int(value.timestamp() * 1000) if value else None

    return {
        "id": round_id,
        "status": status,
        "created_at": ms(created_at),
        "starts_at": ms(starts_at),
        "ended_at": ms(ended_at),
        "ends_at": ms(ends_at),
        "submissions": submissions,
    }


async def round_results(site: Stack, code: str, number: int, web: str = "B") -> dict:
    """The round's results as the HTTP API of web process ``web`` gives them."""
    status, body = await asyncio.to_thread(
        http, site.http_url(web), "GET", f"/api/rooms/{code}/rounds/{number}"
    )
    assert status == 200, body
    return body["results"]
