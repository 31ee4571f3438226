"""The embedded channel layer (web.memory_layer) delivers as Channels' in-memory layer does
and still drops the memberships of channels whose messages expired, sweeping at most once
every SWEEP_EVERY_SECONDS instead of before every receive and group send."""

from __future__ import annotations

import asyncio

import pytest

from web import memory_layer
from web.memory_layer import SWEEP_EVERY_SECONDS, EmbeddedChannelLayer


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The layer's sweep clock, moved by the test (message expiry itself is wall time)."""
    now = [1000.0]
    monkeypatch.setattr(memory_layer, "clock", lambda: now[0])
    return now


async def test_group_messages_reach_every_member(clock: list[float]) -> None:
    layer = EmbeddedChannelLayer()
    ann, bob = await layer.new_channel(), await layer.new_channel()
    for channel in (ann, bob):
        await layer.group_add("room_a", channel)
    await layer.group_send("room_a", {"type": "room.event", "n": 1})
    assert (await layer.receive(ann))["n"] == 1
    assert (await layer.receive(bob))["n"] == 1


async def test_expired_messages_are_swept_at_most_once_a_second(clock: list[float]) -> None:
    # A negative expiry: every message has expired as soon as it is sent.
    layer = EmbeddedChannelLayer(expiry=-1)
    first, second = await layer.new_channel(), await layer.new_channel()
    await layer.group_add("room_a", first)
    await layer.send(first, {"type": "room.event"})
    await layer.group_add("room_a", second)
    layer._clean_expired()  # the first sweep: a channel whose message expired leaves its groups
    assert set(layer.groups.get("room_a", {})) == {second}

    await layer.send(second, {"type": "room.event"})
    clock[0] += SWEEP_EVERY_SECONDS / 2
    layer._clean_expired()  # too soon: nothing is walked
    assert set(layer.groups.get("room_a", {})) == {second}

    clock[0] += SWEEP_EVERY_SECONDS / 2
    layer._clean_expired()
    assert "room_a" not in layer.groups or not layer.groups["room_a"]


async def test_a_full_member_misses_a_group_message_and_the_others_get_it(
    clock: list[float],
) -> None:
    layer = EmbeddedChannelLayer(capacity=1)
    full, free = await layer.new_channel(), await layer.new_channel()
    for channel in (full, free):
        await layer.group_add("room_a", channel)
    await layer.send(full, {"type": "room.event", "n": 0})
    await layer.group_send("room_a", {"type": "room.event", "n": 1})
    assert (await layer.receive(full))["n"] == 0
    assert (await layer.receive(free))["n"] == 1


async def test_each_receiver_gets_its_own_copy(clock: list[float]) -> None:
    layer = EmbeddedChannelLayer()
    ann, bob = await layer.new_channel(), await layer.new_channel()
    for channel in (ann, bob):
        await layer.group_add("room_a", channel)
    scores = {"ann": 1}
    sent = {"type": "room.event", "scores": scores}
    await layer.group_send("room_a", sent)
    scores["ann"] = 99  # the sender reuses its dict
    first = await layer.receive(ann)
    first["scores"]["ann"] = 5  # a receiver changes what it got
    assert (await layer.receive(bob))["scores"] == {"ann": 1}


async def test_an_empty_queue_nobody_waits_on_is_dropped_by_the_sweep(clock: list[float]) -> None:
    layer = EmbeddedChannelLayer()
    gone, waiting = await layer.new_channel(), await layer.new_channel()
    await layer.send(gone, {"type": "room.event"})
    await layer.receive(gone)  # the socket read its last message, then closed
    receiver = asyncio.create_task(layer.receive(waiting))
    await asyncio.sleep(0)
    clock[0] += SWEEP_EVERY_SECONDS
    layer._clean_expired()
    assert gone not in layer.channels
    assert waiting in layer.channels  # a socket waiting for its next message keeps its queue
    await layer.send(waiting, {"type": "room.event", "n": 2})
    assert (await receiver)["n"] == 2
