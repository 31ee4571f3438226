"""How a room socket learns who opens it (docs/api.md, "Authentication"): an API client
sends its token in the handshake's ``Authorization: Bearer`` header, a browser its session
cookie. A token in the socket's address is refused outright (``token_in_url``, close 4400):
an address is written to proxies' logs, so a secret there must not work, or clients keep
leaking it."""

from __future__ import annotations

import pytest
from channels.testing import WebsocketCommunicator

from boggle_site.asgi import application
from games import consumers
from tests.games.ws_helpers import create_room, join_room, receive

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]


def bearer(token: str) -> list[tuple[bytes, bytes]]:
    return [(b"authorization", f"Bearer {token}".encode())]


async def opened(path: str, headers: list[tuple[bytes, bytes]] | None = None):
    comm = WebsocketCommunicator(application, path, headers=headers or [])
    connected, _ = await comm.connect(timeout=10)
    assert connected
    return comm


async def first_and_close(comm: WebsocketCommunicator) -> tuple[dict, dict]:
    """The socket's first message and what follows it (the close, when refused)."""
    first = await receive(comm)
    return first, await comm.receive_output(timeout=5)


def browser_headers(player) -> list[tuple[bytes, bytes]]:
    """What a browser sends: its session cookie, and its own page as the Origin."""
    cookie = player.client.cookies["sessionid"].value
    return [
        (b"cookie", f"sessionid={cookie}".encode()),
        (b"host", b"localhost"),
        (b"origin", b"http://localhost"),
    ]


@pytest.mark.parametrize("query", ["?token={token}", "?a=1&token={token}", "?token="])
async def test_a_token_in_the_socket_url_does_not_authenticate(query: str):
    """A player's valid token in the address: refused with ``token_in_url`` and close 4400,
    never a ``state`` (also with an empty value: the address is refused, not the token)."""
    ann = await create_room()
    comm = await opened(f"/ws/rooms/{ann.code}/" + query.format(token=ann.token))
    first, after = await first_and_close(comm)
    assert first["type"] == "error" and first["code"] == "token_in_url", first
    assert "Authorization" in first["message"]
    assert ann.token not in first["message"]
    assert after == {"type": "websocket.close", "code": consumers.CLOSE_TOKEN_IN_URL}
    assert consumers.CLOSE_TOKEN_IN_URL == 4400


async def test_a_token_in_the_url_is_refused_even_beside_a_good_header_or_session():
    """The refusal does not depend on what else the handshake carries: a client that puts
    its token in an address hears so at once, whatever else it sends."""
    ann = await create_room()
    with_header = await opened(f"/ws/rooms/{ann.code}/?token={ann.token}", bearer(ann.token))
    assert (await receive(with_header))["code"] == "token_in_url"
    with_session = await opened(f"/ws/rooms/{ann.code}/?token={ann.token}", browser_headers(ann))
    assert (await receive(with_session))["code"] == "token_in_url"


async def test_the_table_screen_socket_refuses_a_token_in_its_url_too():
    ann = await create_room()
    comm = await opened(f"/ws/rooms/{ann.code}/watch/?token={ann.token}")
    first, after = await first_and_close(comm)
    assert first["code"] == "token_in_url"
    assert after == {"type": "websocket.close", "code": 4400}


async def test_the_bearer_header_authenticates_the_socket():
    """An API client: its token as ``Authorization: Bearer`` on the handshake."""
    ann = await create_room()
    bob = await join_room(ann.code, "Bob")
    comm = await opened(f"/ws/rooms/{ann.code}/", bearer(bob.token))
    first = await receive(comm)
    assert first["type"] == "state" and first["state"]["you"] == bob.id, first


@pytest.mark.parametrize("value", ["Bearer not-a-token", "Bearer ab\x00cd", "bearer   "])
async def test_a_bad_bearer_header_is_not_a_player(value: str):
    """A token of nobody (or an empty one, with no session): ``not_a_player``, close 4403."""
    ann = await create_room()
    comm = await opened(f"/ws/rooms/{ann.code}/", [(b"authorization", value.encode())])
    first, after = await first_and_close(comm)
    assert first["code"] == "not_a_player", first
    assert after == {"type": "websocket.close", "code": 4403}


async def test_the_header_wins_over_the_session_and_the_session_alone_works():
    ann = await create_room()
    bob = await join_room(ann.code, "Bob")
    both = await opened(f"/ws/rooms/{ann.code}/", browser_headers(ann) + bearer(bob.token))
    assert (await receive(both))["state"]["you"] == bob.id
    session = await opened(f"/ws/rooms/{ann.code}/", browser_headers(ann))
    assert (await receive(session))["state"]["you"] == ann.id
