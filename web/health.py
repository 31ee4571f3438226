"""``GET /healthz`` and ``GET /readyz``: whether this web process answers, and whether it can
serve.

``/healthz`` is answered on the event loop without touching anything else: 200
``{"status": "ok"}`` for as long as the process answers at all. ``/readyz`` runs the
readiness checks and answers 200 ``{"status": "ready", "checks": {...}}`` when every one is
``ok``, else 503 ``"not ready"`` with the same list: each check's name and state
(``ok``, ``failed``, ``timeout``, or a check's own word such as ``loading``), never an
error's text, a host name or a secret. The checks: the database (``SELECT 1``), the channel
layer (a PING of each of its Redis servers; the embedded in-memory layer is always ``ok``),
and those the apps add as they start (``add_check``: the default word list, the photo reader
where this process preloads it).

Cheap whatever the rate of probes: each check's state is kept ``CACHE_SECONDS``, runs on a
thread of its own (never the event loop, nor Django's one thread for sync code), one run of
a check at a time, and an answer waits at most ``ANSWER_WITHIN_SECONDS`` for them: a check
still running then (a database that does not answer) is ``timeout``. A check's change of
state is logged once, not each probe.

Both are answered before Django (``answer_probes``, around the site's ASGI application): no
Host check (a probe may name 127.0.0.1 where DJANGO_ALLOWED_HOSTS names the site), no https
redirect, no session or cookie, no CSRF. No per-address limit applies to them (the limits
are per view); ``web.connection_guard`` counts a probe's TCP connection like any other, but
never one from loopback or a trusted proxy. ``web.request_log`` logs them at DEBUG only.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

import redis
from channels.layers import get_channel_layer
from django.db import connection, connections

logger = logging.getLogger(__name__)

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

HEALTH_PATH = "/healthz"
READY_PATH = "/readyz"
PROBE_PATHS = frozenset({HEALTH_PATH, READY_PATH})
# A check's state is reused this long (seconds): probes every second cost one run.
CACHE_SECONDS = 1.0
# The longest an answer waits for the checks (seconds).
ANSWER_WITHIN_SECONDS = 1.0
# A Redis server of the channel layer that does not answer a PING within this is down.
REDIS_TIMEOUT_SECONDS = 0.5

OK = "ok"
FAILED = "failed"
TIMEOUT = "timeout"


class NotReady(Exception):
    """Raised by a check that knows why it is not ready yet: ``state`` is reported."""

    def __init__(self, state: str) -> None:
        super().__init__(state)
        self.state = state


class Check:
    """One readiness check, its latest state and its run in progress (if any)."""

    def __init__(self, name: str, run: Callable[[], object]) -> None:
        self.name = name
        self.run = run
        self.state: str | None = None  # None before the first run ends
        self.checked_at = -CACHE_SECONDS
        self.running: Future[str] | None = None

    def result(self) -> Future[str]:
        """The state, fresh (kept ``CACHE_SECONDS``) or being found; called under _lock."""
        if self.running is not None and not self.running.done():
            return self.running
        if self.state is not None and time.monotonic() - self.checked_at < CACHE_SECONDS:
            done: Future[str] = Future()
            done.set_result(self.state)
            return done
        self.running = _threads.submit(self._checked)
        return self.running

    def _checked(self) -> str:
        try:
            self.run()
        except NotReady as not_ready:
            state, why = not_ready.state, ""
        except Exception as error:  # the text stays in the log: it may name hosts
            state, why = FAILED, f" ({type(error).__name__}: {_first_line(error)})"
        else:
            state, why = OK, ""
        finally:
            connections.close_all()  # this thread's connections only: a pooled one goes back
        with _lock:
            previous, self.state, self.checked_at = self.state, state, time.monotonic()
        if state != previous:
            level = logging.WARNING if state == FAILED else logging.INFO
            logger.log(level, "readiness: %s %s%s", self.name, state, why)
        return state


def _first_line(error: Exception) -> str:
    return (str(error).strip().splitlines() or [""])[0][:200]


_lock = threading.Lock()
_checks: dict[str, Check] = {}
# One thread per check at most: a check that hangs holds only its own.
_threads = ThreadPoolExecutor(max_workers=8, thread_name_prefix="readiness")


def add_check(name: str, run: Callable[[], object]) -> None:
    """Add a readiness check: ``run`` returns when ready, raises ``NotReady(state)`` when it
    knows it is not yet, or anything else when it failed. Same name: replaced."""
    with _lock:
        _checks[name] = Check(name, run)


def check_database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


_redis_clients: dict[str, redis.Redis] = {}


def check_channel_layer() -> None:
    """PING each Redis server of the channel layer (its hosts' addresses); the in-memory
    layer has none and is always up."""
    layer = get_channel_layer()
    for host in getattr(layer, "hosts", None) or ():
        address = host.get("address") if isinstance(host, dict) else None
        if address is None:
            continue
        client = _redis_clients.get(address)
        if client is None:
            client = _redis_clients[address] = redis.Redis.from_url(
                address,
                socket_timeout=REDIS_TIMEOUT_SECONDS,
                socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
            )
        client.ping()


add_check("database", check_database)
add_check("channel_layer", check_channel_layer)


def _pending() -> dict[str, Future[str]]:
    with _lock:
        return {name: check.result() for name, check in _checks.items()}


def _answer(results: dict[str, Future[str]]) -> tuple[int, dict[str, Any]]:
    states = {
        name: future.result() if future.done() else TIMEOUT for name, future in results.items()
    }
    ready = all(state == OK for state in states.values())
    return (200 if ready else 503), {"status": "ready" if ready else "not ready", "checks": states}


def readiness() -> tuple[int, dict[str, Any]]:
    """The status code and body of ``/readyz`` (blocking: at most ANSWER_WITHIN_SECONDS)."""
    results = _pending()
    deadline = time.monotonic() + ANSWER_WITHIN_SECONDS
    for future in results.values():
        try:
            future.result(timeout=max(0.0, deadline - time.monotonic()))
        except FutureTimeout:
            break
    return _answer(results)


async def readiness_async() -> tuple[int, dict[str, Any]]:
    """``readiness`` on the event loop: waits without blocking it."""
    results = _pending()
    waiting = [asyncio.wrap_future(future) for future in results.values() if not future.done()]
    if waiting:
        # Not cancelled after the wait: a check outliving it keeps running (the next probe
        # joins it).
        await asyncio.wait(waiting, timeout=ANSWER_WITHIN_SECONDS)
    return _answer(results)


def answer_probes(app: ASGIApp) -> ASGIApp:
    """``app`` with ``GET /healthz`` and ``GET /readyz`` answered before it."""

    async def application(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") not in PROBE_PATHS:
            return await app(scope, receive, send)
        if scope.get("method") not in ("GET", "HEAD"):
            return await _respond(send, scope, 405, {"status": "GET only"})
        if scope["path"] == HEALTH_PATH:
            return await _respond(send, scope, 200, {"status": "ok"})
        status, body = await readiness_async()
        await _respond(send, scope, status, body)

    return application


async def _respond(send: Send, scope: Scope, status: int, body: dict[str, Any]) -> None:
    headers = [(b"content-type", b"application/json"), (b"cache-control", b"no-store")]
    if status == 405:
        headers.append((b"allow", b"GET, HEAD"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    content = json.dumps(body).encode() if scope.get("method") != "HEAD" else b""
    await send({"type": "http.response.body", "body": content})
