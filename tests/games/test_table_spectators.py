"""The table screen's read-only websocket (``/ws/rooms/<code>/watch/``, games.spectators):
a spectator gets the room's state and events, answers ``sync`` and ``ping``, may do nothing
else, and is nobody's player (not listed, not online, not in presence)."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from boggle_site.asgi import application
from games import presence
from games.models import Connection, Player, Round
from tests.games.ws_helpers import (
    _open_sockets,
    ask,
    collect,
    connect,
    create_room,
    join_room,
    receive,
    receive_until,
    send,
    start_round,
    submit,
    two_players,
    whole_results,
)
from web import socket_limits, throttle

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]


async def open_watch(code: str, address: str | None = None) -> WebsocketCommunicator:
    """A connected spectator socket (the handshake accepted; nothing read yet)."""
    comm = WebsocketCommunicator(application, f"/ws/rooms/{code}/watch/")
    if address is not None:
        comm.scope["client"] = [address, 40000]
    _open_sockets.append(comm)
    connected, _ = await comm.connect()
    assert connected
    return comm


async def watch(code: str) -> tuple[WebsocketCommunicator, dict]:
    comm = await open_watch(code)
    message = await receive(comm)
    assert message["type"] == "state", message
    return comm, message["state"]


def counts() -> tuple[int, int]:
    return Player.objects.count(), Connection.objects.count()


async def test_a_spectator_gets_the_rooms_state_as_nobody_sees_it():
    ann, bob = await two_players()
    await receive_until(ann.comm, "player.online", player_id=bob.id)
    await collect(ann.comm)
    before = await sync_to_async(counts)()
    held = presence.open_sockets()
    comm, state = await watch(ann.code)
    assert state["code"] == ann.code
    assert state["you"] is None and state["my_words"] == []
    assert [p["nickname"] for p in state["players"]] == ["Ann", "Bob"]
    assert state["round"] is None and state["results"] is None
    # Nobody was made, nobody came online, no presence row, no socket held in presence.
    assert await sync_to_async(counts)() == before
    assert presence.open_sockets() == held
    assert await collect(ann.comm) == []  # no player.online (or anything) for a spectator
    # A sync answers the same picture.
    reply = await ask(comm, "sync")
    assert reply["type"] == "state" and reply["state"]["you"] is None
    assert [p["id"] for p in reply["state"]["players"]] == [ann.id, bob.id]


async def test_a_spectator_follows_a_round_to_its_results():
    ann, bob = await two_players()
    comm, _ = await watch(ann.code)
    carl = await join_room(ann.code, "Carl")
    joined = await receive_until(comm, "player.joined")
    assert joined["player"]["id"] == carl.id
    round_ = await start_round(ann, bob)
    started = await receive_until(comm, "round.started")
    assert started["round"]["board"] == "cats qiex dogz went"
    assert (await submit(bob.comm, "dog"))["accepted"] is True
    assert (await submit(ann.comm, "cats"))["accepted"] is True
    assert (await submit(ann.comm, "went"))["accepted"] is True
    live = await receive_until(comm, "round.counts", counts={str(ann.id): 2, str(bob.id): 1})
    assert set(live["counts"]) == {str(ann.id), str(bob.id)}
    # A state read mid-round has the board and the counts, and no one's words.
    reply = await ask(comm, "sync")
    assert reply["state"]["round"]["status"] == "running"
    assert reply["state"]["counts"] == {str(ann.id): 2, str(bob.id): 1}
    assert reply["state"]["my_words"] == []
    reply = await ask(ann.comm, "end_round")
    assert reply["type"] == "ok", reply
    ended = await receive_until(comm, "round.ended")
    ranking = [(p["nickname"], p["round_points"]) for p in ended["scores"]["players"]]
    assert ranking[0] == ("Ann", 2)
    assert ended["mine"] is None  # a table screen is nobody: it asks for everyone's words
    results = await whole_results(comm, ended)
    assert {p["nickname"]: [w["word"] for w in p["words"]] for p in results["players"]}["Ann"] == [
        "cats",
        "went",
    ]
    state = (await ask(comm, "sync"))["state"]
    assert state["results"]["round"]["number"] == round_.number


async def test_a_spectator_sees_the_countdown_board_like_players_do():
    """The board is in round.started (as for players); starts_at is in the future."""
    ann = await create_room()
    await connect(ann)
    comm, _ = await watch(ann.code)
    await ask(ann.comm, "set_board", board="cats qiex dogz went")
    await ask(ann.comm, "start_round")
    preparing = await receive_until(comm, "round.preparing")
    assert preparing["round"]["starts_at"] is None
    started = await receive_until(comm, "round.started")
    assert started["round"]["starts_at"] > started["server_time"]


async def test_a_spectator_can_only_ping_sync_and_ask_for_results():
    ann = await create_room()
    await connect(ann)
    comm, _ = await watch(ann.code)
    pong = await ask(comm, "ping", client_time=42)
    assert pong["type"] == "pong" and pong["client_time"] == 42
    assert isinstance(pong["server_time"], int) and isinstance(pong["version"], int)
    for kind, fields in [
        ("submit", {"word": "cats", "client_id": "x"}),
        ("start_round", {}),
        ("end_round", {}),
        ("update_settings", {"settings": {"round_seconds": 60}}),
        ("set_board", {"board": "cats qiex dogz went"}),
        ("leave", {}),
        ("kick", {"player_id": ann.id}),
    ]:
        reply = await ask(comm, kind, **fields)
        assert reply["type"] == "error" and reply["code"] == "not_a_player", reply
        assert reply["request"] == kind
    reply = await ask(comm, "dance")
    assert reply["type"] == "error" and reply["code"] == "invalid"
    assert "ping, results, sync" in reply["message"]
    await comm.send_to(text_data="not json")
    assert (await receive(comm))["code"] == "invalid"
    # Nothing happened to the room, and the socket still works.
    rounds = await sync_to_async(Round.objects.filter(room__code=ann.code).count)()
    assert rounds == 0
    assert (await ask(comm, "ping", client_time=1))["type"] == "pong"


async def test_a_spectator_during_a_round_cannot_submit():
    ann = await create_room()
    await connect(ann)
    comm, _ = await watch(ann.code)
    round_ = await start_round(ann)
    await receive_until(comm, "round.started")
    reply = await ask(comm, "submit", word="cats", client_id="s1")
    assert reply["code"] == "not_a_player"
    assert await sync_to_async(round_.submissions.count)() == 0


async def test_an_unknown_room_is_refused_with_4404():
    comm = await open_watch("nosuchroom")
    error = await receive(comm)
    assert error["type"] == "error" and error["code"] == "room_not_found"
    assert await comm.receive_output(timeout=2) == {"type": "websocket.close", "code": 4404}


async def test_spectator_sockets_count_against_the_address(monkeypatch):
    throttle.reset()
    monkeypatch.setattr(throttle, "SOCKET", throttle.Limit("socket", 0.01, 2, "too many from you"))
    try:
        ann = await create_room()
        comms = [await open_watch(ann.code, "203.0.113.9") for _ in range(3)]
        assert [(await receive(c))["type"] for c in comms[:2]] == ["state", "state"]
        error = await receive(comms[2])
        assert error["code"] == "too_many_connections"
        assert await comms[2].receive_output(timeout=2) == {
            "type": "websocket.close",
            "code": socket_limits.CLOSE_TOO_MANY_SOCKETS,
        }
    finally:
        throttle.reset()


async def test_a_flooding_spectator_is_rate_limited(no_refill):
    ann = await create_room()
    comm, _ = await watch(ann.code)
    for _ in range(25):
        await send(comm, "ping", client_time=1)
    replies = [json.loads(await comm.receive_from(timeout=5)) for _ in range(25)]
    assert any(r.get("code") == "rate_limited" for r in replies)


async def test_a_spectator_is_not_listed_when_players_look():
    ann, bob = await two_players()
    await watch(ann.code)
    state = (await ask(bob.comm, "sync"))["state"]
    assert [p["nickname"] for p in state["players"]] == ["Ann", "Bob"]
    assert all(p["online"] for p in state["players"])


async def test_guessing_room_codes_on_the_watch_socket_is_limited(monkeypatch):
    """Unknown codes count as misses for the address (as over HTTP): once they are used up,
    even a real room's code is refused (rate_limited, close 4029)."""
    throttle.reset()
    monkeypatch.setattr(
        throttle, "ROOM_MISS", throttle.Window("room_miss", 2, 60.0, "too many unknown codes")
    )
    try:
        ann = await create_room()
        for _ in range(2):
            comm = await open_watch("nosuchroom", "203.0.113.10")
            assert (await receive(comm))["code"] == "room_not_found"
        comm = await open_watch(ann.code, "203.0.113.10")
        error = await receive(comm)
        assert error["code"] == "rate_limited", error
        assert await comm.receive_output(timeout=2) == {
            "type": "websocket.close",
            "code": socket_limits.CLOSE_TOO_MANY_SOCKETS,
        }
        comm = await open_watch(ann.code, "198.51.100.20")  # another address: fine
        assert (await receive(comm))["type"] == "state"
    finally:
        throttle.reset()
