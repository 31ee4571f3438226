"""Token buckets kept in Redis, so that every web process spends one budget per address
(``web.throttle.take``: room creations, joins, daily attempts, photos, solves...). Without
it, two Daphnes behind a proxy that spreads one client's requests let two bursts through.

Each (limit, key) is a hash of its tokens and when they were counted, on the wall clock
(shared by the processes, unlike their monotonic clocks). Refilling and spending are one Lua
script, so two processes cannot both take the last token. A key expires once its bucket
would be full again: an idle address costs nothing. Errors are ``limits_redis.Unavailable``:
the caller then counts in its own process.
"""

from __future__ import annotations

import math

from web import limits_redis

# KEYS[1]: the bucket; ARGV: now, tokens per second, burst, spend (1, or 0 to look only),
# refuse (1: spend nothing when empty), expiry seconds. Returns {spent (1/0), tokens left
# before spending, as text} (Lua numbers would be cut to integers on the way back).
TAKE = """
local now = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil or at == nil then
  tokens = burst
  at = now
end
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
if ARGV[4] == '0' then
  return {1, tostring(tokens)}
end
if tokens < 1 and ARGV[5] == '1' then
  return {0, tostring(tokens)}
end
redis.call('HSET', KEYS[1], 'tokens', tostring(math.max(0, tokens - 1)), 'at', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[6])
return {1, tostring(tokens)}
"""


class Empty(Exception):
    """The bucket holds less than a token: ``tokens`` of one."""

    def __init__(self, tokens: float) -> None:
        super().__init__(tokens)
        self.tokens = tokens


def _run(name: str, key: str, per_second: float, burst: int, spend: bool, refuse: bool) -> float:
    expiry = math.ceil(burst / per_second) + 1 if per_second > 0 else 86_400
    with limits_redis.connection() as client:
        result = limits_redis.script(client, TAKE)(
            keys=[limits_redis.key("bucket", name, key)],
            args=[
                repr(limits_redis.wall_clock()),
                repr(per_second),
                burst,
                int(spend),
                int(refuse),
                expiry,
            ],
            client=client,
        )
    tokens = float(result[1])
    if int(result[0]) == 0:
        raise Empty(tokens)
    return tokens


def take(name: str, key: str, per_second: float, burst: int, refuse: bool = True) -> None:
    """Spend a token of the bucket; ``Empty`` (nothing spent) when it has none and
    ``refuse``, else it just stays empty."""
    _run(name, key, per_second, burst, spend=True, refuse=refuse)


def tokens(name: str, key: str, per_second: float, burst: int) -> float:
    """The tokens the bucket holds now, spending none."""
    return _run(name, key, per_second, burst, spend=False, refuse=False)
