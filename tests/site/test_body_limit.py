"""Request bodies over their path's limit are refused before anything reads them
(boggle_site.body_limit, wrapped around Django in boggle_site.asgi)."""

from __future__ import annotations

import asyncio
import json
import re
import socket
from typing import Any

import pytest

from boggle_site import asgi
from boggle_site.body_limit import BodyLimitMiddleware, limit_for
from photos.api import MAX_UPLOAD_BYTES
from solver.compiler import MAX_WORDLIST_BYTES
from tests.servers import SiteServer

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
        self.messages: list[dict[str, Any]] = []

    async def __call__(self, message: dict[str, Any]) -> None:
        self.messages.append(message)

    @property
    def status(self) -> int:
        return self.messages[0]["status"]

    def header(self, name: bytes) -> bytes | None:
        return dict(self.messages[0]["headers"]).get(name)

    def json(self) -> Any:
        return json.loads(b"".join(m.get("body", b"") for m in self.messages[1:]))


def scope(path: str, length: int | str | None, method: str = "POST") -> dict[str, Any]:
    headers = [(b"host", b"127.0.0.1"), (b"content-type", b"multipart/form-data; boundary=x")]
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


def test_bodies_within_the_limit_pass_untouched() -> None:
    inner = Echo()
    size = 5_000_000

    sent = run(BodyLimitMiddleware(inner), scope("/api/rooms/abc/photos", size), Body(size))

    assert sent.status == 200
    assert inner.received == size


def test_each_path_has_its_limit() -> None:
    assert limit_for("/api/rooms/abcd2345/photos") > MAX_UPLOAD_BYTES
    assert limit_for("/api/rooms/abcd2345/photos") < MAX_UPLOAD_BYTES * 1.1
    assert limit_for("/admin/dictionaries/dictionary/add/") > MAX_WORDLIST_BYTES
    assert limit_for("/admin/dictionaries/dictionary/3/change/") > MAX_WORDLIST_BYTES
    assert limit_for("/admin/login/") < MAX_WORDLIST_BYTES
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
    server.start()
    yield server
    server.stop()


@pytest.mark.parametrize(
    ("head", "first_part"),
    [
        (
            b"POST /api/rooms/nosuchroom/photos HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: multipart/form-data; boundary=x\r\nContent-Length: 100000000\r\n",
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
