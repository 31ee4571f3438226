"""Real nginx, with the site's rendered configuration, in front of fake Daphnes on loopback.

``FakeDaphnes`` are tiny HTTP servers that answer every request with their own name (and
echo the ``X-Request-Id`` nginx sent them); a request carrying ``Upgrade`` gets a 101 and
its connection stays open, as a websocket does. Stopping one closes its port and every
connection it holds, as a killed Daphne does: nginx then meets a refused connection.
``RunningNginx`` runs nginx in the foreground (``nginx_main``'s ``daemon off``) with its
access log on stdout, as ``bin/start --production`` runs it.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from production import render
from production.render import Site
from tests.deploy.tools import require_tool
from web.network import free_ports

WAIT_SECONDS = 10.0


def nginx_binary() -> str:
    return require_tool("nginx")


def wait_until(check: Callable[[], bool], what: str, timeout: float = WAIT_SECONDS) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


@dataclass
class FakeDaphne:
    name: str
    port: int
    server: asyncio.Server | None = None
    writers: set[asyncio.StreamWriter] = field(default_factory=set)

    async def start(self) -> None:
        self.server = await asyncio.start_server(
            self.serve, "127.0.0.1", self.port, reuse_address=True
        )

    async def stop(self) -> None:
        assert self.server is not None
        self.server.close()
        for writer in list(self.writers):  # a killed process's connections die with it
            writer.transport.abort()
        await self.server.wait_closed()
        self.server = None

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.writers.add(writer)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                headers = {
                    name.strip().lower(): value.strip()
                    for name, _, value in (
                        line.partition(":") for line in head.decode().split("\r\n")[1:] if line
                    )
                }
                if "upgrade" in headers:
                    writer.write(
                        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                        b"Connection: Upgrade\r\n\r\n" + self.name.encode()
                    )
                    await writer.drain()
                    while await reader.read(4096):  # held open until the peer closes
                        pass
                    return
                body = self.name.encode()
                request_id = headers.get("x-request-id", "")
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                    + f"X-Seen-Request-Id: {request_id}\r\n".encode()
                    + f"Content-Length: {len(body)}\r\n\r\n".encode()
                    + body
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.writers.discard(writer)
            writer.close()


class FakeDaphnes:
    """Named fake Daphnes on free loopback ports, served by one event loop in a thread."""

    def __init__(self, names: list[str]) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        ports = free_ports(len(names))
        self.daphnes = {
            name: FakeDaphne(name, port) for name, port in zip(names, ports, strict=True)
        }
        for name in names:
            self.start(name)

    @property
    def ports(self) -> tuple[int, ...]:
        return tuple(daphne.port for daphne in self.daphnes.values())

    def _run(self, coroutine: Coroutine[Any, Any, None]) -> None:
        asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(WAIT_SECONDS)

    def start(self, name: str) -> None:
        self._run(self.daphnes[name].start())

    def stop(self, name: str) -> None:
        self._run(self.daphnes[name].stop())

    def close(self) -> None:
        for daphne in self.daphnes.values():
            if daphne.server is not None:
                self._run(daphne.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(WAIT_SECONDS)


@dataclass
class Answer:
    status: int
    body: str
    headers: dict[str, str]


class RunningNginx:
    """nginx in the foreground with the site rendered for ``ports``, listening on a free
    loopback port; its stdout (the access log) in ``run_dir/stdout.log``."""

    def __init__(
        self,
        run_dir: Path,
        ports: tuple[int, ...],
        worker_shutdown_seconds: int = render.WORKER_SHUTDOWN_SECONDS,
    ) -> None:
        self.run_dir = run_dir
        self.port = free_ports(1)[0]
        (run_dir / "logs").mkdir(parents=True, exist_ok=True)
        (run_dir / "nginx").mkdir(exist_ok=True)
        site = Site(
            listen=f"127.0.0.1:{self.port}",
            daphne_ports=ports,
            access_log=render.STACK_ACCESS_LOG,
        )
        site_file = run_dir / "site.conf"
        site_file.write_text(render.nginx_site(site))
        self.main_file = run_dir / "nginx.conf"
        self.main_file.write_text(
            render.nginx_main(site_file, run_dir, os.geteuid() == 0, worker_shutdown_seconds)
        )
        self.stdout = run_dir / "stdout.log"
        command = [nginx_binary(), "-c", str(self.main_file), "-e", str(run_dir / "logs" / "e.log")]
        with self.stdout.open("wb") as out:
            self.process = subprocess.Popen(
                command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )
        wait_until(self.listening, "nginx to listen")

    def listening(self) -> bool:
        if self.process.poll() is not None:
            raise AssertionError(f"nginx exited:\n{self.output()}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 1):
            return True
        return False

    def output(self) -> str:
        return self.stdout.read_text(errors="replace")

    def get(self, path: str, headers: dict[str, str] | None = None) -> Answer:
        """One request on a connection of its own, as each new phone makes."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=WAIT_SECONDS)
        try:
            connection.request("GET", path, headers=headers or {})
            response = connection.getresponse()
            return Answer(
                response.status,
                response.read().decode(errors="replace"),
                {name.lower(): value for name, value in response.getheaders()},
            )
        finally:
            connection.close()

    def reload(self) -> None:
        self.process.send_signal(signal.SIGHUP)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(WAIT_SECONDS)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(WAIT_SECONDS)


@contextlib.contextmanager
def nginx_before(
    run_dir: Path, names: list[str], worker_shutdown_seconds: int = render.WORKER_SHUTDOWN_SECONDS
) -> Iterator[tuple[RunningNginx, FakeDaphnes]]:
    daphnes = FakeDaphnes(names)
    nginx = None
    try:
        nginx = RunningNginx(run_dir, daphnes.ports, worker_shutdown_seconds)
        yield nginx, daphnes
    finally:
        if nginx is not None:
            nginx.stop()
        daphnes.close()
