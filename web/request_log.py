"""One log line per HTTP request and per websocket event, each with its request id.

The id is the ``X-Request-Id`` of a request from a trusted proxy (``BOGGLE_TRUSTED_PROXIES``:
nginx sends its ``$request_id``, so nginx's log and the site's name a request alike) when it
looks like one (``SAFE_REQUEST_ID``); anyone else's is ignored and a new random id given.
Every HTTP response carries it back as ``X-Request-Id``, and every line logged while the
request or socket is served carries it too (``web.log_format``: a contextvar, copied into
the tasks it starts and the work it hands to ``web.threads.in_thread``).

A request's line (logger ``web.request_log``, INFO; 5xx at WARNING): method, path (never
the query string), status, duration in ms, the client's address (``web.proxies``: the one a
trusted proxy forwards, else the peer), the user agent cut to ``MAX_AGENT_CHARS``. A
socket's: ``socket.open`` when accepted, ``socket.close`` with its close code, who closed
it and how long it was open, ``socket.refused`` for a handshake refused (``socket.lost``
for one that never ended: the client left, or the application failed). Not one line per
socket message or word: a round of 50 players sends thousands a minute, which the metrics
count (``web.metrics``). Never a query string, a cookie, an ``Authorization`` header or a
token. The probes (``/healthz``, ``/readyz``, ``/metrics``), asked every few seconds, are
logged at DEBUG: ``web.health`` logs a change of readiness instead.

``logged`` wraps the site's whole ASGI application (boggle_site.asgi), so that every
response has its id: refusals answered before Django (a body too large, a probe) too.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from web import health, metrics, proxies, throttle
from web.log_format import request_id_var

logger = logging.getLogger(__name__)

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# An id a proxy may give: nginx's $request_id is 32 hex digits; a UUID has dashes.
SAFE_REQUEST_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
MAX_PATH_CHARS = 300
MAX_AGENT_CHARS = 200
PROBE_PATHS = health.PROBE_PATHS | {metrics.METRICS_PATH}


def _header(scope: Scope, name: bytes) -> str:
    return b",".join(
        value for key, value in scope.get("headers") or () if key.lower() == name
    ).decode("latin-1")


def request_id_of(scope: Scope) -> str:
    """The trusted proxy's ``X-Request-Id``, or a new one (see the module's docstring)."""
    peer = str((scope.get("client") or ("",))[0] or "")
    if proxies.is_trusted_proxy(peer):
        given = _header(scope, b"x-request-id")
        if SAFE_REQUEST_ID.fullmatch(given):
            return given
    return uuid.uuid4().hex


def loggable(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, anything unprintable escaped: a client's path
    or user agent can neither break a line nor hide what follows (newlines, bidirectional
    overrides, lone surrogates)."""
    text = text[:limit]
    if text.isprintable():
        return text
    return "".join(
        char if char.isprintable() else char.encode("unicode_escape").decode("ascii")
        for char in text
    )


def _common_fields(scope: Scope, request_id: str) -> dict[str, Any]:
    return {
        "path": loggable(str(scope.get("path") or ""), MAX_PATH_CHARS),
        "client": throttle.scope_address(scope),
        "request_id": request_id,
    }


def logged(app: ASGIApp) -> ASGIApp:
    """``app`` with a request id, its response header and a log line per request and per
    socket event."""

    async def application(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            return await app(scope, receive, send)
        request_id = request_id_of(scope)
        token = request_id_var.set(request_id)
        try:
            if scope["type"] == "http":
                await _serve_request(app, scope, receive, send, request_id)
            else:
                await _serve_socket(app, scope, receive, send, request_id)
        finally:
            request_id_var.reset(token)

    return application


async def _serve_request(
    app: ASGIApp, scope: Scope, receive: Receive, send: Send, request_id: str
) -> None:
    started = time.monotonic()
    status = 500  # unless a response starts: Daphne answers 500 for an application error

    async def send_with_id(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
            headers = [*message.get("headers", ()), (b"x-request-id", request_id.encode())]
            message = {**message, "headers": headers}
        await send(message)

    try:
        await app(scope, receive, send_with_id)
    finally:
        _log_request(scope, status, time.monotonic() - started, request_id)


def _log_request(scope: Scope, status: int, seconds: float, request_id: str) -> None:
    probe = scope.get("path") in PROBE_PATHS
    if status >= 500 and not probe:
        metrics.server_error_sent(status)
    level = logging.DEBUG if probe else logging.WARNING if status >= 500 else logging.INFO
    if not logger.isEnabledFor(level):
        return
    fields = _common_fields(scope, request_id)
    method = loggable(str(scope.get("method") or ""), 16)
    fields.update(
        event="http",
        method=method,
        status=status,
        duration_ms=round(seconds * 1000, 1),
        user_agent=loggable(_header(scope, b"user-agent"), MAX_AGENT_CHARS),
    )
    logger.log(
        level,
        "%s %s %s %.1f ms",
        method,
        fields["path"],
        status,
        fields["duration_ms"],
        extra={"fields": fields},
    )


async def _serve_socket(
    app: ASGIApp, scope: Scope, receive: Receive, send: Send, request_id: str
) -> None:
    started = time.monotonic()
    accepted = False
    server_code: int | None = None  # the close code the site sent, if it closed first
    code: int | None = None  # the close code Daphne reported at the disconnect

    async def receive_noted() -> Message:
        nonlocal code
        message = await receive()
        if message["type"] == "websocket.disconnect":
            code = message.get("code", 1005)
        return message

    async def send_noted(message: Message) -> None:
        nonlocal accepted, server_code
        if message["type"] == "websocket.accept" and not accepted:
            accepted = True
            metrics.socket_opened()
            _log_socket_open(scope, request_id)
        elif message["type"] == "websocket.close" and server_code is None:
            server_code = message.get("code", 1000)
        await send(message)

    try:
        await app(scope, receive_noted, send_noted)
    finally:
        if accepted:
            metrics.socket_closed()
        _log_socket_end(scope, request_id, accepted, code, server_code, started)


def _log_socket_open(scope: Scope, request_id: str) -> None:
    if not logger.isEnabledFor(logging.INFO):
        return
    fields = _common_fields(scope, request_id)
    fields.update(
        event="socket.open", user_agent=loggable(_header(scope, b"user-agent"), MAX_AGENT_CHARS)
    )
    logger.info("socket open %s", fields["path"], extra={"fields": fields})


def _log_socket_end(
    scope: Scope,
    request_id: str,
    accepted: bool,
    code: int | None,
    server_code: int | None,
    started: float,
) -> None:
    if not logger.isEnabledFor(logging.INFO):
        return
    fields = _common_fields(scope, request_id)
    if not accepted and server_code is not None:
        fields.update(event="socket.refused", status=403)  # Daphne's answer to a refusal
        logger.info("socket refused %s", fields["path"], extra={"fields": fields})
        return
    if not accepted:  # the client left during the handshake, or the application failed
        fields.update(event="socket.lost", code=code)
        logger.info(
            "socket lost before its handshake ended %s", fields["path"], extra={"fields": fields}
        )
        return
    closed_by = "server" if server_code is not None else "client"
    fields.update(
        event="socket.close",
        code=code if code is not None else server_code,
        closed_by=closed_by,
        server_code=server_code,
        duration_s=round(time.monotonic() - started, 1),
    )
    logger.info(
        "socket closed %s %s by the %s after %.1f s",
        fields["path"],
        fields["code"],
        closed_by,
        fields["duration_s"],
        extra={"fields": fields},
    )
