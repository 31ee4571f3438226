"""The Redis channel layer with a connection pool that waits instead of failing.

channels_redis's default pool raises "Too many connections" as soon as its limit is reached,
so a crowd connecting (or leaving) at once got sockets closed with 1011 and presence left
behind. Here each process holds at most ``max_connections`` to Redis and a burst waits up
to ``pool_timeout`` seconds for a free one.
"""

from __future__ import annotations

from typing import Any

from channels_redis.core import RedisChannelLayer
from redis import asyncio as aioredis


class PooledRedisChannelLayer(RedisChannelLayer):
    def __init__(self, *args: Any, pool_timeout: float = 10.0, **kwargs: Any) -> None:
        self.pool_timeout = pool_timeout
        super().__init__(*args, **kwargs)

    def create_pool(self, index: int) -> aioredis.ConnectionPool:
        host = dict(self.hosts[index])
        address = host.pop("address")
        return aioredis.BlockingConnectionPool.from_url(address, timeout=self.pool_timeout, **host)
