"""A Daphne of the site, run in this process: ready before it listens, drained when stopped.

    python -m production.serve -b 127.0.0.1 -p 8001 [--drain-seconds 8] [APPLICATION]

(``python -m production.run daphne PORT`` runs this.) Unlike Daphne's own command:

- **Ready before it listens.** The application is loaded (Django set up), the database
  answers (retried for up to ``DATABASE_WAIT_SECONDS``; a database that never does ends the
  process, and its supervisor starts it again) and the word lists and word frequencies a
  round needs are loaded (``games.warm_up``) before the port opens: until then a
  connection is refused, and nginx takes the request to another Daphne. Under systemd
  (``NOTIFY_SOCKET``) it says ``READY=1`` once listening.
- **Drained on SIGTERM** (or SIGINT): it stops listening, closes idle keep-alive
  connections, lets the requests in flight finish, and sends every open room socket
  elsewhere with close code 1012 once what it sent is answered (spread over 2 s), then
  writes the words still waiting (``games.draining``), and exits 0. ``--drain-seconds``
  bounds all that; past it, or on a second signal, the process exits at once with 1.

docs/operations.md, "Stopping and draining", has the rolling restart and its figures.
"""

from __future__ import annotations

# Twisted's reactor must be the asyncio one Daphne installs: before anything imports
# Twisted (as Daphne's own command does).
import daphne.server

# isort: split

import argparse
import asyncio
import faulthandler
import io
import logging
import os
import signal
import socket
import sys
import threading
import time
import weakref
from typing import Any, cast

from asgiref.compatibility import guarantee_single_callable
from daphne.endpoints import build_endpoint_description_strings
from daphne.utils import import_by_path
from twisted.internet import reactor

logger = logging.getLogger("production.serve")

APPLICATION = "boggle_site.asgi:application"
# The close code of a socket handed over by a drain (games.draining).
SERVICE_RESTART = 1012
# How long a stopping process may take to hand its sockets over and write its words; under
# the supervisor's stop timeout (systemd's TimeoutStopSec, supervisord's stopwaitsecs).
DRAIN_SECONDS = 8.0
# After the drain's bound, the process is ended even if its shutdown hangs.
EXIT_GRACE_SECONDS = 2.0
# How often a drain looks for what is left to finish (connections, requests).
DRAIN_POLL_SECONDS = 0.05
# How long a starting process waits for its database before it gives up (its supervisor
# starts it again), and how long between tries.
DATABASE_WAIT_SECONDS = 120.0
DATABASE_RETRY_SECONDS = 1.0
# Daphne's own defaults (its command line's), kept.
WEBSOCKET_CONNECT_SECONDS = 5
PING_INTERVAL_SECONDS = 20
PING_TIMEOUT_SECONDS = 30
APPLICATION_CLOSE_SECONDS = 10
# While draining: an application this long past its connection's close is cancelled.
CLOSED_APPLICATION_SECONDS = 1.0


def notify_systemd(state: str) -> None:
    """Tell systemd (``Type=notify``) of a state change, when it asked to be told."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return
    if address.startswith("@"):  # an abstract socket
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall(state.encode())
    except OSError as error:
        logger.warning("could not notify systemd of %s: %s", state, error)


# Connections the kernel holds for the process to accept (capped by net.core.somaxconn).
# Twisted's default, 50, overflowed when a crowd's sockets opened at once behind nginx:
# nginx gave up on each after its connect timeout and sent it to another web process,
# splitting rooms that its room affinity keeps on one (docs/performance.md).
LISTEN_BACKLOG = 1024


# ---------------------------------------------------------------- before listening


def load_application(path: str) -> Any:
    """The ASGI application (importing it sets Django up)."""
    sys.path.insert(0, ".")
    return guarantee_single_callable(import_by_path(path))


def database_answers() -> bool:
    """Whether the database takes a connection now (a fresh one, not the pool's: a pool waits
    its whole timeout for a database that is down)."""
    from django.db import DatabaseError, connection

    driver: Any = getattr(connection, "Database", None)  # the backend's DB-API module
    try:
        if connection.vendor == "postgresql":
            params = {**connection.get_connection_params(), "connect_timeout": 5}
            driver.connect(**params).close()
        else:
            connection.ensure_connection()
    except (DatabaseError, driver.Error) as error:
        # The driver's first line says why (refused, no such database); never a password.
        why = (str(error).strip().splitlines() or [""])[0]
        logger.warning("waiting for the database: %s %s", type(error).__name__, why)
        return False
    return True


def wait_for_database(timeout: float = DATABASE_WAIT_SECONDS) -> None:
    deadline = time.monotonic() + timeout
    while not database_answers():
        if time.monotonic() > deadline:
            raise SystemExit(f"production.serve: no database within {timeout:g} s; giving up")
        time.sleep(DATABASE_RETRY_SECONDS)


def warm_up() -> None:
    """What a process needs before its first request: the database, and what judging and
    preparing a round load the first time (the word lists, their languages' frequencies)."""
    from django.conf import settings
    from django.db import connection

    from games.warm_up import warm_round_preparation

    started = time.monotonic()
    wait_for_database()
    if getattr(settings, "GAMES_WARM_UP_ROUNDS", True):
        try:
            warmed = warm_round_preparation()
        except Exception:  # the first round loads what it needs itself, as before
            logger.exception("warming round preparation up failed; listening all the same")
        else:
            logger.info("word lists loaded: %s", ", ".join(warmed) or "no dictionary")
    # This thread becomes the event loop's, which never uses the database itself.
    connection.close()
    logger.info("ready in %.1f s", time.monotonic() - started)


# ---------------------------------------------------------------- the server


class DrainingServer(daphne.server.Server):
    """Daphne's server, which drains on SIGTERM instead of cutting its connections."""

    def __init__(self, *args: Any, drain_seconds: float = DRAIN_SECONDS, **kwargs: Any) -> None:
        super().__init__(*args, signal_handlers=False, ready_callable=self._listening, **kwargs)
        self.drain_seconds = drain_seconds
        self.ports: list[Any] = []  # Twisted's listening ports
        # Every HTTP connection taken (keep-alive ones sit idle between requests).
        self.channels: weakref.WeakSet[Any] = weakref.WeakSet()
        self.draining = False
        self.drained = False
        self.drain_task: asyncio.Future[None] | None = None
        self.exit_code = 0

    async def handle_reply(self, protocol: Any, message: dict[str, Any]) -> None:
        """A socket's close with 1012 goes out as it is: Autobahn lets applications send 1000
        and 3000-4999 only, though 1012 ("service restart", IANA's registry) is the server's
        to send and every browser takes it."""
        if (
            message.get("type") == "websocket.close"
            and message.get("code") == SERVICE_RESTART
            and not self.connections.get(protocol, {}).get("disconnected")
            and getattr(protocol, "state", None) == getattr(protocol, "STATE_OPEN", object())
        ):
            protocol.sendCloseFrame(code=SERVICE_RESTART, isReply=False)
            return
        await super().handle_reply(protocol, message)

    def listen_success(self, port: Any) -> None:
        self.ports.append(port)
        super().listen_success(port)

    def _listening(self) -> None:
        """Called by Daphne once the ports listen, just before the reactor runs."""
        loop = asyncio.get_event_loop()
        for number in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(number, self._stop_signal, number)
        factory = self.http_factory
        build = factory.buildProtocol

        def build_tracked(addr: Any) -> Any:
            channel = build(addr)
            if channel is not None:
                self.channels.add(channel)
            return channel

        factory.buildProtocol = build_tracked
        notify_systemd("READY=1")

    def _stop_signal(self, number: int) -> None:
        if self.draining:
            logger.warning("%s again while draining: exiting now", signal.Signals(number).name)
            os._exit(1)
        self.draining = True
        logger.info("%s: draining (at most %g s)", signal.Signals(number).name, self.drain_seconds)
        # Whatever hangs (a thread waiting on a stopped loop), the process ends.
        watchdog = threading.Timer(self.drain_seconds + EXIT_GRACE_SECONDS, self._exit_now)
        watchdog.daemon = True
        watchdog.start()
        self.drain_task = asyncio.ensure_future(self._drain())

    def _exit_now(self) -> None:
        logger.warning(
            "still running %g s after the signal: exiting now",
            self.drain_seconds + EXIT_GRACE_SECONDS,
        )
        faulthandler.dump_traceback(all_threads=True)  # what held it, for the log
        os._exit(0 if self.drained else 1)

    async def _drain(self) -> None:
        notify_systemd("STOPPING=1")
        started = time.monotonic()
        for port in self.ports:  # new connections are refused: nginx goes to another Daphne
            port.stopListening()
        # An application still running this long after its connection closed is cancelled by
        # Daphne's checker (each second): a socket's consumer can wait seconds for the
        # channel layer's blocking read to let go, with nothing left to do.
        self.application_close_timeout = CLOSED_APPLICATION_SECONDS
        # Waited for, not wait_for: a cancel can be lost on the way (a task that swallows it),
        # and a drain past its bound must not pass for a finished one.
        work = asyncio.ensure_future(self._finish_everything())
        await asyncio.wait({work}, timeout=self.drain_seconds)
        if not work.done():
            work.cancel()
            self.exit_code = 1
            left = [describe(protocol, self.connections) for protocol in self._busy()]
            logger.warning(
                "drain: not done within %g s (%d connections left: %s): exiting anyway",
                self.drain_seconds,
                len(left),
                "; ".join(left[:5]),
            )
        elif work.exception() is not None:
            self.exit_code = 1
            logger.error("drain failed: exiting anyway", exc_info=work.exception())
        else:
            self.drained = True
            logger.info("drained in %.2f s", time.monotonic() - started)
        cast(Any, reactor).stop()

    async def _finish_everything(self) -> None:
        from games import draining

        started = time.monotonic()
        await asyncio.gather(draining.drain(), self._requests_finished())
        handed_over = time.monotonic()
        await draining.stop_work()
        # Threads still at work (a round being ended) may call back into this loop: they
        # finish while it runs, or the exit would wait on them for ever.
        await asyncio.get_running_loop().shutdown_default_executor()
        logger.info(
            "drain: sockets and requests done in %.2f s, background work in %.2f s more",
            handed_over - started,
            time.monotonic() - handed_over,
        )

    async def _requests_finished(self) -> None:
        """Until every application instance (requests, sockets) is done: idle keep-alive
        connections are closed, and busy ones close after their response."""
        said_at = time.monotonic() + self.drain_seconds / 2
        while True:
            self._close_idle_connections()
            busy = self._busy()
            if not busy:
                return
            if time.monotonic() > said_at:  # once: what a slow drain waits for
                said_at = float("inf")
                left = [describe(protocol, self.connections) for protocol in busy]
                logger.warning("drain: still waiting for %d: %s", len(left), "; ".join(left[:5]))
            await asyncio.sleep(DRAIN_POLL_SECONDS)

    def _close_idle_connections(self) -> None:
        for protocol in list(self.channels):
            # Twisted's HTTP/1.1 channel, inside the wrapper its factory builds.
            channel = getattr(protocol, "_channel", protocol)
            transport = getattr(channel, "transport", None)
            if transport is None or not getattr(transport, "connected", False):
                continue
            if getattr(transport, "protocol", protocol) is not protocol:
                continue  # a websocket now: the application closes it
            channel.persistent = False  # closed once its response is sent
            if not getattr(channel, "requests", None):
                transport.loseConnection()

    def _busy(self) -> list[Any]:
        return [
            protocol
            for protocol, details in list(self.connections.items())
            if details.get("application_instance") is not None
            and not details["application_instance"].done()
        ]


def describe(protocol: Any, connections: dict[Any, dict[str, Any]]) -> str:
    """A connection still busy, for the log: its kind, path and state (no query, no peer),
    and where its application waits."""
    kind = type(protocol).__name__
    path = getattr(protocol, "path", b"")
    if isinstance(path, bytes):
        path = path.decode("latin-1")
    instance = connections.get(protocol, {}).get("application_instance")
    stack = io.StringIO()
    if instance is not None:
        instance.print_stack(limit=12, file=stack)
    return f"{kind} {path} state={getattr(protocol, 'state', '-')}\n{stack.getvalue()}"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m production.serve", description=__doc__)
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("-b", "--bind", default="127.0.0.1", help="address to listen on")
    parser.add_argument("-p", "--port", type=int, required=True, help="port to listen on")
    parser.add_argument(
        "--drain-seconds",
        type=float,
        default=DRAIN_SECONDS,
        help=f"bound on a drain after SIGTERM (default {DRAIN_SECONDS:g})",
    )
    parser.add_argument(
        "application", nargs="?", default=APPLICATION, help=f"default {APPLICATION}"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    application = load_application(args.application)
    warm_up()
    server = DrainingServer(
        application=application,
        endpoints=[
            f"{endpoint}:backlog={LISTEN_BACKLOG}"
            for endpoint in build_endpoint_description_strings(host=args.bind, port=args.port)
        ],
        drain_seconds=args.drain_seconds,
        ping_interval=PING_INTERVAL_SECONDS,
        ping_timeout=PING_TIMEOUT_SECONDS,
        websocket_connect_timeout=WEBSOCKET_CONNECT_SECONDS,
        websocket_handshake_timeout=WEBSOCKET_CONNECT_SECONDS,
        application_close_timeout=APPLICATION_CLOSE_SECONDS,
        # No Daphne access lines: web.request_log writes one JSON line per request and
        # socket (with its request id), and Daphne's would repeat it with the query string.
        action_logger=None,
    )
    server.run()
    if server.abort_start:  # the port could not be taken
        sys.exit(1)
    sys.exit(server.exit_code)


if __name__ == "__main__":
    main()
