"""Refuse request bodies over their path's limit before anything reads them.

Django's ASGI handler reads a whole body (spooling it to a temporary file) before any view
can look at it, so a view's own size check comes after the cost. This middleware, around
Django's HTTP application (boggle_site.asgi), answers 413 ``too_large`` at once when
Content-Length is over the limit, without reading a byte; a body without one (chunked) is
counted as it arrives and cut off, the application hearing ``http.disconnect``, once over.

Limits: a board photo (photos.api.MAX_UPLOAD_BYTES) and a staff word list
(solver.compiler.MAX_WORDLIST_BYTES) plus room for the multipart wrapping; Django's own
form limit for the rest of the admin; the JSON API's body limit (games.api.MAX_BODY_BYTES)
everywhere else.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, cast
from urllib.parse import unquote

from django.conf import settings

from games.api import MAX_BODY_BYTES
from photos.api import MAX_UPLOAD_BYTES
from solver.compiler import MAX_WORDLIST_BYTES

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# Multipart boundaries, part headers and the form's other fields around the one file.
MULTIPART_OVERHEAD = 64 * 1024

PHOTO_UPLOAD = re.compile(r"/api/rooms/[^/]+/photos")
WORD_LIST_UPLOAD = re.compile(r"/admin/dictionaries/dictionary/(add|[^/]+/change)/")


def limit_for(path: str) -> int:
    """The largest body accepted on this path, in bytes."""
    if PHOTO_UPLOAD.fullmatch(path):
        return MAX_UPLOAD_BYTES + MULTIPART_OVERHEAD
    if WORD_LIST_UPLOAD.fullmatch(path):
        return MAX_WORDLIST_BYTES + MULTIPART_OVERHEAD
    if path.startswith("/admin/"):  # forms with many fields or selected rows
        return int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE or MAX_BODY_BYTES)
    return MAX_BODY_BYTES


def describe(size: int) -> str:
    if size >= 1_000_000:
        return f"{size / 1e6:.0f} MB"
    return f"{size // 1024} KiB"


async def send_error(send: Send, status: int, code: str, message: str) -> None:
    """An answer in the API's error shape (docs/api.md); the connection then closes."""
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def content_length(scope: Scope) -> int | None:
    """The declared length; None when absent; ValueError when malformed or ambiguous."""
    values = {
        value.strip() for name, value in scope.get("headers", []) if name == b"content-length"
    }
    if not values:
        return None
    if len(values) > 1 or not all(v.isdigit() for v in values):
        raise ValueError("bad Content-Length")
    return int(values.pop())


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = limit_for(scope.get("path", ""))
        too_large = f"the request body is over {describe(limit)}, the limit for this address"
        try:
            declared = content_length(scope)
        except ValueError:
            await send_error(send, 400, "invalid", "the Content-Length header is not a number")
            return
        if declared is not None:
            if declared > limit:
                await send_error(send, 413, "too_large", too_large)
                return
            await self.app(scope, receive, send)
            return

        # No length (chunked): count what arrives.
        received = 0
        answered = False

        async def counting_receive() -> Message:
            nonlocal received, answered
            if answered:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    answered = True
                    await send_error(send, 413, "too_large", too_large)
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            if not answered:  # after our 413 the response is done
                await send(message)

        await self.app(scope, counting_receive, guarded_send)


# ---------------------------------------------------------------- under Daphne

# After refusing, read and drop what the client still sends for this long before closing:
# closing at once would reset the connection, and the client might never read the 413.
LINGER_SECONDS = 2.0


def raw_error(status: bytes, code: str, message: str) -> bytes:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    head = (
        b"HTTP/1.1 " + status + b"\r\ncontent-type: application/json\r\n"
        b"content-length: " + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n"
    )
    return head + body


def guard_daphne() -> None:
    """Refuse oversized bodies inside Daphne while they arrive.

    Daphne's Twisted request receives the whole body before the application is called
    (to a temporary file past 100 KB), and Twisted reads a multipart/form-data one into
    memory and parses it on top (100 MB of zeros took Daphne to 1.3 GB), so the middleware
    above comes too late there. This turns Twisted's own parse off (Daphne hands the raw
    body on and never uses it) and answers 413 as soon as Content-Length, or the bytes
    received so far, pass the path's limit; the rest of the body is dropped unread.
    """
    try:
        from daphne.http_protocol import WebRequest
    except ImportError:  # another server: the middleware is enough
        return
    if getattr(WebRequest, "boggle_body_limit", False):
        return
    original_got_length = WebRequest.gotLength
    original_chunk = WebRequest.handleContentChunk
    original_process = WebRequest.process

    def refuse(request: Any) -> None:
        # Here, inside Daphne, the reactor is running; importing it earlier would install
        # Twisted's default one in processes that are not Daphne.
        from twisted.internet import reactor

        request.boggle_refused = True
        channel = request.channel
        limit = describe(request.boggle_limit)
        message = f"the request body is over {limit}, the limit for this address"
        channel.transport.write(raw_error(b"413 Content Too Large", "too_large", message))
        cast(Any, reactor).callLater(LINGER_SECONDS, channel.loseConnection)

    def got_length(request: Any, length: int | None) -> None:
        request._parsePOSTFormSubmission = False
        raw_path = getattr(request.channel, "_path", None)
        if isinstance(raw_path, bytes):
            request.boggle_limit = limit_for(unquote(raw_path.split(b"?")[0].decode("latin-1")))
        else:  # a Twisted without the attribute: only the largest limit, never a false 413
            request.boggle_limit = MAX_WORDLIST_BYTES + MULTIPART_OVERHEAD
        request.boggle_received = 0
        request.boggle_refused = False
        if length is not None and length > request.boggle_limit:
            original_got_length(request, 0)  # an empty buffer: nothing will be kept
            refuse(request)
            return
        original_got_length(request, length)

    def handle_content_chunk(request: Any, data: bytes) -> None:
        if getattr(request, "boggle_refused", False):
            return
        request.boggle_received = getattr(request, "boggle_received", 0) + len(data)
        if request.boggle_received > getattr(request, "boggle_limit", MAX_BODY_BYTES):
            refuse(request)
            return
        original_chunk(request, data)

    def process(request: Any) -> Any:
        if getattr(request, "boggle_refused", False):
            return None  # answered already: the application never sees it
        return original_process(request)

    WebRequest.gotLength = got_length
    WebRequest.handleContentChunk = handle_content_chunk
    WebRequest.process = process
    WebRequest.boggle_body_limit = True
