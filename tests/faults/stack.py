"""The production stack for the fault tests, on private servers the tests may break.

A private Redis (``redis-server`` on a free port, no persistence, as a restart of a cache
without a disk would be) that a test kills and starts again on the same port; for the
PostgreSQL fault a private cluster (``initdb`` + ``pg_ctl``) that a test restarts. The
shared services on 6379 and 5432 are never touched: other test runs use them. On top, the
site as in production: two Daphne processes ("A" and "B"), a Celery worker and beat, each a
subprocess with the production environment.

A copy of the ideas in tests/games/test_integration_production.py, kept apart so that the
two evolve separately; the clients here also behave like the site's page after a drop
(reconnect, then the ``state`` the server sends on connect is the sync).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import redis
import websockets
from psycopg import sql

REPO_ROOT = Path(__file__).resolve().parents[2]
# Bound on any single wait for a process, a reply or an event (seconds).
WAIT = 30.0
DAPHNE = [sys.executable, "-m", "daphne"]
CELERY = [sys.executable, "-m", "celery", "-A", "boggle_site"]
REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
# Close codes after which the site's page does not reconnect (docs/api.md, "Close codes").
FINAL_CLOSE_CODES = {1000, 4001, 4403, 4404}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def wait_for(ready, what: str, timeout: float = WAIT, interval: float = 0.05) -> float:
    """Poll ``ready()`` until true; returns the monotonic time it became true."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ready():
            return time.monotonic()
        time.sleep(interval)
    raise AssertionError(f"{what}: not within {timeout} s")


# ---------------------------------------------------------------- processes


@dataclass
class Process:
    """A subprocess writing stdout and stderr to one log file (appended across restarts)."""

    name: str
    args: list[str]
    env: dict[str, str]
    log: Path
    popen: subprocess.Popen | None = None

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

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def kill(self) -> None:
        """SIGKILL the process and every process of its group (a worker's pool children)."""
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


class RedisServer:
    """A private redis-server on a fixed free port, without persistence: a restart loses
    everything (groups, queued messages, unacknowledged tasks), the worst case."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.workdir = workdir
        self.process = Process(
            "redis",
            [
                REDIS_SERVER,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(workdir),
            ],
            dict(os.environ),
            workdir / "redis.log",
        )

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> float:
        """Start (again, on the same port); returns the monotonic time it answers."""
        self.process.start()
        return wait_for(self._answers, "private redis-server", interval=0.02)

    def _answers(self) -> bool:
        if not self.process.running:
            raise AssertionError(f"redis-server exited:\n{self.process.output()}")
        try:
            with redis.Redis(port=self.port, socket_timeout=1) as client:
                return bool(client.ping())
        except redis.RedisError:
            return False

    def kill(self) -> None:
        """Gone at once, as a crashed or OOM-killed server: no clean shutdown."""
        self.process.kill()
        wait_for(lambda: not port_open(self.port), "redis port closed")

    def restart(self, down_seconds: float = 0.0) -> float:
        self.kill()
        time.sleep(down_seconds)
        return self.start()

    def stop(self) -> None:
        self.process.stop()


class PostgresCluster:
    """A private PostgreSQL cluster (initdb, pg_ctl) on a free port: restartable."""

    def __init__(self) -> None:
        self.port = free_port()
        # Not under pytest's tmp_path: its parents are private to root, and the server runs
        # as ``postgres`` when the tests run as root.
        self.dir = Path(tempfile.mkdtemp(prefix="boggle-pg-"))
        self.data = self.dir / "data"
        self.log = self.dir / "postgres.log"
        self.as_root = os.geteuid() == 0

    @staticmethod
    def missing() -> str | None:
        for binary in ("initdb", "pg_ctl"):
            if shutil.which(binary) is None:
                return f"{binary} not on PATH: cannot start a private PostgreSQL"
        if os.geteuid() == 0 and shutil.which("runuser") is None:
            return "running as root without runuser: cannot start PostgreSQL as postgres"
        return None

    def _run(self, *args: str) -> None:
        command = list(args)
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 0, f"{command}:\n{done.stdout}{done.stderr}\n{self.output()}"

    def init(self) -> None:
        if self.as_root:
            shutil.chown(self.dir, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync")

    def start(self) -> None:
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "start")

    def restart(self) -> float:
        """``pg_ctl restart -m fast``: every connection is dropped; returns when it answers."""
        # -l again: without it the new server would keep pg_ctl's output pipe open.
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.log), "-m", "fast", "-w", "restart"
        )
        return wait_for(lambda: port_open(self.port), "private PostgreSQL back")

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            with contextlib.suppress(AssertionError, subprocess.TimeoutExpired):
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.dir, ignore_errors=True)

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"


def create_database(server_url: str) -> str:
    """A throwaway database on the server; returns its URL."""
    name = f"boggle_fault_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True, connect_timeout=5) as connection:
        connection.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
    return server_url.rsplit("/", 1)[0] + "/" + name


def drop_database(server_url: str, database_url: str) -> None:
    name = database_url.rsplit("/", 1)[1]
    with (
        contextlib.suppress(psycopg.Error),
        psycopg.connect(server_url, autocommit=True, connect_timeout=5) as connection,
    ):
        connection.execute(
            sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name))
        )


@dataclass
class Stack:
    """The site: two Daphnes, a worker and beat, on the given database and Redis."""

    database_url: str
    redis_url: str
    workdir: Path
    env: dict[str, str] = field(default_factory=dict)
    web: dict[str, Process] = field(default_factory=dict)
    ports: dict[str, int] = field(default_factory=dict)
    workers: list[Process] = field(default_factory=list)
    beat: Process | None = None

    def __post_init__(self) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "BOGGLE_"))}
        env.pop("REDIS_URL", None)
        env.pop("DATABASE_URL", None)
        self.env = env | {
            "DATABASE_URL": self.database_url,
            "REDIS_URL": self.redis_url,
            "DJANGO_SECRET_KEY": "test-only-key",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DJANGO_SETTINGS_MODULE": "boggle_site.settings",
            "BOGGLE_DICTIONARY_DIR": str(REPO_ROOT / "var" / "dictionaries"),
            "PYTHONUNBUFFERED": "1",
        }

    @property
    def processes(self) -> list[Process]:
        return [*self.web.values(), *self.workers, *([self.beat] if self.beat else [])]

    def http_url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.ports[name]}"

    def ws_url(self, name: str, code: str, token: str) -> str:
        return f"ws://127.0.0.1:{self.ports[name]}/ws/rooms/{code}/?token={token}"

    def setup(self) -> None:
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
        self.setup()
        for name in ("A", "B"):
            port = self.ports[name] = free_port()
            self.web[name] = Process(
                f"daphne-{name}",
                [*DAPHNE, "-b", "127.0.0.1", "-p", str(port), "boggle_site.asgi:application"],
                self.env,
                self.workdir / f"daphne-{name}.log",
            ).start()
        self.start_worker()
        self.beat = Process(
            "beat",
            [*CELERY, "beat", "-l", "info", "-s", str(self.workdir / "beat-schedule")],
            self.env,
            self.workdir / "beat.log",
        ).start()
        for name in self.web:
            url = f"{self.http_url(name)}/api/dictionaries"
            wait_for(lambda url=url, name=name: self._web_ready(name, url), f"daphne {name}")
        self.wait_worker_ready(self.workers[-1])

    def start_worker(self) -> Process:
        """A worker as in production (prefork pool), its log appended to celery-N.log."""
        worker = Process(
            f"celery-{len(self.workers) + 1}",
            [*CELERY, "worker", "-l", "info", "--concurrency", "2", "--without-mingle"],
            self.env,
            self.workdir / f"celery-{len(self.workers) + 1}.log",
        ).start()
        self.workers.append(worker)
        return worker

    def wait_worker_ready(self, worker: Process) -> None:
        def ready() -> bool:
            if not worker.running:
                raise AssertionError(f"{worker.name} exited:\n{worker.output()[-5000:]}")
            return " ready." in worker.output()

        wait_for(ready, worker.name)

    def _web_ready(self, name: str, url: str) -> bool:
        process = self.web[name]
        if not process.running:
            raise AssertionError(f"{process.name} exited early:\n{process.output()}")
        return answers_http(url)

    def stop(self) -> None:
        # Let the servers finish handling the clients' disconnects first: a Daphne that gets
        # SIGTERM in the middle of one may never exit.
        time.sleep(0.3)
        for process in self.processes:
            process.stop()

    def print_logs(self) -> None:
        for process in self.processes:
            code = process.popen.returncode if process.popen else None
            print(f"\n===== {process.name} (exit {code}) =====")
            print(process.output()[-15000:])


def answers_http(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as response:
            return response.status == 200
    except (OSError, urllib.error.URLError):
        return False


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


class Client:
    """A player's websocket, behaving like the site's page: every message is recorded with
    its arrival time (ms); after a drop with a code that allows it, it reconnects (first
    after ``RETRY_SECONDS``, as the page's backoff starts at about a second) and the
    ``state`` the server sends on connect is its sync."""

    RETRY_SECONDS = 1.0

    def __init__(self, name: str, url: str, player_id: int, token: str) -> None:
        self.name = name
        self.url = url
        self.id = player_id
        self.token = token
        self.messages: list[tuple[int, dict]] = []
        self.closes: list[tuple[int, int | None]] = []  # (ms, code) of each drop
        self.arrived = asyncio.Event()
        self.ws: Any = None
        self.runner: asyncio.Task | None = None
        self.stopping = False
        self.final = False

    async def open(self) -> dict:
        """Connect (and keep reconnecting after drops); returns the first state."""
        mark = len(self.messages)
        self.runner = asyncio.create_task(self._run())
        return await self.wait_for("state", after=mark)

    async def _run(self) -> None:
        while not self.stopping:
            try:
                self.ws = await websockets.connect(self.url, open_timeout=WAIT, close_timeout=2)
                async for raw in self.ws:
                    self.messages.append((now_ms(), json.loads(raw)))
                    self.arrived.set()
                code = self.ws.close_code
            except (OSError, websockets.WebSocketException, TimeoutError):
                code = self.ws.close_code if self.ws is not None else None
            self.closes.append((now_ms(), code))
            self.arrived.set()
            if self.stopping or code in FINAL_CLOSE_CODES:
                self.final = code in FINAL_CLOSE_CODES
                return
            await asyncio.sleep(self.RETRY_SECONDS)

    async def send(self, message: dict) -> bool:
        """Send if the socket is open; False when it is down (a reconnect is on its way)."""
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
        return (
            await self.first(
                lambda reply: reply.get("request_id") == request_id, mark, timeout, str(message)
            )
        )[1]

    async def wait_for(self, kind: str, after: int = 0, timeout: float = WAIT, **match) -> dict:
        def wanted(message: dict) -> bool:
            return message["type"] == kind and all(message.get(k) == v for k, v in match.items())

        return (await self.first(wanted, after, timeout, kind))[1]

    async def first(self, wanted, after: int, timeout: float, what: str) -> tuple[int, dict]:
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

    async def wait_until(self, check, timeout: float, what: str) -> None:
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

    def learned_round_ended(self, number: int, after: int = 0) -> int | None:
        """When (ms) this client first knew round ``number`` had ended: its ``round.ended``
        event, or a ``state`` (sent on every connect: the sync after a reconnect) showing it
        ended or a later round. None if it never did."""
        for arrived, message in self.messages[after:]:
            if message["type"] == "round.ended":
                if message["results"]["round"]["number"] >= number:
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


def now_ms() -> int:
    return int(time.time() * 1000)


async def open_room(site: Stack, players: int, round_seconds: int = 30) -> tuple[str, list[Client]]:
    """A room whose host is on A; the others join alternately through B and A, each with a
    socket on the process they joined through (as behind the proxy)."""
    status, created = await asyncio.to_thread(
        http,
        site.http_url("A"),
        "POST",
        "/api/rooms",
        {"nickname": "P0", "settings": {"round_seconds": round_seconds}},
    )
    assert status == 201, created
    code = created["room"]["code"]
    joined = [("A", created)]
    for index in range(1, players):
        web = "B" if index % 2 else "A"
        status, body = await asyncio.to_thread(
            http, site.http_url(web), "POST", f"/api/rooms/{code}/join", {"nickname": f"P{index}"}
        )
        assert status == 201, body
        joined.append((web, body))
    clients = [
        Client(
            f"{code}/P{index}@{web}",
            site.ws_url(web, code, body["player"]["token"]),
            body["player"]["id"],
            body["player"]["token"],
        )
        for index, (web, body) in enumerate(joined)
    ]
    await asyncio.gather(*(client.open() for client in clients))
    return code, clients


def shorten_round(database_url: str, code: str, number: int, seconds: float) -> tuple[int, int]:
    """Move the round's deadline to ``seconds`` after its countdown (or now), as in
    tests/games/test_integration_production.py: rounds last at least 30 s (the API refuses
    shorter ones) and the web processes' deadline watchers read ``ends_at`` from the
    database every 0.25 s. The worker's ``end_round`` task for the original deadline comes
    later and finds the round ended (it is idempotent). Returns the round's id and its new
    deadline in ms since the epoch."""
    with psycopg.connect(database_url, autocommit=True, connect_timeout=5) as connection:
        row = connection.execute(
            """
            update games_round set ends_at = greatest(now(), starts_at) + %s * interval '1 second'
            where number = %s and room_id = (select id from games_room where code = %s)
            returning id, ends_at
            """,
            (seconds, number, code),
        ).fetchone()
    assert row is not None
    return row[0], int(row[1].timestamp() * 1000)


def database_round(database_url: str, code: str, number: int) -> dict:
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

    def ms(value) -> int | None:
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


# ---------------------------------------------------------------- playing


async def start_round(
    host: Client, others: list[Client], min_words: int = 8
) -> tuple[dict, list[str]]:
    """Start rounds until the board has at least ``min_words`` words; returns the round (as
    ``round.started`` gave it to everyone) and its words, solved here."""
    from solver import dictionaries, parse_board, solve

    for _ in range(8):
        marks = [len(p.messages) for p in (host, *others)]
        ok = await host.request({"type": "start_round"})
        assert ok["type"] == "ok", ok
        started = [
            (await p.wait_for("round.started", after=mark))["round"]
            for p, mark in zip((host, *others), marks, strict=True)
        ]
        round_ = started[0]
        assert all(r["number"] == round_["number"] for r in started)
        lexicon = dictionaries.load(round_["dictionary"])
        found = solve(parse_board(round_["board"]), lexicon, round_["min_length"]).words
        if len(found) >= min_words:
            return round_, [w.word for w in found]
        assert (await host.request({"type": "end_round"}))["type"] == "ok"
        await asyncio.gather(
            *(
                p.wait_for("round.ended", after=m)
                for p, m in zip((host, *others), marks, strict=True)
            )
        )
    raise AssertionError(f"eight boards in a row with under {min_words} words")


@dataclass
class Entry:
    """A word a player sent: its verdicts (one per try) and how many tries it took."""

    client: Client
    word: str
    client_id: str
    verdicts: list[str] = field(default_factory=list)

    @property
    def accepted(self) -> bool:
        return "accepted" in self.verdicts


async def submit(client: Client, word: str, client_id: str, tries: int = 6) -> Entry:
    """Send a word until it gets a verdict, as the site's page does: an entry answered
    ``server_error``, or unanswered when its socket dropped, is sent again with the same
    client_id (the server stores it once)."""
    entry = Entry(client, word, client_id)
    for _ in range(tries):
        mark = len(client.messages)
        request_id = uuid.uuid4().hex
        if not await client.send(
            {"type": "submit", "word": word, "client_id": client_id, "request_id": request_id}
        ):
            await asyncio.sleep(0.2)  # the socket is reconnecting
            continue
        try:
            _, reply = await client.first(
                lambda m, r=request_id: m.get("request_id") == r, mark, 5.0, f"verdict {word}"
            )
        except AssertionError:
            entry.verdicts.append("no answer")
            continue
        verdict = reply.get("verdict") or reply.get("code") or reply["type"]
        entry.verdicts.append(verdict)
        if verdict != "server_error":
            return entry
        await asyncio.sleep(0.2)
    return entry


async def play(client: Client, words: list[str], until_ms: int, every: float = 0.3) -> list[Entry]:
    """Send the words one after another (each until answered) until ``until_ms``."""
    entries = []
    for index, word in enumerate(words):
        if now_ms() >= until_ms:
            break
        entries.append(await submit(client, word, f"{client.name}#{index}"))
        await asyncio.sleep(every)
    return entries


def check_no_word_lost(results: dict, entries: list[Entry]) -> int:
    """Every entry answered ``accepted`` is among its player's words in the results; returns
    how many were accepted."""
    words = {p["id"]: {w["word"] for w in p["words"]} for p in results["players"]}
    lost = [
        (e.client.name, e.word, e.verdicts)
        for e in entries
        if e.accepted and e.word not in words.get(e.client.id, set())
    ]
    assert not lost, f"accepted but missing from the results: {lost}"
    return sum(e.accepted for e in entries)


async def round_results(site: Stack, code: str, number: int) -> dict:
    status, body = await asyncio.to_thread(
        http, site.http_url("B"), "GET", f"/api/rooms/{code}/rounds/{number}"
    )
    assert status == 200, body
    return body["results"]
