"""Request bodies over their path's limit are refused before anything reads them
(web.body_limit, wrapped around Django in boggle_site.asgi)."""

from __future__ import annotations

import asyncio
import json
import re
import socket
from typing import Any

import pytest

from boggle_site import asgi
from photos.api import MAX_UPLOAD_BYTES
from solver.compiler import MAX_WORDLIST_BYTES
from tests.servers import SiteServer
from web.body_limit import (
    ADMIN_PASS_COOKIE,
    BodyLimitMiddleware,
    Caller,
    Message,
    admin_pass,
    limit_for,
    valid_admin_pass,
)

CHUNK = 64 * 1024


class Body:
    """An ASGI receive() that would yield ``size`` bytes (or for ever), counting its calls."""

    def __init__(self, size: int | None) -> None:
        self.left = size
        self.calls = 0

    async def __call__(self) -> dict[str, Any]:
        self.calls += 1
        if self.left is None:
            return {"type": "http.request", "body": b"0" * CHUNK, "more_body": True}
        chunk = b"0" * min(CHUNK, self.left)
        self.left -= len(chunk)
        return {"type": "http.request", "body": chunk, "more_body": self.left > 0}


class Sent:
    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def __call__(self, message: Message) -> None:
        self.messages.append(message)

    @property
    def status(self) -> int:
        return self.messages[0]["status"]

    def header(self, name: bytes) -> bytes | None:
        return dict(self.messages[0]["headers"]).get(name)

    def json(self) -> Any:
        return json.loads(b"".join(m.get("body", b"") for m in self.messages[1:]))


def scope(
    path: str, length: int | str | None, method: str = "POST", extra: list | None = None
) -> dict[str, Any]:
    headers = [(b"host", b"127.0.0.1"), (b"content-type", b"multipart/form-data; boundary=x")]
    headers += extra or []
    if length is not None:
        headers.append((b"content-length", str(length).encode()))
    return {
        "type": "http",
        "method": method,
        "path": path,
        "headers": headers,
        "client": ("127.0.0.1", 5000),
    }


class Echo:
    """An inner application that reads the whole body, as Django does, then answers 200."""

    def __init__(self) -> None:
        self.received = 0
        self.messages: list[dict[str, Any]] = []

    async def __call__(self, scope, receive, send) -> None:
        while True:
            message = await receive()
            self.messages.append({k: v for k, v in message.items() if k != "body"})
            if message["type"] == "http.disconnect":
                return
            self.received += len(message.get("body", b""))
            if not message.get("more_body"):
                break
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


def run(app, scope_: dict, body: Body) -> Sent:
    sent = Sent()
    asyncio.run(app(scope_, body, sent))
    return sent


def test_a_huge_photo_upload_is_refused_at_once_without_reading_it() -> None:
    """The site's own ASGI application: 100 MB announced to the photo path is a 413 before
    any byte is read (Daphne would otherwise hand the whole body on)."""
    body = Body(100_000_000)

    sent = run(asgi.router, scope("/api/rooms/nosuchroom/photos", 100_000_000), body)

    assert sent.status == 413
    assert sent.json()["error"]["code"] == "too_large"
    assert body.calls == 0


def test_every_other_path_has_a_small_limit() -> None:
    body = Body(20_000)

    sent = run(asgi.router, scope("/api/rooms", 20_000), body)

    assert sent.status == 413
    assert "16 KiB" in sent.json()["error"]["message"]
    assert body.calls == 0


# A player's credentials, as far as the body limit can tell without a database.
BEARER = [(b"authorization", b"Bearer some-token")]


def test_bodies_within_the_limit_pass_untouched() -> None:
    inner = Echo()
    size = 5_000_000

    sent = run(
        BodyLimitMiddleware(inner), scope("/api/rooms/abc/photos", size, extra=BEARER), Body(size)
    )

    assert sent.status == 200
    assert inner.received == size


def test_each_path_has_its_limit() -> None:
    player, staff = Caller(credentials=True), Caller(staff=True, credentials=True)
    assert limit_for("/api/rooms/abcd2345/photos", player) > MAX_UPLOAD_BYTES
    assert limit_for("/api/rooms/abcd2345/photos", player) < MAX_UPLOAD_BYTES * 1.1
    assert limit_for("/admin/dictionaries/dictionary/add/", staff) > MAX_WORDLIST_BYTES
    assert limit_for("/admin/dictionaries/dictionary/3/change/", staff) > MAX_WORDLIST_BYTES
    assert limit_for("/admin/login/", staff) < MAX_WORDLIST_BYTES
    assert limit_for("/api/rooms") == limit_for("/api/rooms/abcd2345/join") == 16 * 1024
    assert limit_for("/api/rooms/abcd2345/photos/extra") == 16 * 1024


def test_a_body_without_length_is_cut_off_once_over_the_limit() -> None:
    """Chunked: bytes are counted as they come; the application sees the client go."""
    inner = Echo()
    body = Body(None)  # would never end

    sent = run(BodyLimitMiddleware(inner), scope("/api/rooms", None), body)

    assert sent.status == 413
    assert sent.json()["error"]["code"] == "too_large"
    assert body.calls <= 16 * 1024 // CHUNK + 2
    assert inner.messages[-1]["type"] == "http.disconnect"
    assert len([m for m in sent.messages if m["type"] == "http.response.start"]) == 1


def test_a_malformed_content_length_is_a_400() -> None:
    body = Body(10)

    sent = run(BodyLimitMiddleware(Echo()), scope("/api/rooms", "ten"), body)

    assert sent.status == 400
    assert sent.json()["error"]["code"] == "invalid"
    assert body.calls == 0


@pytest.mark.parametrize("kind", ["websocket", "lifespan"])
def test_other_scopes_go_straight_through(kind: str) -> None:
    seen: list[str] = []

    async def inner(scope, receive, send) -> None:
        seen.append(scope["type"])

    asyncio.run(BodyLimitMiddleware(inner)({"type": kind, "path": "/ws/"}, Body(0), Sent()))

    assert seen == [kind]


# ---------------------------------------------------------------- who may send big bodies

WORD_LIST_ADD = "/admin/dictionaries/dictionary/add/"
SESSION = "a0b1c2d3e4f5g6h7i8j9k0l1m2n3o4p5"


def cookies(**values: str) -> list[tuple[bytes, bytes]]:
    return [(b"cookie", "; ".join(f"{k}={v}" for k, v in values.items()).encode())]


def test_an_anonymous_admin_upload_is_refused_before_a_byte_is_read() -> None:
    """The probe: 60 MB sent anonymously to the word-list form were read in full (+64 MB)
    before the admin asked for a login. Without a staff pass the admin's limit is 16 KiB,
    announced or counted as it comes."""
    body = Body(60_000_000)
    sent = run(asgi.router, scope(WORD_LIST_ADD, 60_000_000), body)
    assert sent.status == 413 and sent.json()["error"]["code"] == "too_large"
    assert "16 KiB" in sent.json()["error"]["message"]
    assert body.calls == 0

    endless = Body(None)
    inner = Echo()
    sent = run(BodyLimitMiddleware(inner), scope(WORD_LIST_ADD, None), endless)
    assert sent.status == 413
    assert endless.calls <= 16 * 1024 // CHUNK + 2


@pytest.mark.parametrize(
    "headers",
    [
        cookies(sessionid=SESSION),  # a session cookie alone (any visitor has one)
        cookies(sessionid=SESSION, **{ADMIN_PASS_COOKIE: "forged:value:here"}),
        cookies(sessionid="another-session", **{ADMIN_PASS_COOKIE: admin_pass(SESSION)}),
        BEARER,  # a player's token is not the admin's
    ],
)
def test_only_a_valid_staff_pass_for_the_session_opens_the_admins_limit(headers) -> None:
    body = Body(5_000_000)
    sent = run(asgi.router, scope(WORD_LIST_ADD, 5_000_000, extra=headers), body)
    assert sent.status == 413
    assert body.calls == 0


def test_staff_with_their_pass_upload_word_lists() -> None:
    inner = Echo()
    size = 5_000_000
    headers = cookies(sessionid=SESSION, **{ADMIN_PASS_COOKIE: admin_pass(SESSION)})

    sent = run(BodyLimitMiddleware(inner), scope(WORD_LIST_ADD, size, extra=headers), Body(size))

    assert sent.status == 200
    assert inner.received == size


def test_a_photo_needs_a_players_credentials_for_its_limit() -> None:
    body = Body(5_000_000)
    sent = run(asgi.router, scope("/api/rooms/abc/photos", 5_000_000), body)
    assert sent.status == 413 and body.calls == 0
    inner = Echo()
    headers = cookies(sessionid=SESSION)
    sent = run(
        BodyLimitMiddleware(inner),
        scope("/api/rooms/abc/photos", 5_000_000, extra=headers),
        Body(5_000_000),
    )
    assert sent.status == 200


@pytest.mark.django_db
def test_signed_in_staff_get_a_pass_for_their_session_and_others_do_not() -> None:
    from django.contrib.auth import get_user_model
    from django.test import Client

    staff = get_user_model().objects.create_user("boss", password="pw-123456", is_staff=True)
    visitor = Client()
    assert ADMIN_PASS_COOKIE not in visitor.get("/admin/login/").cookies

    browser = Client()
    browser.force_login(staff)
    response = browser.get("/admin/")
    issued = response.cookies[ADMIN_PASS_COOKIE]
    assert issued["path"] == "/admin/" and issued["httponly"]
    assert valid_admin_pass(issued.value, browser.session.session_key)
    assert not valid_admin_pass(issued.value, "another-session")
    assert ADMIN_PASS_COOKIE not in browser.get("/admin/").cookies  # held already

    player = get_user_model().objects.create_user("player", password="pw-123456")
    someone = Client()
    someone.force_login(player)
    assert ADMIN_PASS_COOKIE not in someone.get("/admin/").cookies


# ---------------------------------------------------------------- a real Daphne


def read_reply(sock: socket.socket) -> bytes:
    """The response's head and body (by its Content-Length), or what came before EOF."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"content-length: *(\d+)", head, re.I).group(1))  # type: ignore[union-attr]
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


@pytest.fixture(scope="module")
def daphne(tmp_path_factory):
    server = SiteServer(tmp_path_factory.mktemp("body-limit"))
    server.migrate()  # the start page, which tells that it is up, reads the dictionaries
    server.start()
    yield server
    server.stop()


@pytest.mark.parametrize(
    ("head", "first_part"),
    [
        (
            b"POST /api/rooms/nosuchroom/photos HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Authorization: Bearer some-token\r\n"
            b"Content-Type: multipart/form-data; boundary=x\r\nContent-Length: 100000000\r\n",
            b"0" * 65536,
        ),
        (  # an anonymous word list: the admin's limit needs a staff pass
            b"POST /admin/dictionaries/dictionary/add/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Cookie: sessionid=abc; boggle_admin_pass=forged\r\n"
            b"Content-Type: multipart/form-data; boundary=x\r\nContent-Length: 60000000\r\n",
            b"0" * 65536,
        ),
        (  # chunked: no length to look at, so the bytes are counted as they come
            b"POST /api/rooms HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n",
            b"".join(b"4000\r\n" + b"0" * 0x4000 + b"\r\n" for _ in range(4)),
        ),
    ],
)
def test_daphne_answers_413_before_the_body_is_sent(daphne, head: bytes, first_part: bytes):
    """Only the start of the body is ever sent: the 413 must come without the rest (else
    the read below waits for ever, until the socket's timeout fails the test)."""
    with socket.create_connection(("127.0.0.1", daphne.port), timeout=20) as sock:
        sock.sendall(head + b"\r\n" + first_part)
        reply = read_reply(sock)

    assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
    body = json.loads(reply.partition(b"\r\n\r\n")[2])
    assert body["error"]["code"] == "too_large"


def test_daphne_takes_a_staff_word_list_with_a_valid_pass(daphne) -> None:
    """The pass is checked inside Daphne too (the server signs with the same development
    key as these tests): 5 MB reach the application, which answers, not a 413."""
    from django.conf import settings

    from boggle_site.env import DEV_SECRET_KEY

    if settings.SECRET_KEY != DEV_SECRET_KEY:
        pytest.skip("the test server signs with another key")
    size = 5_000_000
    head = (
        b"POST /admin/dictionaries/dictionary/add/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + f"Cookie: sessionid={SESSION}; {ADMIN_PASS_COOKIE}={admin_pass(SESSION)}\r\n".encode()
        + b"Content-Type: multipart/form-data; boundary=x\r\n"
        + f"Content-Length: {size}\r\n\r\n".encode()
    )
    with socket.create_connection(("127.0.0.1", daphne.port), timeout=20) as sock:
        sock.sendall(head + b"0" * size)
        reply = read_reply(sock)

    assert reply.startswith(b"HTTP/1.1 ") and not reply.startswith(b"HTTP/1.1 413"), reply[:200]
