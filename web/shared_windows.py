"""Strict per-address windows kept in Redis, so that every web process counts one budget
(``web.throttle.reserve``: the unknown room codes, the waiting lists' join requests; and
``web.admin_throttle``'s failed logins). Without it, three Daphnes behind a proxy that
spreads one guesser's requests would let three budgets through.

Each (window, key) is a sorted set of event ids scored by wall-clock time (shared by
the processes, unlike their monotonic clocks). A reservation is one Lua script, so two
processes cannot both take the last slot. Errors are ``limits_redis.Unavailable``
(web.limits_redis: a short timeout, then a pause): the caller counts in its own process
instead, so an outage weakens the cap to one budget per process and never fails a request.
"""

from __future__ import annotations

import logging
import math

from web import limits_redis
from web.limits_redis import Unavailable

__all__ = ["Full", "Unavailable", "add", "clear", "release", "reserve", "times"]

logger = logging.getLogger(__name__)

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


def _key(name: str, key: str) -> str:
    return limits_redis.key("window", name, key)


def reserve(name: str, key: str, member: str, count: int, seconds: float) -> None:
    """Count ``member`` in the window; Full when it holds ``count`` events already."""
    now = limits_redis.wall_clock()
    with limits_redis.connection() as client:
        result = limits_redis.script(client, RESERVE)(
            keys=[_key(name, key)],
            args=[repr(now), repr(seconds), count, member, math.ceil(seconds) + 1],
            client=client,
        )
    if int(result[0]) == 0:
        raise Full(float(result[1]), now)


def release(name: str, key: str, member: str) -> None:
    """Take ``member`` back out of the window (a look-up that found its room)."""
    try:
        with limits_redis.connection() as client:
            client.zrem(_key(name, key), member)
    except Unavailable:
        logger.info("shared limits: a slot stays until it expires (Redis unreachable)")


def add(name: str, key: str, member: str, seconds: float, keep: int) -> None:
    """Count ``member`` in the window, whatever it holds already; only the ``keep`` latest
    events are kept (older ones decide nothing)."""
    now = limits_redis.wall_clock()
    with limits_redis.connection() as client:
        pipe = client.pipeline()  # MULTI/EXEC: one step for every other process
        pipe.zremrangebyscore(_key(name, key), "-inf", now - seconds)
        pipe.zadd(_key(name, key), {member: now})
        pipe.zremrangebyrank(_key(name, key), 0, -(keep + 1))
        pipe.expire(_key(name, key), math.ceil(seconds) + 1)
        pipe.execute()


def times(name: str, key: str, seconds: float) -> list[float]:
    """When the window's events still in it happened, oldest first."""
    now = limits_redis.wall_clock()
    with limits_redis.connection() as client:
        found = client.zrangebyscore(_key(name, key), f"({now - seconds}", "+inf", withscores=True)
    return [float(score) for _, score in found]


def clear(name: str, key: str) -> None:
    with limits_redis.connection() as client:
        client.delete(_key(name, key))
