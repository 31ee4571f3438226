"""Events fanned out from memory (web.fanout): a process's sockets get a group's events in
the order they were published, from any thread; other processes get them through Redis
once per process, and only when they have sockets in the group.

The Redis tests run two hubs in this process, each with a channel layer of its own (as two
web processes have), on the tests' Redis under a key prefix of their own."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest
from channels_redis.core import RedisChannelLayer

from web.channel_layer import PooledRedisChannelLayer
from web.fanout import Hub
from web.memory_layer import EmbeddedChannelLayer

WAIT = 5.0


class Socket:
    """A member that records what it got; ``fail`` makes each delivery raise."""

    def __init__(self, fail: bool = False) -> None:
        self.got: list[Any] = []
        self.fail = fail
        self.arrived = asyncio.Event()

    async def deliver(self, message: dict[str, Any]) -> None:
        if self.fail:
            raise RuntimeError("this socket is broken")
        self.got.append(message["n"])
        self.arrived.set()

    async def wait_for(self, count: int) -> list[Any]:
        async with asyncio.timeout(WAIT):
            while len(self.got) < count:
                self.arrived.clear()
                await self.arrived.wait()
        return self.got


async def settle() -> None:
    """A few turns of the loop: what was queued has been delivered."""
    for _ in range(5):
        await asyncio.sleep(0)


# ---------------------------------------------------------------- one process


async def test_events_reach_the_groups_sockets_in_order_from_any_thread() -> None:
    hub = Hub(EmbeddedChannelLayer())
    ann, bob, other = Socket(), Socket(), Socket()
    await hub.join("room_a", ann)
    await hub.join("room_a", bob)
    await hub.join("room_b", other)

    def publish_from_a_thread() -> None:
        for n in range(50):
            hub.publish("room_a", {"n": n})

    thread = threading.Thread(target=publish_from_a_thread)
    thread.start()
    await asyncio.to_thread(thread.join)
    hub.publish("room_a", {"n": 50})  # and from the loop itself, after them
    assert await ann.wait_for(51) == list(range(51))
    assert await bob.wait_for(51) == list(range(51))
    assert other.got == []


async def test_a_broken_socket_costs_the_others_nothing() -> None:
    hub = Hub(EmbeddedChannelLayer())
    broken, fine = Socket(fail=True), Socket()
    await hub.join("room_a", broken)
    await hub.join("room_a", fine)
    hub.publish("room_a", {"n": 1})
    hub.publish("room_a", {"n": 2})
    assert await fine.wait_for(2) == [1, 2]


async def test_a_socket_that_left_gets_nothing_more() -> None:
    hub = Hub(EmbeddedChannelLayer())
    ann, bob = Socket(), Socket()
    await hub.join("room_a", ann)
    await hub.join("room_a", bob)
    hub.publish("room_a", {"n": 1})
    await bob.wait_for(1)
    await hub.leave("room_a", bob)
    hub.publish("room_a", {"n": 2})
    assert await ann.wait_for(2) == [1, 2]
    await settle()
    assert bob.got == [1]
    assert hub.members("room_a") == 1


# ---------------------------------------------------------------- two processes, Redis


@pytest.fixture
async def layers(redis_url: str, redis_prefix: str) -> AsyncIterator[list[PooledRedisChannelLayer]]:
    made = [
        PooledRedisChannelLayer(hosts=[{"address": redis_url}], prefix=f"{redis_prefix}asgi")
        for _ in range(2)
    ]
    yield made
    for layer in made:
        layer.recovery.stop()
        await layer.close_pools()


class SendCounter:
    """Counts channels_redis group sends (what reaches Redis with a message) per layer."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.sends: dict[int, int] = {}
        original = RedisChannelLayer.group_send

        async def counted(layer: RedisChannelLayer, group: str, message: dict) -> None:
            self.sends[id(layer)] = self.sends.get(id(layer), 0) + 1
            await original(layer, group, message)

        monkeypatch.setattr(RedisChannelLayer, "group_send", counted)

    def of(self, layer: Any) -> int:
        return self.sends.get(id(layer), 0)


async def group_members(layer: PooledRedisChannelLayer, group: str) -> set[str]:
    connection = layer.connection(layer.consistent_hash(group))
    return {member.decode() for member in await connection.zrange(layer._group_key(group), 0, -1)}


@pytest.mark.integration
async def test_a_room_held_by_one_process_never_goes_through_redis(
    layers: list[PooledRedisChannelLayer], monkeypatch: pytest.MonkeyPatch
) -> None:
    counter = SendCounter(monkeypatch)
    a = Hub(layers[0])
    ann, bob = Socket(), Socket()
    await a.join("room_a", ann)
    await a.join("room_a", bob)
    assert await group_members(layers[0], "room_a") == {a.here}  # the process, once
    for n in range(5):
        a.publish("room_a", {"n": n})
    assert await ann.wait_for(5) == list(range(5))
    assert await bob.wait_for(5) == list(range(5))
    await asyncio.sleep(0.2)  # the sender has looked at the group by now
    assert counter.of(layers[0]) == 0


@pytest.mark.integration
async def test_a_room_across_two_processes_gets_every_event_once_in_order(
    layers: list[PooledRedisChannelLayer], monkeypatch: pytest.MonkeyPatch
) -> None:
    counter = SendCounter(monkeypatch)
    a, b = Hub(layers[0]), Hub(layers[1])
    ann, cat = Socket(), Socket()  # on A
    bob, dan = Socket(), Socket()  # on B
    for hub, socket in ((a, ann), (a, cat), (b, bob), (b, dan)):
        await hub.join("room_a", socket)
    assert await group_members(layers[0], "room_a") == {a.here, b.here}
    for n in range(10):
        (a if n < 5 else b).publish("room_a", {"n": n})
        await asyncio.sleep(0.02)  # published one after the other, as versions are
    for socket in (ann, cat, bob, dan):
        assert await socket.wait_for(10) == list(range(10))
    await asyncio.sleep(0.3)
    for socket in (ann, cat, bob, dan):
        assert socket.got == list(range(10)), "delivered twice"
    # Once per event to the other process, not once per socket.
    assert counter.of(layers[0]) == 5
    assert counter.of(layers[1]) == 5

    # B's last socket leaves: B leaves the layer's group, and A stops sending to it.
    await b.leave("room_a", bob)
    await b.leave("room_a", dan)
    assert await group_members(layers[0], "room_a") == {a.here}
    a.publish("room_a", {"n": 10})
    assert await ann.wait_for(11) == list(range(11))
    await asyncio.sleep(0.2)
    assert counter.of(layers[0]) == 5


@pytest.mark.integration
async def test_a_process_without_sockets_reaches_every_process_holding_the_group(
    layers: list[PooledRedisChannelLayer], redis_url: str, redis_prefix: str
) -> None:
    """A Celery worker (no event loop of sockets) publishing a round's end."""
    a, b = Hub(layers[0]), Hub(layers[1])
    ann, bob = Socket(), Socket()
    await a.join("room_a", ann)
    await b.join("room_a", bob)
    worker_layer = PooledRedisChannelLayer(
        hosts=[{"address": redis_url}], prefix=f"{redis_prefix}asgi"
    )
    worker = Hub(worker_layer)
    try:
        await asyncio.to_thread(worker.publish, "room_a", {"n": 1})
        assert await ann.wait_for(1) == [1]
        assert await bob.wait_for(1) == [1]
    finally:
        worker_layer.recovery.stop()
        await worker_layer.close_pools()


@pytest.mark.integration
async def test_a_process_that_died_without_leaving_is_dropped_from_the_group(
    layers: list[PooledRedisChannelLayer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A killed process never leaves its groups: the others stop sending to it once its
    membership has not been refreshed for MEMBERSHIP_STALE_SECONDS."""
    import web.channel_layer as channel_layer

    counter = SendCounter(monkeypatch)
    a = Hub(layers[0])
    ann = Socket()
    await a.join("room_a", ann)
    dead = "fanout.dead-process!0"
    connection = layers[0].connection(0)
    key = layers[0]._group_key("room_a")
    await connection.zadd(key, {dead: 1.0})  # joined long ago, never refreshed since
    a.publish("room_a", {"n": 1})
    await ann.wait_for(1)
    await asyncio.sleep(0.2)
    assert counter.of(layers[0]) == 0  # not counted as a live member
    await layers[0].refresh_groups(["room_a"], a.here or "")
    assert await group_members(layers[0], "room_a") == {a.here}
    assert layers[0].group_expiry > channel_layer.MEMBERSHIP_STALE_SECONDS


async def test_events_published_together_from_a_thread_arrive_in_order() -> None:
    hub = Hub(EmbeddedChannelLayer())
    ann, bob = Socket(), Socket()
    await hub.join("room_a", ann)
    await hub.join("room_b", bob)
    sends: list[tuple[str, dict[str, Any]]] = [
        ("room_a" if n % 2 else "room_b", {"n": n}) for n in range(10)
    ]
    await asyncio.to_thread(hub.publish_many, sends)
    assert await ann.wait_for(5) == [1, 3, 5, 7, 9]
    assert await bob.wait_for(5) == [0, 2, 4, 6, 8]


async def test_a_socket_forgotten_without_leaving_is_out_of_every_group() -> None:
    """A socket whose application ended without a disconnect (a failed connect) is taken
    out of all its groups at once."""
    hub = Hub(EmbeddedChannelLayer())
    gone, ann = Socket(), Socket()
    await hub.join("room_a", gone)
    await hub.join("player_1", gone)
    await hub.join("room_a", ann)
    hub.forget(gone)
    assert (hub.members("room_a"), hub.members("player_1")) == (1, 0)
    hub.publish("room_a", {"n": 1})
    assert await ann.wait_for(1) == [1]
    await settle()
    assert gone.got == []


@pytest.mark.integration
async def test_a_forgotten_last_socket_takes_its_process_out_of_the_group(
    layers: list[PooledRedisChannelLayer],
) -> None:
    a = Hub(layers[0])
    gone = Socket()
    await a.join("room_a", gone)
    assert await group_members(layers[0], "room_a") == {a.here}
    a.forget(gone)
    async with asyncio.timeout(WAIT):
        while await group_members(layers[0], "room_a"):
            await asyncio.sleep(0.02)
