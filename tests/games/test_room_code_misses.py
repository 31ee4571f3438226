"""One budget of unknown room codes per address, shared by every path that takes a code:
the HTTP API, the pages, the photo endpoints, the player and the spectator sockets
(web.throttle.ROOM_MISS, games.access.find_room_from). Once it is used up, every look-up
by that address is refused with 429 / ``rate_limited`` (close 4029 on a socket), real
codes too, until the oldest miss is a minute old."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from boggle_site.asgi import application
from games import routing
from tests.fake_clock import FakeClock
from tests.games.ws_helpers import _open_sockets, create_room, join_room, receive
from web import socket_limits, throttle

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]

GUESSER = "203.0.113.66"
BUDGET = throttle.ROOM_MISS.count

# Every HTTP route that takes a room code (games/, photos/ and quickplay/urls.py): method, path.
CODE_PATHS = [
    ("get", "/r/{code}/"),
    ("get", "/r/{code}/table/"),
    ("get", "/r/{code}/rounds/1/"),
    ("get", "/api/rooms/{code}"),
    ("post", "/api/rooms/{code}/join"),
    ("get", "/api/rooms/{code}/join-request"),
    ("get", "/api/rooms/{code}/rounds/1"),
    ("get", "/api/rooms/{code}/rounds"),
    ("get", "/api/rooms/{code}/stats"),
    ("get", "/api/rooms/{code}/rounds/1.png"),
    ("post", "/api/rooms/{code}/photos"),
    ("get", "/api/rooms/{code}/photos/1"),
    ("get", "/api/rooms/{code}/photos/1/image"),
    ("post", "/api/rooms/{code}/photos/1/corners"),
    ("post", "/api/rooms/{code}/report"),
]
SOCKET_PATHS = ["/ws/rooms/{code}/", "/ws/rooms/{code}/watch/"]


def code_routes(patterns, prefix: str = "/") -> set[str]:
    """Every HTTP route of the URL conf that takes a room code, as ``CODE_PATHS`` writes it."""
    found: set[str] = set()
    for entry in patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            found |= code_routes(entry.url_patterns, route)
        elif isinstance(entry, URLPattern) and "<str:code>" in route:
            found.add(re.sub(r"<int:\w+>", "1", route.replace("<str:code>", "{code}")))
    return found


def test_every_route_that_takes_a_code_is_covered_here() -> None:
    """A new route or socket path with a room code must be added to the lists above (and
    look its room up with games.access.find_room / find_room_from)."""
    assert code_routes(get_resolver().url_patterns) == {path for _, path in CODE_PATHS}
    socket_routes = [p for p in routing.websocket_urlpatterns if "(?P<code>" in str(p.pattern)]
    assert len(socket_routes) == len(SOCKET_PATHS)


@pytest.fixture(autouse=True)
def clock(monkeypatch) -> Iterator[FakeClock]:
    fake = FakeClock()
    monkeypatch.setattr(throttle, "clock", fake)
    throttle.reset()
    yield fake
    throttle.reset()


def http(method: str, path: str, code: str, address: str = GUESSER) -> int:
    """The status of one request from ``address`` (a fresh browser each time)."""
    browser = Client(REMOTE_ADDR=address)
    url = path.format(code=code)
    if method == "post":
        body = json.dumps({"nickname": "Eve", "corners": [[0, 0], [1, 0], [1, 1], [0, 1]]})
        return browser.post(url, body, content_type="application/json").status_code
    return browser.get(url).status_code


async def socket(path: str, code: str, token: str | None = None) -> tuple[dict, dict]:
    """The first message and the close of a socket from the guesser's address."""
    headers = [(b"authorization", f"Bearer {token}".encode())] if token else []
    comm = WebsocketCommunicator(application, path.format(code=code), headers)
    comm.scope["client"] = [GUESSER, 40000]
    _open_sockets.append(comm)
    connected, _ = await comm.connect()
    assert connected
    first = await receive(comm)
    return first, await comm.receive_output(timeout=5)


def refused(status_or_message: int | dict) -> bool:
    if isinstance(status_or_message, int):
        return status_or_message == 429
    return status_or_message.get("code") == "rate_limited"


@pytest.mark.parametrize(("method", "path"), CODE_PATHS)
async def test_each_http_path_counts_misses_and_then_refuses_real_codes(
    method: str, path: str, clock: FakeClock
) -> None:
    """Guessing through any one path: the budget's misses answer 404, then even the real
    code answers 429 (a 403 or 200 there would tell the guesser the room exists)."""
    ann = await create_room()
    for index in range(BUDGET):
        clock.now += 1  # one a second: within the joins' own limit
        assert await sync_to_async(http)(method, path, f"nosuch{index:02d}") == 404
    assert await sync_to_async(http)(method, path, ann.code) == 429
    assert await sync_to_async(http)(method, path, ann.code, "198.51.100.30") != 429


@pytest.mark.parametrize("path", SOCKET_PATHS)
async def test_each_socket_counts_misses_and_then_refuses_real_codes(path: str) -> None:
    """The player socket allowed 121 misses (its connection limit) where the watch socket
    stopped at 20: both stop at the budget now, a real code and token refused after it."""
    ann = await create_room()
    for index in range(BUDGET):
        first, closed = await socket(path, f"nosuch{index:02d}")
        assert first["code"] == "room_not_found" and closed["code"] == 4404
    first, closed = await socket(path, ann.code, ann.token)
    assert refused(first), first
    assert closed == {"type": "websocket.close", "code": socket_limits.CLOSE_TOO_MANY_SOCKETS}


async def test_every_path_shares_one_budget(clock: FakeClock) -> None:
    """Misses spread over every HTTP path and both sockets add up to one budget; after it
    every path refuses the real room, and the first miss leaving the window frees one."""
    ann = await create_room()
    bob = await join_room(ann.code, "Bob")
    misses = 0
    for index in range(BUDGET):
        clock.now += 1  # one a second: the window is strict, not a refilling bucket
        if index % 8 == 7:
            first, _ = await socket(SOCKET_PATHS[index % 2], f"nosuch{index:02d}")
            assert first["code"] == "room_not_found"
        else:
            method, path = CODE_PATHS[index % len(CODE_PATHS)]
            assert await sync_to_async(http)(method, path, f"nosuch{index:02d}") == 404
        misses += 1
    assert misses == BUDGET

    for method, path in CODE_PATHS:
        assert await sync_to_async(http)(method, path, ann.code) == 429, path
    for path in SOCKET_PATHS:
        first, _ = await socket(path, ann.code, bob.token)
        assert refused(first), (path, first)

    clock.now += 60 - BUDGET + 1  # the first miss is a minute old; the others are not
    assert await sync_to_async(http)("get", "/api/rooms/{code}", ann.code) == 200
    assert await sync_to_async(http)("get", "/api/rooms/{code}", "nosuch99") == 404
    assert await sync_to_async(http)("get", "/api/rooms/{code}", ann.code) == 429
    clock.now += 60
    first, _ = await socket(SOCKET_PATHS[0], ann.code, bob.token)
    assert first["type"] == "state"


async def test_at_most_the_budget_within_any_minute(clock: FakeClock) -> None:
    """A steady guesser gets no more than the budget in any 60 s (a token bucket of the same
    size would let a burst and then its refill through in the first minute)."""
    answered = []
    for index in range(3 * BUDGET):
        clock.now += 1
        status = await sync_to_async(http)("get", "/api/rooms/{code}", f"nosuch{index:02d}")
        if status == 404:
            answered.append(clock.now)
    for start in answered:
        assert sum(start <= at < start + 60 for at in answered) <= BUDGET
    assert len(answered) >= BUDGET
