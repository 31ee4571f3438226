"""Fuzz every edge of the site as a hostile client would: every URL pattern of the project
(read from Django's resolver, each captured part filled in) and every websocket path
(games.routing), with NUL, lone surrogates (as bytes that are not UTF-8 in URLs, as
``"\\ud800"`` in JSON), 10 kB values and JSON of the wrong type, against a real Daphne on
SQLite (the embedded default) and on PostgreSQL (a throwaway database). No answer may be
a 5xx, no socket may close with 1011 (server error), no reply may be ``server_error``.

Requests come from loopback, which the per-address limits leave alone (web.throttle),
so every value reaches the code that reads it instead of a 429.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import re
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.resolvers import RoutePattern

from tests.games.ws_helpers import BOARD
from tests.servers import SiteServer, throwaway_postgres_database

# Values put in URL paths and query strings, percent-encoded as a client sends them.
URL_VALUES = (
    "%00",
    "ab%00cd",
    "%ED%A0%80",  # a lone surrogate written as UTF-8: bytes that are not UTF-8
    "%FF",
    "x" * 10_000,
    "%0A%E2%80%AE",  # a newline and a bidirectional override
)
# What an HTTP header's value may hold (RFC 9110 field-value, read as Latin-1).
HEADER_TEXT = re.compile(r"[\t\x20-\x7e\x80-\xff]*")
# Values put in JSON bodies and socket messages (a str with a lone surrogate is sent as
# the JSON escape "\ud800").
JSON_VALUES: tuple[Any, ...] = (
    "e\ud800",
    "e\x00",
    "x" * 10_000,
    7,
    -1.5,
    True,
    None,
    ["a", 1],
    {"a": "\x00"},
)
# Headers a client controls that the site reads.
HEADERS = (
    ("Authorization", "Bearer ab\x00cd"),
    ("Authorization", "Bearer " + "x" * 10_000),
    ("Idempotency-Key", "a\x00b"),
    ("Cookie", "sessionid=ab\x00cdefghijklmnop"),
    ("Cookie", "django_language=%00"),
    ("Accept-Language", "\x00"),
    ("If-None-Match", "\x00"),
)
QUERY = "?" + "&".join(
    f"{name}={value}"
    for name, value in (
        ("nickname", "a%00b"),
        ("token", "%ED%A0%80"),
        ("date", "%00"),
        ("q", "%00"),
        ("next", "%00"),
        ("language", "%FF"),
        ("board", "a%00b"),
        ("dictionary", "%ED%A0%80"),
        ("min_length", "%00"),
        ("wait", "%00"),
        ("p", "x" * 2_000),
    )
)
PLACEHOLDER = re.compile(r"<(?:(\w+):)?(\w+)>")


def route_of(pattern: Any) -> str:
    """A pattern's route with each captured part as ``<converter:name>``."""
    if isinstance(pattern, RoutePattern):
        return str(pattern)  # its route
    regex = str(pattern._regex).lstrip("^").removesuffix("$").removesuffix(r"\Z")
    regex = re.sub(r"\(\?P<(\w+)>[^)]*\)", r"<str:\1>", regex)  # named groups
    regex = re.sub(r"\([^)]*\)", "<str:part>", regex)  # unnamed ones
    return regex.replace("\\", "")


def url_templates() -> list[str]:
    """Every URL pattern of the project (admin included), as ``/<str:code>/...`` routes."""

    def walk(patterns: list[Any], prefix: str) -> Iterator[str]:
        for entry in patterns:
            if isinstance(entry, URLResolver):
                yield from walk(entry.url_patterns, prefix + route_of(entry.pattern))
            elif isinstance(entry, URLPattern):
                yield prefix + route_of(entry.pattern)

    return sorted(set(walk(get_resolver().url_patterns, "/")))


def fill(template: str, value: str, code: str) -> str:
    """The template with every text part ``value`` (``code`` for ``<code>`` when value is
    None-like ""), numbers 1."""

    def part(match: re.Match[str]) -> str:
        converter, name = match.group(1), match.group(2)
        if converter == "int":
            return "1"
        if not value:
            return {"code": code, "language": "english", "word": "cat"}.get(name, "1")
        return value

    return PLACEHOLDER.sub(part, template)


def bodies() -> Iterator[bytes]:
    """JSON bodies whose every text field the site reads is one bad value, then whole
    bodies of the wrong type."""
    for value in JSON_VALUES:
        body = {
            "nickname": value,
            "board": value,
            "word": value,
            "corners": value,
            "dictionary": value,
            "players": value if not isinstance(value, str) else [{"name": value, "words": [value]}],
            "settings": value
            if not isinstance(value, str)
            else {
                "dictionary": value,
                "dice_set": value,
                "photo_set": value,
                "board_size": value,
                "round_seconds": value,
            },
        }
        yield json.dumps(body).encode()
    yield b"[1, 2]"
    yield b'"\\ud800"'
    yield b"\x00"


class Site:
    """HTTP over one keep-alive connection to the server (reopened when it closes)."""

    def __init__(self, server: SiteServer) -> None:
        self.server = server
        self.failures: list[str] = []
        self.dropped: list[str] = []  # requests the server closed the connection on
        self.connection: http.client.HTTPConnection | None = None

    def request(
        self, method: str, path: str, body: bytes | None = None, headers: dict | None = None
    ) -> tuple[int, bytes]:
        headers = {"Host": f"127.0.0.1:{self.server.port}", **(headers or {})}
        if body is not None:
            headers.setdefault("Content-Type", "application/json")
        for attempt in range(2):
            if self.connection is None:
                self.connection = http.client.HTTPConnection("127.0.0.1", self.server.port, 30)
            try:
                self.connection.request(method, path, body=body, headers=headers)
                response = self.connection.getresponse()
                content = response.read()
            except (http.client.HTTPException, OSError):
                self.connection.close()
                self.connection = None
                if attempt:  # dropped twice: Twisted refuses lines over its limit so
                    self.dropped.append(f"{method} {path[:80]}… ({len(path)} chars)")
                    return 0, b""
                continue
            if response.will_close:
                self.connection.close()
                self.connection = None
            if response.status >= 500:
                self.failures.append(f"{method} {path[:120]} -> {response.status}")
            return response.status, content
        raise AssertionError("unreachable")


def fuzz_http(site: Site, code: str) -> int:
    """Every pattern with every bad value, as GET and POST; the real room's URLs also with
    bad query strings, headers and bodies. Returns how many requests were sent."""
    sent = 0
    for template in url_templates():
        for value in ("", *URL_VALUES):
            path = fill(template, value, code)
            site.request("GET", path + (QUERY if not value else ""))
            site.request("POST", path, b'{"nickname": "e\\ud800"}')
            sent += 2
        if "<" not in template or "<str:code>" in template:
            path = fill(template, "", code)
            for name, header in HEADERS:
                site.request("GET", path, headers={name: header})
                sent += 1
            for body in bodies():
                site.request("POST", path, body)
                sent += 1
    return sent


# ---------------------------------------------------------------- sockets


def bearer(token: str | None) -> dict[str, str] | None:
    """A player's token as the socket's handshake carries it (docs/api.md)."""
    return None if token is None else {"Authorization": f"Bearer {token}"}


async def exchange(
    url: str, messages: list[dict | str], failures: list[str], token: str | None = None
) -> int | None:
    """Open a socket (``token`` in its Authorization header), send each message once the
    previous one is answered (backing off when told ``rate_limited``), then close; returns
    the server's close code, if it closed. Records ``server_error`` replies and 1011
    closes in ``failures``."""
    try:
        ws = await websockets.connect(
            url, additional_headers=bearer(token), open_timeout=20, close_timeout=2, max_size=None
        )
    except websockets.InvalidStatus as error:  # refused handshake: its HTTP status
        if error.response.status_code >= 500:
            failures.append(f"{url[:120]}: handshake {error.response.status_code}")
        return None
    try:
        for number, message in enumerate(messages):
            request_id = f"f{number}" if isinstance(message, dict) else None  # raw: no id
            frame = (
                message
                if isinstance(message, str)
                else json.dumps(message | {"request_id": request_id})
            )
            for _attempt in range(20):
                await ws.send(frame)
                reply = await answer(ws, request_id, failures, url)
                if reply is None or reply.get("code") != "rate_limited":
                    break
                await asyncio.sleep(0.3)
        await asyncio.wait_for(drain(ws, failures, url), 0.3)
    except (websockets.ConnectionClosed, TimeoutError):
        pass
    finally:
        await ws.close()
    code = ws.close_code if ws.close_code != 1000 else None
    if ws.close_code == 1011:
        failures.append(f"{url[:120]}: closed with 1011")
    return code


async def answer(ws: Any, request_id: str | None, failures: list[str], url: str) -> dict | None:
    """Messages until the reply carrying ``request_id``, or the next error for a raw
    frame (``request_id`` None); None if none comes in 5 s."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            raw = await asyncio.wait_for(ws.recv(), deadline - time.monotonic())
        except TimeoutError:
            return None
        message = json.loads(raw)
        if message.get("code") == "server_error":
            failures.append(f"{url[:120]}: server_error for {message.get('request')}")
        if message.get("request_id") == request_id or (
            request_id is None and message.get("type") == "error"
        ):
            return message
    return None


async def drain(ws: Any, failures: list[str], url: str) -> None:
    async for raw in ws:
        if json.loads(raw).get("code") == "server_error":
            failures.append(f"{url[:120]}: server_error")


async def until_the_clock_runs(url: str, token: str, failures: list[str]) -> None:
    """Wait until the room's round runs and the server's clock has passed its
    ``starts_at`` (the countdown over), as the server's ``sync`` replies say."""
    async with websockets.connect(
        url, additional_headers=bearer(token), open_timeout=20, close_timeout=2, max_size=None
    ) as ws:
        for number in range(100):
            request_id = f"clock{number}"
            await ws.send(json.dumps({"type": "sync", "request_id": request_id}))
            reply = await answer(ws, request_id, failures, url) or {}
            round_ = (reply.get("state") or {}).get("round") or {}
            if round_.get("status") == "running" and reply["server_time"] >= round_["starts_at"]:
                return
            await asyncio.sleep(0.2)
    raise AssertionError("the round's countdown never ended")


def bad_messages(kinds: list[str]) -> list[dict | str]:
    """Each message type with each bad value in each of its fields, and broken frames."""
    fields = {
        "submit": ("word", "client_id"),
        "challenge": ("word", "round_number"),
        "update_settings": ("settings",),
        "set_board": ("board",),
        "kick": ("player_id",),
        "unkick": ("player_id",),
        "transfer_host": ("player_id",),
        "rule_challenge": ("challenge_id", "accept"),
        "vote_challenge": ("challenge_id", "accept"),
        "ping": ("client_time",),
    }
    messages: list[dict | str] = []
    for kind in kinds:
        for field in fields.get(kind, ()):
            for value in JSON_VALUES:
                base = (
                    {"word": "cat", "client_id": "c", "round_number": 1}
                    if kind in ("submit", "challenge")
                    else {}
                )
                messages.append({"type": kind, **base, field: value})
    for value in JSON_VALUES:
        messages.append({"type": value})
        messages.append({"type": "ping", "request_id": value})
    messages += ["\x00", '"\\ud800"', "[" * 5000, '{"type": "sync", "x": "\\u0000"}']
    return messages


async def fuzz_sockets(
    server: SiteServer, code: str, tokens: tuple[str, str], failures: list[str]
) -> int:
    base = f"ws://127.0.0.1:{server.port}"
    opened = 0
    # Every socket path with bad codes and tokens: each must be refused cleanly.
    for value in (*URL_VALUES, code + "%00"):
        for path in (f"/ws/rooms/{value}/", f"/ws/rooms/{value}/watch/", f"/ws/{value}"):
            await exchange(base + path, [], failures)
            opened += 1
        # A token in the address is refused before it is read (token_in_url).
        closed = await exchange(f"{base}/ws/rooms/{code}/?token={value}", [], failures)
        assert closed == 4400, (value, closed)
        # As the Bearer token: the text itself, and its bytes (a header is read as Latin-1)
        # when a header can carry them (no NUL, no newline): no player's, or a handshake
        # refused for its size.
        raw = urllib.parse.unquote_to_bytes(value).decode("latin-1")
        for token in {value, raw} if HEADER_TEXT.fullmatch(raw) else {value}:
            closed = await exchange(f"{base}/ws/rooms/{code}/", [], failures, token=token)
            assert closed in (4403, None), (value, closed)
            opened += 1
        opened += 1
    # The players' sockets (two, side by side: each has its own rate limit): a round
    # running (words written), then ended (challenges), then every other message.
    room = f"{base}/ws/rooms/{code}/"
    ann, bob = tokens
    setup: list[dict | str] = [{"type": "set_board", "board": BOARD}, {"type": "start_round"}]
    await exchange(room, setup, failures, ann)
    await until_the_clock_runs(room, ann, failures)
    submits = bad_messages(["submit"])
    await asyncio.gather(
        exchange(room, submits[::2], failures, ann), exchange(room, submits[1::2], failures, bob)
    )
    await exchange(room, [{"type": "end_round"}], failures, ann)
    hosts = ["update_settings", "set_board", "kick", "unkick", "transfer_host"]
    others = ["challenge", "rule_challenge", "vote_challenge", "ping"]
    await asyncio.gather(
        exchange(room, bad_messages(hosts), failures, ann),
        exchange(room, bad_messages(others), failures, bob),
        exchange(f"{base}/ws/rooms/{code}/watch/", bad_messages(["ping"]), failures),
    )
    return opened + 5


# ---------------------------------------------------------------- the test


@pytest.fixture(params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SiteServer]:
    """The site on SQLite (embedded default) or on a throwaway PostgreSQL database."""
    if request.param == "sqlite":
        with SiteServer(tmp_path).running() as site:
            yield site
        return
    postgres_url = request.getfixturevalue("postgres_url")
    with (
        throwaway_postgres_database(postgres_url) as database_url,
        SiteServer(tmp_path, database_url=database_url).running() as site,
    ):
        yield site


def test_no_edge_answers_a_server_error(server: SiteServer) -> None:
    site = Site(server)
    status, body = site.request("POST", "/api/rooms", json.dumps({"nickname": "Ann"}).encode())
    assert status == 201, body
    created = json.loads(body)
    code, token = created["room"]["code"], created["player"]["token"]
    status, body = site.request(
        "POST", f"/api/rooms/{code}/join", json.dumps({"nickname": "Bob"}).encode()
    )
    assert status == 201, body
    tokens = (token, json.loads(body)["player"]["token"])

    started = time.monotonic()
    sent = fuzz_http(site, code)
    print(f"{sent} requests in {time.monotonic() - started:.1f} s")
    started = time.monotonic()
    socket_failures: list[str] = []
    opened = asyncio.run(fuzz_sockets(server, code, tokens, socket_failures))
    print(f"{opened} sockets in {time.monotonic() - started:.1f} s")

    assert sent > 1000 and opened > 20
    # Twisted closes the connection on a request line over 16 KiB (a path holding two
    # 10 kB values): refused before the site sees it, not a server error.
    assert all(int(d.rsplit("(", 1)[1].split()[0]) > 16_384 for d in site.dropped), site.dropped
    failures = site.failures + socket_failures
    assert not failures, "\n".join(failures[:40]) + "\n" + server.log()[-5000:]
    assert "Traceback" not in server.log(), server.log()[-8000:]
