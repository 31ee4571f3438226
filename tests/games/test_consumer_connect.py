"""The room websocket: who may connect, the state sent on connect, and how the socket
copes with bad input and floods (an ``error`` each time, and it keeps working)."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import OperationalError

from boggle_site.asgi import application
from games import consumers, latest_versions
from games.models import Player as PlayerRow
from games.models import Room
from tests.games.ws_helpers import (
    ask,
    collect,
    connect,
    create_room,
    join_room,
    open_socket,
    receive,
    receive_until,
    send,
    start_round,
    submit,
)
from web import throttle

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]


async def assert_closed_with(comm, code: int) -> None:
    output = await comm.receive_output(timeout=2)
    assert output == {"type": "websocket.close", "code": code}


async def assert_alive(comm) -> None:
    """The socket still answers: a ping gets a pong carrying the client's time."""
    reply = await ask(comm, "ping", client_time=123)
    assert reply["type"] == "pong" and reply["client_time"] == 123
    assert isinstance(reply["server_time"], int)


# ---------------------------------------------------------------- who may connect


async def test_a_bad_token_gets_an_error_then_close_4403():
    """A token that belongs to nobody in the room: an error saying why, then close 4403."""
    ann = await create_room()
    comm = await open_socket(ann.code, "not-a-token")
    error = await receive(comm)
    assert error["type"] == "error" and error["code"] == "not_a_player"
    assert error["message"]
    await assert_closed_with(comm, consumers.CLOSE_NOT_A_PLAYER)


async def test_a_token_of_another_room_is_refused():
    """A player's token only opens their own room."""
    ann = await create_room()
    other = await create_room("Zed")
    comm = await open_socket(other.code, ann.token)
    assert (await receive(comm))["code"] == "not_a_player"
    await assert_closed_with(comm, 4403)


async def test_no_credentials_at_all_is_refused():
    """Neither token nor session: not a player."""
    ann = await create_room()
    comm = await open_socket(ann.code)
    assert (await receive(comm))["code"] == "not_a_player"
    await assert_closed_with(comm, 4403)


async def test_an_unknown_room_closes_4404():
    """A code that names no room: error room_not_found, then close 4404."""
    comm = await open_socket("nosuchroom", "whatever")
    error = await receive(comm)
    assert error["type"] == "error" and error["code"] == "room_not_found"
    await assert_closed_with(comm, consumers.CLOSE_NO_ROOM)


async def test_a_browser_session_authenticates_the_socket():
    """The session cookie set by the HTTP join identifies the player, no token needed."""
    ann = await create_room()
    bob = await join_room(ann.code, "Bob")
    cookie = f"sessionid={bob.client.cookies['sessionid'].value}".encode()
    comm = await open_socket(ann.code, headers=[(b"cookie", cookie)])
    state = (await receive(comm))["state"]
    assert state["you"] == bob.id
    await assert_alive(comm)


async def test_a_session_of_another_room_is_refused():
    """A browser that plays elsewhere is nobody here."""
    ann = await create_room()
    other = await create_room("Zed")
    cookie = f"sessionid={ann.client.cookies['sessionid'].value}".encode()
    comm = await open_socket(other.code, headers=[(b"cookie", cookie)])
    assert (await receive(comm))["code"] == "not_a_player"
    await assert_closed_with(comm, 4403)


async def test_a_player_who_left_cannot_connect():
    """After leaving, the old token no longer opens the room."""
    ann = await create_room()
    bob = await join_room(ann.code, "Bob")
    await connect(bob)
    assert (await ask(bob.comm, "leave"))["type"] == "ok"
    comm = await open_socket(ann.code, bob.token)
    assert (await receive(comm))["code"] == "not_a_player"
    await assert_closed_with(comm, 4403)


async def test_a_foreign_origin_is_rejected():
    """A page on another site cannot open a socket with the visitor's cookies."""
    from channels.testing import WebsocketCommunicator

    from boggle_site.asgi import application

    ann = await create_room()
    comm = WebsocketCommunicator(
        application,
        f"/ws/rooms/{ann.code}/",
        headers=[
            (b"origin", b"https://evil.example"),
            (b"authorization", f"Bearer {ann.token}".encode()),
        ],
    )
    connected, _ = await comm.connect()
    assert not connected


# ---------------------------------------------------------------- state on connect


async def test_state_on_connect():
    """The first message is the whole room: code, settings, players, host, you, version."""
    ann = await create_room(settings={"round_seconds": 60})
    bob = await join_room(ann.code, "Bob")
    state = await connect(bob)
    assert state["code"] == ann.code
    assert state["you"] == bob.id
    assert state["host_id"] == ann.id
    assert [p["nickname"] for p in state["players"]] == ["Ann", "Bob"]
    assert state["settings"]["round_seconds"] == 60
    assert "english" in state["dictionaries"]
    assert state["round"] is None and state["my_words"] == [] and state["results"] is None
    assert isinstance(state["version"], int)


async def test_others_see_a_player_come_online_and_go_offline():
    """Opening and closing a socket sends player.online to the room."""
    ann = await create_room()
    bob = await join_room(ann.code, "Bob")
    await connect(ann)
    await connect(bob)
    online = await receive_until(ann.comm, "player.online", player_id=bob.id)
    assert online["online"] is True
    await bob.comm.disconnect()
    bob.comm = None
    offline = await receive_until(ann.comm, "player.online", player_id=bob.id)
    assert offline["online"] is False
    row = await sync_to_async(PlayerRow.objects.with_presence().get)(pk=bob.id)
    assert not row.online


async def test_two_tabs_count_as_one_online_player():
    """A second socket of the same player does not announce them again; closing one of two
    keeps them online."""
    ann = await create_room()
    bob = await join_room(ann.code, "Bob")
    await connect(ann)
    await connect(bob)
    await receive_until(ann.comm, "player.online", player_id=bob.id)
    second = await open_socket(ann.code, bob.token)
    await receive(second)  # state
    await bob.comm.disconnect()
    bob.comm = None
    assert not [m for m in await collect(ann.comm) if m["type"] == "player.online"]
    row = await sync_to_async(PlayerRow.objects.with_presence().get)(pk=bob.id)
    assert row.online


async def test_sync_resends_the_state():
    """A client that saw a version gap asks for sync and gets a fresh state, tagged with its
    request id like every other reply."""
    ann = await create_room()
    await connect(ann)
    reply = await ask(ann.comm, "sync")
    assert reply["type"] == "state"
    assert reply["state"]["code"] == ann.code and reply["state"]["you"] == ann.id


async def test_leave_is_answered_with_the_request_id_then_closes():
    """The ok for leave carries the request id; then the server closes the socket."""
    ann = await create_room()
    await connect(ann)
    reply = await ask(ann.comm, "leave")
    assert (reply["type"], reply["request"]) == ("ok", "leave")
    output = await ann.comm.receive_output(timeout=2)
    assert output["type"] == "websocket.close"


async def test_leaving_from_one_tab_closes_the_players_other_tabs():
    """A player who left plays no more: their other sockets get ``left`` and close (1000),
    and the first socket still gets its ``ok`` first."""
    ann = await create_room()
    bob = await join_room(ann.code, "Bob")
    await connect(bob)
    other_tab = await open_socket(ann.code, bob.token)
    assert (await receive(other_tab))["type"] == "state"
    reply = await ask(bob.comm, "leave")
    assert (reply["type"], reply["request"]) == ("ok", "leave")
    left = await receive_until(other_tab, "left")
    assert left["message"] == "you left the room" and "version" not in left
    closed = await other_tab.receive_output(timeout=2)
    assert closed == {"type": "websocket.close", "code": 1000}


async def test_a_pong_reveals_a_lost_last_event():
    """No later event shows the gap when the last one is lost (a round's end): a pong
    carries the room's version, so a client can tell it is behind and sync."""
    ann = await create_room()
    state = await connect(ann)
    pong = await ask(ann.comm, "ping", client_time=1)
    assert pong["version"] >= state["version"]
    behind = pong["version"]
    # An event the socket never gets (as if lost between processes).
    await sync_to_async(Room.objects.filter(code=ann.code).update)(version=behind + 1)
    latest_versions._versions.clear()  # past the pong's second of caching
    assert (await ask(ann.comm, "ping"))["version"] == behind + 1
    synced = await ask(ann.comm, "sync")
    assert synced["state"]["version"] == behind + 1


async def test_a_pong_comes_even_when_the_database_cannot_give_the_version(monkeypatch):
    """While the database restarts a ping is still answered (with the last version read, or
    none), so a slow database never looks to the client like a dead socket."""
    ann = await create_room()
    await connect(ann)
    known = (await ask(ann.comm, "ping"))["version"]

    def database_down(room_id: int) -> int:
        raise OperationalError("the database system is starting up")

    monkeypatch.setattr(latest_versions, "_room_version", database_down)
    latest_versions._versions.update(
        {k: (0.0, v) for k, (_, v) in latest_versions._versions.items()}
    )
    assert (await ask(ann.comm, "ping", client_time=7))["version"] == known  # the last read
    latest_versions._versions.clear()
    pong = await ask(ann.comm, "ping", client_time=8)
    assert pong["type"] == "pong" and pong["client_time"] == 8 and "version" not in pong


# ---------------------------------------------------------------- bad input


BAD_MESSAGES = [
    ("not json at all", "malformed JSON"),
    ("[1, 2, 3]", '"type"'),
    ('"ping"', '"type"'),
    ('{"type": 5}', '"type"'),
    ('{"word": "cats"}', '"type"'),
    ('{"type": "dance"}', "unknown message type"),
    (json.dumps({"type": "ping", "padding": "x" * 5000}), "too large"),
    (json.dumps({"type": "submit", "word": "a" * 10_000}), "too large"),
]


@pytest.mark.parametrize(("text", "complaint"), BAD_MESSAGES)
async def test_bad_messages_get_an_error_and_the_socket_keeps_working(text, complaint):
    """Malformed JSON, non-objects, a missing or unknown type and oversize messages each get
    an ``error`` (code invalid) saying what is wrong; the socket stays open."""
    ann = await create_room()
    await connect(ann)
    await ann.comm.send_to(text_data=text)
    error = await receive_until(ann.comm, "error")
    assert error["type"] == "error" and error["code"] == "invalid"
    assert complaint in error["message"]
    await assert_alive(ann.comm)


async def test_a_binary_frame_gets_an_error():
    """Bytes instead of text: an error, and the socket stays open."""
    ann = await create_room()
    await connect(ann)
    await ann.comm.send_to(bytes_data=b'{"type": "ping"}')
    error = await receive_until(ann.comm, "error")
    assert error["type"] == "error" and "text" in error["message"]
    await assert_alive(ann.comm)


@pytest.mark.parametrize(
    ("word", "complaint"),
    [
        ("a" * 100, "72"),
        ("ca\x00ts", "control"),
        ("ca\x07ts", "control"),
        (17, "text"),
        (None, "text"),
    ],
)
async def test_bad_words_get_an_error_and_the_socket_keeps_working(word, complaint):
    """Overlong words, control characters and non-text words are refused with an error that
    echoes the request id; the player can go on playing."""
    ann = await create_room()
    await connect(ann)
    await start_round(ann)
    error = await ask(ann.comm, "submit", word=word)
    assert error["type"] == "error" and error["code"] == "invalid"
    assert error["request"] == "submit"
    assert complaint in error["message"]
    await assert_alive(ann.comm)
    assert (await submit(ann.comm, "cats"))["verdict"] == "accepted"


async def test_bad_settings_get_an_error():
    """Settings that are not an object, or an unknown one, are refused with a message."""
    ann = await create_room()
    await connect(ann)
    error = await ask(ann.comm, "update_settings", settings="fast")
    assert (error["type"], error["code"]) == ("error", "invalid")
    error = await ask(ann.comm, "update_settings", settings={"speed": 11})
    assert "speed" in error["message"]
    for name in ("dice_set", "dictionary"):
        error = await ask(ann.comm, "update_settings", settings={name: [name]})
        assert (error["type"], error["code"]) == ("error", "invalid")
        assert name in error["message"]
    await assert_alive(ann.comm)


# ---------------------------------------------------------------- flooding


async def test_a_flood_of_submissions_is_rate_limited_then_recovers():
    """Far more messages than the burst allows: the excess gets rate_limited errors (each
    answered, none dropped), and after a pause messages work again."""
    import asyncio

    ann = await create_room()
    await connect(ann)
    await start_round(ann)
    flood = throttle.PLAYER_MESSAGE.burst * 3
    for index in range(flood):
        await send(ann.comm, "submit", word="xyzzy", request_id=index)
    replies = {}
    while len(replies) < flood:
        message = await receive(ann.comm)
        if "request_id" in message:
            replies[message["request_id"]] = message
    limited = [r for r in replies.values() if r["type"] == "error"]
    assert limited, "nothing was rate limited"
    assert all(r["code"] == "rate_limited" and r["request"] == "submit" for r in limited)
    # The bucket starts full: the first messages of the burst all went through.
    assert all(
        replies[index]["type"] == "verdict" for index in range(throttle.PLAYER_MESSAGE.burst - 5)
    )
    verdicts = [r for r in replies.values() if r["type"] == "verdict"]
    assert len(verdicts) + len(limited) == flood
    await asyncio.sleep(3 / throttle.PLAYER_MESSAGE.per_second)
    assert (await submit(ann.comm, "cats"))["verdict"] == "accepted"
    await assert_alive(ann.comm)


async def test_rate_limits_are_per_player(no_refill) -> None:
    """One player's flood does not slow another player down: once Ann has spent her whole
    bucket and is refused, Bob (same room) still has a full bucket of his own, and his
    messages do not refill hers. Buckets do not refill here, so this holds however fast the
    test runs; a bucket shared by the players would refuse Bob's first message."""
    ann = await create_room()
    bob = await join_room(ann.code, "Bob")
    await connect(ann)
    await connect(bob)
    flood = throttle.PLAYER_MESSAGE.burst + 5
    for request_id in range(flood):
        await send(ann.comm, "ping", request_id=request_id)
    replies: dict[int, dict] = {}
    while len(replies) < flood:
        message = await receive(ann.comm)
        if "request_id" in message:
            replies[message["request_id"]] = message
    # The bucket's first BURST messages went through, the rest were refused.
    assert [replies[i]["type"] for i in range(throttle.PLAYER_MESSAGE.burst)] == [
        "pong"
    ] * throttle.PLAYER_MESSAGE.burst
    assert {replies[i].get("code") for i in range(throttle.PLAYER_MESSAGE.burst, flood)} == {
        "rate_limited"
    }
    for _ in range(throttle.PLAYER_MESSAGE.burst):
        assert (await ask(bob.comm, "ping"))["type"] == "pong"
    assert (await ask(ann.comm, "ping"))["code"] == "rate_limited"


async def test_unknown_websocket_path_gets_an_error_and_4404():
    """A socket on a path that is no room's gets a room_not_found error and close 4404, as an unknown room does."""
    comm = WebsocketCommunicator(application, "/ws/nowhere/")
    connected, _ = await comm.connect()
    assert connected
    message = json.loads(await comm.receive_from())
    assert message["type"] == "error" and message["code"] == "room_not_found"
    assert "/ws/rooms/" in message["message"]
    await assert_closed_with(comm, 4404)


@pytest.mark.parametrize(
    ("host", "origin", "admitted"),
    [
        (b"192.168.1.20:8000", b"http://192.168.1.20:8000", True),  # a phone on the Wi-Fi
        (b"127.0.0.1:8000", b"http://127.0.0.1:8000", True),
        (b"192.168.1.20:8000", None, True),  # a script: no Origin, token instead
        (b"192.168.1.20:8000", b"http://192.168.1.99:8000", False),  # another machine's page
        (b"192.168.1.20:8000", b"http://192.168.1.20:9000", False),  # another port's page
        (b"rebind.attacker.net:8000", b"http://rebind.attacker.net:8000", False),
    ],
)
async def test_embedded_default_admits_its_own_pages_on_any_local_address(
    host: bytes, origin: bytes | None, admitted: bool
):
    """In the embedded default (any address of the laptop) a browser's Origin must be the
    address the socket was opened to, and a local one (DNS rebinding is refused)."""
    from django.conf import settings

    assert settings.BOGGLE_SERVES_LOCAL_NETWORK  # the test settings are the embedded default
    ann = await create_room()
    headers = [(b"host", host), (b"authorization", f"Bearer {ann.token}".encode())]
    headers += [(b"origin", origin)] if origin else []
    comm = WebsocketCommunicator(application, f"/ws/rooms/{ann.code}/", headers=headers)
    connected, _ = await comm.connect()
    assert connected is admitted
    await comm.disconnect()


async def test_a_socket_whose_connect_failed_midway_is_in_no_group(monkeypatch) -> None:
    """A connect that fails after joining the groups (its presence row could not be written)
    ends the socket's application without a disconnect: it leaves its groups all the same,
    and the room's events no longer go to it."""
    from games import events, presence
    from web.fanout import hub

    ann = await create_room("Ann")

    def database_down(player, channel_name: str) -> bool:
        raise OperationalError("the database system is starting up")

    monkeypatch.setattr(presence, "do_connect", database_down)
    comm = await open_socket(ann.code, ann.token)
    with pytest.raises(OperationalError):
        await comm.receive_output(timeout=5)
    assert hub.members(events.room_group(ann.code)) == 0
    assert hub.members(events.player_group(ann.id)) == 0
