"""Strict per-address windows kept in Redis, so that every web process counts one budget
(``web.throttle.reserve``: the unknown room codes). Without it, three Daphnes behind a
proxy that spreads one guesser's requests would let three budgets through.

Each (window, address) is a sorted set of event ids scored by wall-clock time (shared by
the processes, unlike their monotonic clocks). A reservation is one Lua script, so two
processes cannot both take the last slot. Redis is asked with a short timeout; when it
cannot be reached the caller counts in its own process instead (``Unavailable``), so an
outage weakens the cap to one budget per process and never fails a request.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from typing import Any

import redis
from django.conf import settings
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

# Seconds to wait for Redis: a room look-up is not held up for long by an outage.
TIMEOUT_SECONDS = 0.5

wall_clock: Callable[[], float] = time.time  # tests move their own

# KEYS[1]: the set; ARGV: now, window seconds, count, member, expiry seconds.
# Returns {1} when counted, {0, oldest score} when the window is full.
RESERVE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, oldest[2]}
end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return {1}
"""


class Full(Exception):
    """The window holds its count already; ``oldest`` leaves it first."""

    def __init__(self, oldest: float, now: float) -> None:
        super().__init__(oldest, now)
        self.oldest = oldest
        self.now = now


class Unavailable(Exception):
    """Redis did not answer: count in this process instead."""


_lock = threading.Lock()
_client: tuple[str, Any] | None = None  # (url, redis.Redis)
_script: Any = None


def configured() -> bool:
    return bool(getattr(settings, "BOGGLE_LIMITS_REDIS_URL", ""))


def _redis() -> Any:
    global _client, _script
    url = settings.BOGGLE_LIMITS_REDIS_URL
    with _lock:
        if _client is None or _client[0] != url:
            client = redis.Redis.from_url(
                url, socket_timeout=TIMEOUT_SECONDS, socket_connect_timeout=TIMEOUT_SECONDS
            )
            _client = (url, client)
            _script = client.register_script(RESERVE)
        return _client[1]


def _key(name: str, key: str) -> str:
    return f"{getattr(settings, 'BOGGLE_REDIS_PREFIX', '')}boggle:window:{name}:{key}"


def reserve(name: str, key: str, member: str, count: int, seconds: float) -> None:
    """Count ``member`` in the window; Full when it holds ``count`` events already."""
    now = wall_clock()
    try:
        client = _redis()
        result = _script(
            keys=[_key(name, key)],
            args=[repr(now), repr(seconds), count, member, math.ceil(seconds) + 1],
            client=client,
        )
    except RedisError:
        logger.warning("shared limits: Redis unreachable, counting in this process")
        raise Unavailable from None
    if int(result[0]) == 0:
        raise Full(float(result[1]), now)


def release(name: str, key: str, member: str) -> None:
    """Take ``member`` back out of the window (a look-up that found its room)."""
    try:
        _redis().zrem(_key(name, key), member)
    except RedisError:
        logger.warning("shared limits: Redis unreachable, a slot stays until it expires")
