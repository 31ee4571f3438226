"""The Redis channel layer across a Redis restart, in-process (no site): two layers stand for
two web processes, one holding a socket's channel, the other publishing to its group."""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest

from tests.faults.stack import RedisServer
from web.channel_layer import PooledRedisChannelLayer

pytestmark = pytest.mark.integration

# Every message reaches the socket within this long after Redis is back: the layers' watchers
# check every 0.5 s and resend 1 s after that; the rest is margin for a busy machine.
DELIVERY_BOUND = 20.0  # a wait for the messages to come, not a speed check


def make_layer(server: RedisServer) -> PooledRedisChannelLayer:
    return PooledRedisChannelLayer(hosts=[{"address": server.url(0)}], capacity=100, expiry=30)


async def receive(layer: PooledRedisChannelLayer, channel: str, timeout: float) -> dict:
    return await asyncio.wait_for(layer.receive(channel), timeout)


async def test_group_survives_a_redis_restart(private_redis: RedisServer) -> None:
    holder, publisher = make_layer(private_redis), make_layer(private_redis)
    try:
        channel = await holder.new_channel()
        await holder.group_add("room_x", channel)
        await publisher.group_send("room_x", {"type": "room.event", "n": 1})
        assert (await receive(holder, channel, 5))["n"] == 1
        # The socket's receive is waiting when Redis dies; it must not fail.
        waiting = asyncio.create_task(holder.receive(channel))
        await asyncio.sleep(1.0)  # both watchers have seen Redis once

        private_redis.kill()
        # Published while Redis is down: no error for the sender, delivered later.
        await publisher.group_send("room_x", {"type": "room.event", "n": 2})
        assert not waiting.done()
        await asyncio.to_thread(private_redis.start)
        back = time.monotonic()
        # Published right after the restart, into a group Redis has forgotten.
        await publisher.group_send("room_x", {"type": "room.event", "n": 3})

        seen = [(await asyncio.wait_for(waiting, DELIVERY_BOUND))["n"]]
        while not {2, 3} <= set(seen):
            left = DELIVERY_BOUND - (time.monotonic() - back)
            seen.append((await receive(holder, channel, max(left, 0.01)))["n"])
        print(f"delivered after Redis was back: {seen} in {time.monotonic() - back:.2f} s")

        # The membership itself is back: a new message arrives without any resend.
        await asyncio.sleep(3.5)  # the resends are over
        while True:  # drain the duplicates the resends may have left
            try:
                await receive(holder, channel, 0.3)
            except TimeoutError:
                break
        await publisher.group_send("room_x", {"type": "room.event", "n": 4})
        assert (await receive(holder, channel, 2))["n"] == 4
    finally:
        for layer in (holder, publisher):
            layer.recovery.stop()
            with contextlib.suppress(Exception):
                await layer.close_pools()
