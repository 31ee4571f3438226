"""The Redis that per-address limits are counted in, in production: one count for every web
process (``web.shared_buckets``, ``web.shared_windows``, ``web.admin_throttle``).

Configured by ``REDIS_URL`` (``BOGGLE_LIMITS_REDIS_URL``); unset (the embedded default),
each process counts in its own memory. Every key is under the site's ``BOGGLE_REDIS_PREFIX``
(the Redis may be shared with other programs) and expires on its own.

An outage never fails a request: Redis is asked with a short timeout, and when it does not
answer the callers count in their own process instead (``Unavailable``), which weakens each
limit to one budget per process, as before limits were shared. After a failure Redis is
left alone for ``RETRY_SECONDS``, so that an outage does not add a timeout to every
request; the log says so once per outage, not once per request.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import redis
from django.conf import settings
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

# Seconds to wait for Redis: a request is not held up for long by an outage.
TIMEOUT_SECONDS = 0.5
# After a failure, seconds during which every count stays in its process without asking.
RETRY_SECONDS = 5.0

# Shared by the processes, unlike their monotonic clocks: the counts' times.
wall_clock: Callable[[], float] = time.time  # tests move their own


class Unavailable(Exception):
    """Redis did not answer (or was given up on for a while): count in this process."""


_lock = threading.Lock()
_client: tuple[str, Any] | None = None  # (url, redis.Redis)
_scripts: dict[str, Any] = {}  # Lua source -> registered script
_down_until: tuple[str, float] = ("", 0.0)  # (url, time.monotonic()) before which not asked
_outage_logged = False


def configured() -> bool:
    return bool(getattr(settings, "BOGGLE_LIMITS_REDIS_URL", ""))


def key(*parts: str) -> str:
    """A key under the site's prefix: ``<prefix>boggle:<parts joined by ":">``."""
    return getattr(settings, "BOGGLE_REDIS_PREFIX", "") + "boggle:" + ":".join(parts)


def _redis() -> Any:
    global _client
    url = settings.BOGGLE_LIMITS_REDIS_URL
    with _lock:
        if _client is None or _client[0] != url:
            client = redis.Redis.from_url(
                url, socket_timeout=TIMEOUT_SECONDS, socket_connect_timeout=TIMEOUT_SECONDS
            )
            _client = (url, client)
            _scripts.clear()
        return _client[1]


@contextmanager
def connection() -> Iterator[Any]:
    """The client, within a block whose Redis errors become ``Unavailable`` (and a pause
    of ``RETRY_SECONDS`` before Redis is asked again)."""
    global _down_until, _outage_logged
    url = settings.BOGGLE_LIMITS_REDIS_URL
    if _down_until[0] == url and time.monotonic() < _down_until[1]:
        raise Unavailable
    try:
        yield _redis()
    except RedisError:
        with _lock:
            _down_until = (url, time.monotonic() + RETRY_SECONDS)
            first = not _outage_logged
            _outage_logged = True
        if first:
            logger.warning("per-address limits: Redis unreachable, counting in each process")
        raise Unavailable from None
    if _outage_logged:
        with _lock:
            _outage_logged = False
        logger.warning("per-address limits: Redis answers again, counting once for the site")


def script(client: Any, source: str) -> Any:
    """``source`` registered on ``client`` once (then run by its hash)."""
    with _lock:
        registered = _scripts.get(source)
        if registered is None:
            registered = _scripts[source] = client.register_script(source)
        return registered


def reset() -> None:
    """Forget the client and any outage (tests)."""
    global _client, _down_until, _outage_logged
    with _lock:
        _client = None
        _scripts.clear()
        _down_until = ("", 0.0)
        _outage_logged = False
