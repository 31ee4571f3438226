"""Prometheus metrics of this process, at ``GET /metrics`` (prometheus_client's text format).

Each web process answers for itself: its sockets, its 5xx, the limits it refused, and what
its apps count (``add_collector``: the games app's words and rounds, the photos app's
readings). Prometheus scrapes every Daphne's own port (127.0.0.1:8001/metrics, ...), never
through nginx, which spreads requests over them. Figures read at scrape time from the
database or Redis (rounds running, photos read by the workers, the task queue) are the
site's, the same from every process: aggregate those with ``max``, the per-process ones
with ``sum`` (docs/operations.md, "Metrics and alerts").

Who may scrape (``scrape_allowed``): a client on this machine that came straight to the
Daphne (loopback, and no forwarding header: a request nginx passed on carries
``X-Forwarded-For`` even when ``BOGGLE_TRUSTED_PROXIES`` does not list nginx, and behind a
listed proxy the client is the one it forwards, ``web.proxies``), or one that sends
``Authorization: Bearer <BOGGLE_METRICS_TOKEN>``, compared in constant time. Anyone else
gets 404, as for a path that does not exist. Answered before Django (``answer_scrapes``,
around the site's ASGI application): no Host check, session, CSRF or redirect.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from django.conf import settings
from kombu.transport import redis as kombu_redis
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, Counter, Gauge, generate_latest
from prometheus_client.metrics_core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from web import limits_redis, proxies
from web.threads import in_thread

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

METRICS_PATH = "/metrics"
# Headers a proxy adds to what it passes on: a request with one did not come straight here.
FORWARDING_HEADERS = frozenset({b"x-forwarded-for", b"forwarded", b"x-real-ip"})

SOCKETS_OPEN = Gauge("boggle_sockets_open", "Websockets open in this process.")
HTTP_SERVER_ERRORS = Counter(
    "boggle_http_server_errors",
    "HTTP responses with a 5xx status from this process (probes excepted), by status.",
    ["status"],
)
SOCKET_SERVER_ERRORS = Counter(
    "boggle_socket_server_errors",
    "server_error replies sent on this process's websockets (a handler failed).",
)
LIMITS_HIT = Counter(
    "boggle_limits_hit",
    "Requests and messages this process refused for a rate limit or budget, by limit.",
    ["limit"],
)


# ---------------------------------------------------------------- hooks


def socket_opened() -> None:
    SOCKETS_OPEN.inc()


def socket_closed() -> None:
    SOCKETS_OPEN.dec()


def server_error_sent(status: int) -> None:
    HTTP_SERVER_ERRORS.labels(str(status)).inc()


def socket_server_error() -> None:
    SOCKET_SERVER_ERRORS.inc()


def limit_hit(name: str) -> None:
    """A limit refused something (``web.throttle``, ``photos.budget``): its name."""
    LIMITS_HIT.labels(name).inc()


_collectors: set[int] = set()


def add_collector(collector: Collector) -> None:
    """Report ``collector``'s figures at every scrape (once, however often it is added).
    It must have ``describe``: the registry would otherwise collect when it is added."""
    if id(collector) in _collectors:
        return
    _collectors.add(id(collector))
    REGISTRY.register(collector)


# ---------------------------------------------------------------- the task queue


class TaskQueueDepth(Collector):
    """Tasks waiting in Celery's queue (Redis lists under ``BOGGLE_REDIS_PREFIX``, one per
    priority kombu uses); 0 in the embedded default, where tasks run in the process. Tasks
    a worker has taken (an ``end_round`` waiting for its time) are not counted."""

    def describe(self) -> Iterator[Metric]:
        yield self._family()

    def collect(self) -> Iterator[Metric]:
        family = self._family()
        if getattr(settings, "CELERY_TASK_ALWAYS_EAGER", True) or not limits_redis.configured():
            family.add_metric([], 0)
            yield family
            return
        try:
            with limits_redis.connection() as client:
                pipe = client.pipeline(transaction=False)
                for key in queue_keys():
                    pipe.llen(key)
                depth = sum(pipe.execute())
        except limits_redis.Unavailable:
            return  # absent while Redis does not answer (web.limits_redis logs it)
        family.add_metric([], depth)
        yield family

    @staticmethod
    def _family() -> GaugeMetricFamily:
        return GaugeMetricFamily(
            "boggle_task_queue_depth", "Celery tasks waiting for a worker (site-wide, Redis)."
        )


def queue_keys() -> list[str]:
    """The Redis keys of Celery's default queue: kombu keeps one list per priority step."""
    prefix = getattr(settings, "BOGGLE_REDIS_PREFIX", "")
    queue = getattr(settings, "CELERY_TASK_DEFAULT_QUEUE", None) or "celery"
    separator = kombu_redis.Channel.sep
    return [
        f"{prefix}{queue}{separator}{step}" if step else f"{prefix}{queue}"
        for step in kombu_redis.PRIORITY_STEPS
    ]


add_collector(TaskQueueDepth())


# ---------------------------------------------------------------- the endpoint


def _header(scope: Scope, name: bytes) -> bytes:
    return b",".join(value for key, value in scope.get("headers") or () if key.lower() == name)


def _bearer_token(scope: Scope) -> bytes | None:
    scheme, _, token = _header(scope, b"authorization").partition(b" ")
    return token.strip() if scheme.lower() == b"bearer" and token.strip() else None


def scrape_allowed(scope: Scope) -> bool:
    """Whether this request may read the metrics (see the module's docstring)."""
    expected = getattr(settings, "BOGGLE_METRICS_TOKEN", "")
    given = _bearer_token(scope)
    if expected and given is not None:
        return hmac.compare_digest(given, expected.encode())
    if any(key.lower() in FORWARDING_HEADERS for key, _ in scope.get("headers") or ()):
        return False
    peer = str((scope.get("client") or ("",))[0] or "")
    client = proxies.parse_ip(proxies.client_address(peer, ""))
    return client is not None and client.is_loopback


def answer_scrapes(app: ASGIApp) -> ASGIApp:
    """``app`` with ``GET /metrics`` answered before it."""

    async def application(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") != METRICS_PATH:
            return await app(scope, receive, send)
        if not scrape_allowed(scope):
            return await _respond(send, 404, b"not found\n", b"text/plain; charset=utf-8")
        if scope.get("method") not in ("GET", "HEAD"):
            return await _respond(send, 405, b"GET only\n", b"text/plain; charset=utf-8")
        # Collectors read the database and Redis: on a thread, never the event loop.
        body = await in_thread(generate_latest)(REGISTRY)
        await _respond(send, 200, body if scope["method"] == "GET" else b"", CONTENT_TYPE_LATEST)

    return application


async def _respond(send: Send, status: int, body: bytes, content_type: bytes | str) -> None:
    if isinstance(content_type, str):
        content_type = content_type.encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", content_type), (b"cache-control", b"no-store")],
        }
    )
    await send({"type": "http.response.body", "body": body})
