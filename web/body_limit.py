"""Refuse request bodies over their path's limit before anything reads them.

Django's ASGI handler reads a whole body (spooling it to a temporary file) before any view
can look at it, so a view's own size check comes after the cost. This middleware, around
Django's HTTP application (boggle_site.asgi), answers 413 ``too_large`` at once when
Content-Length is over the limit, without reading a byte; a body without one (chunked) is
counted as it arrives and cut off, the application hearing ``http.disconnect``, once over.

Limits: the uploads apps declare at start (``allow_upload``: a board photo, a staff word
list) plus room for the multipart wrapping, and the larger JSON bodies they declare
(``allow_body``: a paper game's lists); Django's own form limit for the rest of the admin;
the JSON API's body limit (``MAX_BODY_BYTES``) everywhere else.

The large limits are for callers who can use them, and the size is decided before the body
is read, so before any database look-up: only from what the headers show (``Caller``).
The admin's large limits need the staff's admin pass, a cookie signed with the secret key
and bound to the session (``AdminPassMiddleware`` hands it to signed-in staff on any admin
page, so it is there before they upload): it cannot be forged, and checking it is an HMAC.
Without it, every admin path (the login form) gets the API's 16 KiB. A photo needs a
session cookie or an ``Authorization`` header, as a player has; without, 16 KiB too. A path declared for anyone (the Solve page's photo and lists, which
need no room) takes its limit from every caller.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import unquote

from django.conf import settings
from django.core import signing
from django.http import HttpRequest, HttpResponse
from django.http.cookie import parse_cookie

# As Django's ASGIHandler takes them: the scope is a dict, messages are only read.
Scope = dict[str, Any]
Message = Mapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# Largest body of any other request, in bytes: the JSON API's (web.json_api.read_json).
MAX_BODY_BYTES = 16 * 1024
# Multipart boundaries, part headers and the form's other fields around the one file.
MULTIPART_OVERHEAD = 64 * 1024


@dataclass(frozen=True)
class Upload:
    """A path that takes a file larger than the API's bodies, and who may send one."""

    path: re.Pattern[str]
    max_bytes: int  # the file's own limit; the multipart wrapping is allowed on top
    staff_only: bool  # else any caller with credentials (a player's session or token)
    anyone: bool = False  # any caller at all, credentials or not
    multipart: bool = True  # a file in a form: its wrapping is allowed on top


_uploads: list[Upload] = []


def allow_upload(path_pattern: str, max_bytes: int, staff_only: bool, anyone: bool = False) -> None:
    """Declare an upload path (its regular expression matches the whole path); each app
    declares its own when it starts (photos, dictionaries)."""
    _declare(Upload(re.compile(path_pattern), max_bytes, staff_only, anyone))


def allow_body(path_pattern: str, max_bytes: int) -> None:
    """Declare a path whose JSON bodies may be up to ``max_bytes``, from anyone; its view
    reads them with that limit (``web.json_api.read_json``)."""
    _declare(Upload(re.compile(path_pattern), max_bytes, False, anyone=True, multipart=False))


def _declare(upload: Upload) -> None:
    if upload not in _uploads:
        _uploads.append(upload)


ADMIN_PASS_COOKIE = "boggle_admin_pass"
# The module's old name: kept when it moved, so that passes already handed out stay valid.
ADMIN_PASS_SALT = "boggle_site.body_limit.admin_pass"


@dataclass(frozen=True)
class Caller:
    """Who sends a request, as far as its headers tell without a database."""

    staff: bool = False  # a valid admin pass for its session cookie
    credentials: bool = False  # a session cookie or an Authorization header


ANONYMOUS = Caller()


def _session_digest(session_key: str) -> str:
    return hashlib.sha256(session_key.encode()).hexdigest()[:32]


def admin_pass(session_key: str) -> str:
    """The admin pass of a signed-in staff member's session."""
    return signing.TimestampSigner(salt=ADMIN_PASS_SALT).sign(_session_digest(session_key))


def valid_admin_pass(value: str | None, session_key: str | None) -> bool:
    """True when ``value`` is a pass for this session, signed within the session's age."""
    if not value or not session_key:
        return False
    try:
        signed = signing.TimestampSigner(salt=ADMIN_PASS_SALT).unsign(
            value, max_age=settings.SESSION_COOKIE_AGE
        )
    except signing.BadSignature:
        return False
    return hmac.compare_digest(signed, _session_digest(session_key))


def caller_from(cookies: Mapping[str, str], authorization: bool) -> Caller:
    session_key = cookies.get(settings.SESSION_COOKIE_NAME)
    return Caller(
        staff=valid_admin_pass(cookies.get(ADMIN_PASS_COOKIE), session_key),
        credentials=bool(session_key) or authorization,
    )


def scope_caller(scope: Scope) -> Caller:
    """``Caller`` of an ASGI request, from its Cookie and Authorization headers."""
    headers = scope.get("headers", [])
    cookie = "; ".join(value.decode("latin-1") for name, value in headers if name == b"cookie")
    return caller_from(parse_cookie(cookie), any(name == b"authorization" for name, _ in headers))


def limit_for(path: str, caller: Caller = ANONYMOUS) -> int:
    """The largest body accepted on this path from this caller, in bytes."""
    for upload in _uploads:
        if upload.path.fullmatch(path):
            allowed = upload.anyone or (caller.staff if upload.staff_only else caller.credentials)
            return _full_size(upload) if allowed else MAX_BODY_BYTES
    if path.startswith("/admin/") and caller.staff:  # forms, rows
        return int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE or MAX_BODY_BYTES)
    # The admin's login form, or a request that only gets sent there, included.
    return MAX_BODY_BYTES


def largest_limit() -> int:
    """The largest body any path accepts from anyone."""
    uploads = [_full_size(upload) for upload in _uploads]
    return max([MAX_BODY_BYTES, int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0), *uploads])


def _full_size(upload: Upload) -> int:
    return upload.max_bytes + (MULTIPART_OVERHEAD if upload.multipart else 0)


class AdminPassMiddleware:
    """Hands signed-in staff the admin pass on admin pages (after AuthenticationMiddleware);
    a new session (a login, a logout) needs a new one, so an old pass stops working."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not request.path.startswith("/admin/"):
            return response
        user = getattr(request, "user", None)
        session = getattr(request, "session", None)
        key = session.session_key if session is not None else None
        if (
            user is not None
            and user.is_active
            and user.is_staff
            and key
            and not valid_admin_pass(request.COOKIES.get(ADMIN_PASS_COOKIE), key)
        ):
            response.set_cookie(
                ADMIN_PASS_COOKIE,
                admin_pass(key),
                max_age=settings.SESSION_COOKIE_AGE,
                path="/admin/",
                secure=settings.SESSION_COOKIE_SECURE,
                httponly=True,
                samesite="Lax",
            )
        return response


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
        limit = limit_for(scope.get("path", ""), scope_caller(scope))
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
            path = unquote(raw_path.split(b"?")[0].decode("latin-1"))
            request.boggle_limit = limit_for(path, daphne_caller(request))
        else:  # a Twisted without the attribute: only the largest limit, never a false 413
            request.boggle_limit = largest_limit()
        request.boggle_received = 0
        request.boggle_refused = False
        if length is not None and length > request.boggle_limit:
            original_got_length(request, 0)  # an empty buffer: nothing will be kept
            refuse(request)
            return
        original_got_length(request, length)

    def daphne_caller(request: Any) -> Caller:
        # Twisted parsed the cookies just before it called gotLength.
        cookies = {
            name.decode("latin-1"): value.decode("latin-1")
            for name, value in (getattr(request, "received_cookies", None) or {}).items()
        }
        authorization = request.requestHeaders.hasHeader(b"authorization")
        return caller_from(cookies, authorization)

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
