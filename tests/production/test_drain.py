"""A web process as the units and the supervisor run it (``production.run daphne PORT``):
no port before it is ready, and a drain on SIGTERM that hands its sockets over (close 1012)
and loses no word (docs/operations.md, "Stopping and draining").

Real processes on a throwaway PostgreSQL database and Redis keys of the test's own.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import shutil
import signal
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from production import run, serve
from tests.servers import throwaway_postgres_database
from tests.stack import (
    SOLO_WORKER,
    WAIT,
    Client,
    Process,
    Stack,
    database_round,
    http,
    poll_until,
    start_round,
    wait_for_start,
)
from web.network import free_ports

pytestmark = pytest.mark.integration

SERVICE_RESTART = 1012
# The drain's bound (production.serve.DRAIN_SECONDS) and the grace after it: a process
# still running past this never drained.
EXIT_WITHIN = 8.0 + 2.0 + 5.0


class ServeStack(Stack):
    """Two web processes started with the production command line (``production.run``),
    and a Celery worker; no beat."""

    def web_process(self, name: str, port: int, env: dict[str, str] | None = None) -> Process:
        return Process(
            f"daphne-{name}",
            run.command("daphne", str(port)),
            env or self.env,
            self.workdir / f"daphne-{name}.log",
        )

    def start(self) -> None:
        self.setup()
        for name, port in zip(("A", "B"), free_ports(2), strict=True):
            self.ports[name] = port
            self.web[name] = self.web_process(name, port).start()
        self.start_worker()
        for name in self.web:
            poll_until(functools.partial(self._web_ready, name), f"daphne {name}")
        self.wait_worker_ready(self.workers[-1])


@pytest.fixture
def stack(
    postgres_url: str, redis_url: str, redis_prefix: str, tmp_path: Path
) -> Iterator[ServeStack]:
    with throwaway_postgres_database(postgres_url) as database_url:
        site = ServeStack(
            database_url,
            redis_url,
            tmp_path,
            beat=False,
            worker_options=SOLO_WORKER,
            redis_prefix=redis_prefix,
        )
        try:
            site.start()
            yield site
        finally:
            site.stop()
            site.print_logs()


def listening(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        return True
    return False


async def test_sigterm_hands_the_sockets_over_with_1012_and_loses_no_word(
    stack: ServeStack,
) -> None:
    """Two players on A mid-round; a word sent just before A gets SIGTERM is answered on its
    socket and stored; both sockets close with 1012, not 1006; A exits 0 within its bound;
    B, started before, takes both players back and the round goes on."""
    status, created = await asyncio.to_thread(
        http, stack.http_url("A"), "POST", "/api/rooms", {"nickname": "Ann"}
    )
    assert status == 201, created
    code = created["room"]["code"]
    status, joined = await asyncio.to_thread(
        http, stack.http_url("A"), "POST", f"/api/rooms/{code}/join", {"nickname": "Bob"}
    )
    assert status == 201, joined
    ann, bob = (
        Client(
            f"{code}/{body['player']['id']}",
            stack.ws_url("A", code),
            body["player"]["id"],
            body["player"]["token"],
            reconnect=False,  # each drop is seen; the test reconnects by hand, to B
        )
        for body in (created, joined)
    )
    await ann.open()
    await bob.open()
    try:
        round_, words = await start_round(ann, [bob], min_words=4)
        await wait_for_start(round_)
        first = await ann.request({"type": "submit", "word": words[0], "client_id": "a-1"})
        assert first["verdict"] == "accepted", first

        mark = len(bob.messages)
        sent = await bob.send(
            {"type": "submit", "word": words[1], "client_id": "b-1", "request_id": "last"}
        )
        assert sent
        daphne_a = stack.web["A"]
        assert daphne_a.popen is not None
        daphne_a.popen.send_signal(signal.SIGTERM)

        answer = await bob.answer("last", mark, WAIT, "the verdict of the word sent last")
        assert answer["verdict"] == "accepted", answer
        assert await bob.closed() == SERVICE_RESTART
        assert await ann.closed() == SERVICE_RESTART
        poll_until(lambda: not daphne_a.running, "daphne A exits", timeout=EXIT_WITHIN)
        assert daphne_a.returncode == 0, daphne_a.output()[-3000:]
        assert not listening(stack.ports["A"])

        for client in (ann, bob):
            client.url = stack.ws_url("B", code)
            state = (await client.open())["state"]
            assert state["round"]["number"] == round_["number"], state["round"]
            assert state["round"]["status"] == "running", state["round"]
        kept = {entry["client_id"] for entry in state["my_words"]}
        assert "b-1" in kept, state["my_words"]
        again = await bob.request({"type": "submit", "word": words[2], "client_id": "b-2"})
        assert again["verdict"] == "accepted", again
        await ann.wait_for("round.counts", counts={str(ann.id): 1, str(bob.id): 2})
    finally:
        await ann.close()
        await bob.close()
    stored = await asyncio.to_thread(database_round, stack.database_url, code, round_["number"])
    entries = {(player, word) for player, word, *_ in stored["submissions"]}
    assert {(ann.id, words[0]), (bob.id, words[1]), (bob.id, words[2])} <= entries, entries
    assert "Traceback" not in daphne_a.output(), daphne_a.output()


@contextlib.contextmanager
def notify_socket() -> Iterator[tuple[socket.socket, str]]:
    """A unix datagram socket standing in for systemd's (``NOTIFY_SOCKET``); a short path."""
    directory = tempfile.mkdtemp(prefix="notify-")
    path = os.path.join(directory, "sd")
    receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        receiver.bind(path)
        receiver.setblocking(False)
        yield receiver, path
    finally:
        receiver.close()
        shutil.rmtree(directory, ignore_errors=True)


def notices(receiver: socket.socket, seen: list[str]) -> list[str]:
    with contextlib.suppress(BlockingIOError):
        while True:
            seen.append(receiver.recv(4096).decode())
    return seen


def test_the_port_opens_only_once_the_process_is_ready(
    postgres_url: str, redis_url: str, redis_prefix: str, tmp_path: Path
) -> None:
    """A web process whose database is not there yet loads the application and waits for it
    with its port closed (a proxy sends the request elsewhere), and says READY=1 to systemd
    only once listening; SIGTERM then says STOPPING=1 and it exits 0."""
    with throwaway_postgres_database(postgres_url) as template_url:
        site = ServeStack(template_url, redis_url, tmp_path, redis_prefix=redis_prefix)
        site.setup()  # a migrated database, copied below when the process is waiting
        later = template_url.rsplit("/", 1)[1] + "_later"
        port = free_ports(1)[0]
        seen: list[str] = []
        with notify_socket() as (receiver, path):
            env = site.env | {
                "DATABASE_URL": template_url.rsplit("/", 1)[0] + "/" + later,
                "NOTIFY_SOCKET": path,
            }
            process = site.web_process("A", port, env).start()
            try:

                def up_or_waiting() -> bool:
                    assert process.running, process.output()
                    return listening(port) or "waiting for the database" in process.output()

                poll_until(up_or_waiting, "the process listens or waits for its database")
                assert not listening(port), "listening before its database answered"
                assert "READY=1" not in notices(receiver, seen)

                with psycopg.connect(postgres_url, autocommit=True) as connection:
                    connection.execute(
                        sql.SQL("create database {} template {}").format(
                            sql.Identifier(later), sql.Identifier(template_url.rsplit("/", 1)[1])
                        )
                    )
                poll_until(lambda: listening(port), "the process listens", timeout=60)
                # A crowd's connections opened at once wait in the kernel, not refused.
                assert listen_backlog(port) >= min(serve.LISTEN_BACKLOG, somaxconn())
                poll_until(lambda: "READY=1" in notices(receiver, seen), "READY=1")
                assert "warm" in process.output() or "word lists loaded" in process.output()

                assert process.popen is not None
                process.popen.send_signal(signal.SIGTERM)
                process.popen.wait(timeout=EXIT_WITHIN)
                assert process.returncode == 0, process.output()[-3000:]
                assert "STOPPING=1" in notices(receiver, seen)
            finally:
                process.stop()
                print(process.output()[-5000:])
                with psycopg.connect(postgres_url, autocommit=True) as connection:
                    connection.execute(
                        sql.SQL("drop database if exists {} with (force)").format(
                            sql.Identifier(later)
                        )
                    )


def listen_backlog(port: int) -> int:
    """The backlog of the socket listening on ``port`` (ss's Send-Q for a listener)."""
    lines = subprocess.run(
        ["ss", "-ltnH", f"sport = :{port}"], capture_output=True, text=True, check=True
    ).stdout.split()
    return int(lines[2])


def somaxconn() -> int:
    return int(Path("/proc/sys/net/core/somaxconn").read_text())
