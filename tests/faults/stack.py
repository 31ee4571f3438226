"""What only the fault tests need: private servers to break, and players who play on.

A private Redis (``redis-server`` on a free port, no persistence, as a restart of a cache
without a disk would be) that a test kills and starts again on the same port; for the
PostgreSQL fault a private cluster (``initdb`` + ``pg_ctl``) that a test restarts. The
shared services on 6379 and 5432 are never touched: other test runs use them. The site on
top of them, and the players' clients, are tests/stack.py's (as for the production
integration tests); here are the players' habits through a fault: a word answered
``server_error`` or not at all is sent again with the same client_id, as the site's page
does.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import redis

from tests.stack import Client, Process, Stack, now_ms, poll_until, shorten_round, start_round
from web.network import free_port

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


def port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


# ---------------------------------------------------------------- private servers


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
        return poll_until(self._answers, "private redis-server", interval=0.02)

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
        poll_until(lambda: not port_open(self.port), "redis port closed")

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
        return poll_until(lambda: port_open(self.port), "private PostgreSQL back")

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


# ---------------------------------------------------------------- playing through a fault


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
            reply = await client.answer(request_id, mark, 5.0, f"verdict {word}")
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
    entries: list[Entry] = []
    for index, word in enumerate(words):
        if now_ms() >= until_ms:
            break
        entries.append(await submit(client, word, f"{client.name}#{index}"))
        await asyncio.sleep(every)
    return entries


@dataclass
class ShortRound:
    """A round started in a room and shortened to end soon, its players playing."""

    number: int
    deadline: int  # ms since the epoch
    marks: list[int]  # each client's message count when play began
    games: list[asyncio.Task[list[Entry]]]

    async def entries(self) -> list[Entry]:
        """Every player's entries, once they have all stopped playing."""
        return [entry for game in await asyncio.gather(*self.games) for entry in game]


async def play_short_round(
    stack: Stack, code: str, clients: list[Client], seconds: float
) -> ShortRound:
    """Start a round (the first client hosts), end it ``seconds`` into play, and let every
    client play its share of the board's words until shortly before the end."""
    round_, words = await start_round(clients[0], clients[1:])
    number = round_["number"]
    _, deadline = await asyncio.to_thread(shorten_round, stack.database_url, code, number, seconds)
    await asyncio.sleep(max(round_["starts_at"] / 1000 - time.time(), 0) + 0.05)
    marks = [len(client.messages) for client in clients]
    share = len(clients)
    games = [
        asyncio.create_task(play(client, words[i::share] + words, deadline - 400))
        for i, client in enumerate(clients)
    ]
    return ShortRound(number, deadline, marks, games)


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
