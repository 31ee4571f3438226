"""Frames meant to hurt the server: long types echoed back, floods from a client that does
not read, JSON nested past the parser's limit, and one player opening socket after socket."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from boggle_site.asgi import application
from games import consumers, presence
from games.models import Connection
from tests.games.ws_helpers import (
    collect,
    connect,
    create_room,
    join_room,
    open_socket,
    receive,
    receive_until,
)
from web import socket_limits, throttle

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]


async def next_output(comm) -> dict:
    return await comm.receive_output(timeout=5)


async def next_error(comm) -> dict:
    """The next ``error`` (room events, such as player.online, may come first)."""
    return await receive_until(comm, "error")


async def test_a_long_unknown_type_is_not_echoed_in_full():
    """The reply to an unknown 4,000-character type repeats at most 32 characters of it."""
    ann = await create_room()
    await connect(ann)
    kind = "x" * 4000
    await ann.comm.send_to(text_data=json.dumps({"type": kind, "request_id": 1}))
    error = await next_error(ann.comm)
    assert (error["type"], error["code"], error["request_id"]) == ("error", "invalid", 1)
    assert "unknown message type" in error["message"]
    assert error["request"] == "x" * 31 + "…"
    assert len(json.dumps(error)) < 600


async def test_a_short_unknown_type_is_echoed_as_sent():
    ann = await create_room()
    await connect(ann)
    await ann.comm.send_to(text_data=json.dumps({"type": "dance"}))
    error = await next_error(ann.comm)
    assert error["request"] == "dance" and "'dance'" in error["message"]


async def test_a_long_type_is_not_echoed_when_rate_limited(no_refill):
    ann = await create_room()
    await connect(ann)
    for _ in range(throttle.PLAYER_MESSAGE.burst):
        await ann.comm.send_to(text_data=json.dumps({"type": "y" * 4000}))
    for _ in range(throttle.PLAYER_MESSAGE.burst):
        assert (await next_error(ann.comm))["code"] == "invalid"
    await ann.comm.send_to(text_data=json.dumps({"type": "y" * 4000}))
    error = await next_error(ann.comm)
    assert error["code"] == "rate_limited" and len(error["request"]) == 32


async def test_a_socket_that_keeps_flooding_is_closed_4008(no_refill):
    """Past the burst every message is answered rate_limited, and past the flood allowance
    the socket is closed: what a client that never reads can make the server queue is
    bounded."""
    ann = await create_room()
    await connect(ann)
    sent = throttle.PLAYER_MESSAGE.burst + socket_limits.FLOOD_ALLOWANCE + 50
    for _ in range(sent):
        await ann.comm.send_to(text_data=json.dumps({"type": "z" * 4000}))
    replies = 0
    while True:
        output = await next_output(ann.comm)
        if output["type"] == "websocket.close":
            break
        replies += json.loads(output["text"])["type"] == "error"
    assert output["code"] == socket_limits.CLOSE_FLOODING
    assert replies == throttle.PLAYER_MESSAGE.burst + socket_limits.FLOOD_ALLOWANCE


async def test_flooding_with_malformed_frames_is_rate_limited_too(no_refill):
    """Frames that cannot be read spend the rate limit like any other."""
    ann = await create_room()
    await connect(ann)
    for _ in range(throttle.PLAYER_MESSAGE.burst + 1):
        await ann.comm.send_to(text_data="not json")
    codes = [(await next_error(ann.comm))["code"] for _ in range(throttle.PLAYER_MESSAGE.burst + 1)]
    assert codes == ["invalid"] * throttle.PLAYER_MESSAGE.burst + ["rate_limited"]


async def test_deeply_nested_json_is_invalid_without_a_traceback(caplog):
    """JSON nested deeper than the parser recurses: ``invalid``, nothing logged, and the
    socket keeps working."""
    ann = await create_room()
    await connect(ann)
    for text in ("[" * 2000 + "]" * 2000, '{"a":' + "[" * 1500 + "]" * 1500 + "}"):
        assert len(text) <= consumers.MAX_MESSAGE_CHARS
        with caplog.at_level(logging.WARNING):
            await ann.comm.send_to(text_data=text)
            error = await next_error(ann.comm)
        assert (error["type"], error["code"]) == ("error", "invalid")
        assert "too deeply nested" in error["message"] and error["request"] is None
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]
    await ann.comm.send_to(text_data=json.dumps({"type": "ping", "client_time": 1}))
    assert (await receive(ann.comm))["type"] == "pong"


async def test_a_player_holds_at_most_eight_sockets_per_process():
    """The ninth socket of one player is refused (error, close 4029); once one closes, a
    new one is admitted."""
    ann = await create_room()
    limit = socket_limits.MAX_SOCKETS_PER_PLAYER
    comms = []
    for _ in range(limit):
        comm = await open_socket(ann.code, ann.token)
        assert (await receive(comm))["type"] == "state"
        comms.append(comm)
    extra = await open_socket(ann.code, ann.token)
    error = await next_error(extra)
    assert (error["type"], error["code"]) == ("error", "too_many_connections")
    output = await next_output(extra)
    assert output == {"type": "websocket.close", "code": socket_limits.CLOSE_TOO_MANY_SOCKETS}
    assert presence.sockets_of(ann.id) == limit
    await comms[0].disconnect()
    again = await open_socket(ann.code, ann.token)
    assert (await receive(again))["type"] == "state"


async def test_another_player_is_not_limited_by_a_players_sockets():
    ann = await create_room()
    for _ in range(socket_limits.MAX_SOCKETS_PER_PLAYER):
        comm = await open_socket(ann.code, ann.token)
        assert (await receive(comm))["type"] == "state"
    bob = await create_room("Bob")
    await connect(bob)


async def test_sockets_opened_together_are_capped_and_dropping_them_all_goes_offline():
    """Many sockets of one player opened at once: exactly the limit is admitted (the count
    has no gap to race through); all dropped at once, the player goes offline at the next
    beat and this process holds none of them."""
    ann = await create_room()
    comms = await asyncio.gather(*(open_socket(ann.code, ann.token) for _ in range(40)))
    firsts = [(await receive(comm))["type"] for comm in comms]
    assert firsts.count("state") == socket_limits.MAX_SOCKETS_PER_PLAYER
    assert firsts.count("error") == 40 - socket_limits.MAX_SOCKETS_PER_PLAYER
    assert await sync_to_async(live_sockets)(ann.id) == socket_limits.MAX_SOCKETS_PER_PLAYER
    await asyncio.gather(*(comm.disconnect() for comm in comms))
    assert presence.sockets_of(ann.id) == 0
    await sync_to_async(presence.beat)()
    assert await sync_to_async(live_sockets)(ann.id) == 0


def live_sockets(player_id: int) -> int:
    return Connection.objects.live().filter(player_id=player_id).count()


async def test_sockets_opened_from_one_address_are_limited(monkeypatch):
    """Past the per-address allowance a socket is refused before authenticating (error,
    close 4029); another address, and this machine, are not held back."""
    throttle.reset()
    monkeypatch.setattr(throttle, "SOCKET", throttle.Limit("socket", 0.01, 2, "too many from you"))
    ann = await create_room()

    async def socket_from(address: str) -> WebsocketCommunicator:
        comm = WebsocketCommunicator(
            application,
            f"/ws/rooms/{ann.code}/",
            [(b"authorization", f"Bearer {ann.token}".encode())],
        )
        comm.scope["client"] = [address, 40000]
        connected, _ = await comm.connect()
        assert connected
        return comm

    comms = [await socket_from("203.0.113.5") for _ in range(3)]
    try:
        assert [(await receive(comm))["type"] for comm in comms[:2]] == ["state", "state"]
        error = await next_error(comms[2])
        assert error["code"] == "too_many_connections"
        assert error["message"].startswith("too many from you; try again in")
        assert await next_output(comms[2]) == {
            "type": "websocket.close",
            "code": socket_limits.CLOSE_TOO_MANY_SOCKETS,
        }
        for address in ("198.51.100.7", "127.0.0.1"):
            comms.append(await socket_from(address))
            assert (await receive(comms[-1]))["type"] == "state"
    finally:
        for comm in comms:
            await comm.disconnect()
        throttle.reset()


async def test_players_joined_from_one_address_share_its_message_budget(monkeypatch):
    """Joining many times over does not multiply what one address may send: once the
    address's budget is spent, a player with a full bucket of their own is refused too,
    while a player from another address is not."""
    throttle.reset()
    monkeypatch.setattr(
        throttle, "MESSAGE", throttle.Limit("message", 0.01, 3, "too many from you")
    )
    ann = await create_room()
    bob = await join_room(ann.code, "Bob")
    cy = await join_room(ann.code, "Cy")

    async def socket_from(player, address: str) -> WebsocketCommunicator:
        comm = WebsocketCommunicator(
            application,
            f"/ws/rooms/{ann.code}/",
            [(b"authorization", f"Bearer {player.token}".encode())],
        )
        comm.scope["client"] = [address, 40000]
        connected, _ = await comm.connect()
        assert connected
        await receive_until(comm, "state")
        return comm

    ann_comm = await socket_from(ann, "203.0.113.5")
    bob_comm = await socket_from(bob, "203.0.113.5")
    cy_comm = await socket_from(cy, "198.51.100.7")
    try:
        for request_id in range(3):  # the address's whole budget, well within Ann's own
            await ann_comm.send_to(text_data=json.dumps({"type": "ping", "request_id": request_id}))
            assert (await receive_until(ann_comm, "pong"))["request_id"] == request_id
        await bob_comm.send_to(text_data=json.dumps({"type": "ping", "request_id": "b"}))
        error = await next_error(bob_comm)
        assert (error["code"], error["request_id"]) == ("rate_limited", "b")
        await cy_comm.send_to(text_data=json.dumps({"type": "ping", "request_id": "c"}))
        assert (await receive_until(cy_comm, "pong"))["request_id"] == "c"
    finally:
        for comm in (ann_comm, bob_comm, cy_comm):
            await comm.disconnect()
        throttle.reset()


async def test_a_reply_to_a_socket_gone_under_the_server_is_dropped_quietly(monkeypatch, caplog):
    """Daphne raises on a send to a socket whose client left before its disconnect reached
    the consumer (a mob leaving with words still being judged): the reply is dropped, the
    socket counts as closed, and nothing is logged as an error."""
    ann = await create_room()
    await connect(ann)
    await collect(ann.comm)  # the room's events of the join

    async def gone(self, *args, **kwargs):
        raise ConnectionError("Attempt to send on a closed protocol")

    monkeypatch.setattr(consumers.RoomConsumer, "send", gone)
    with caplog.at_level(logging.WARNING):
        await ann.comm.send_to(text_data=json.dumps({"type": "ping", "request_id": 1}))
        assert await ann.comm.receive_nothing(timeout=0.5)
        monkeypatch.undo()
        await ann.comm.send_to(text_data=json.dumps({"type": "ping", "request_id": 2}))
        assert await ann.comm.receive_nothing(timeout=0.5)  # closed for this consumer
    assert not [record for record in caplog.records if record.levelno >= logging.WARNING]
