"""A cap on the bytes waiting to be sent on each websocket, inside Daphne.

The ASGI application has no backpressure: ``send`` returns at once and Daphne hands every
frame to Twisted, whose transport keeps in memory whatever the client has not read yet.
A client that asks for a large state (``sync``) and never reads made a process hold
+141 MB in 30 s from 8 sockets, for good. Here every frame Daphne writes on a websocket
first looks at the bytes its transport still holds: past ``MAX_PENDING_BYTES`` the frame
is dropped and the socket closed with ``CLOSE_NOT_READING`` (docs/api.md, "Close codes").
The close frame goes out behind what is waiting, so a client that reads late still learns
why; one that does not read within ``NOT_READING_GRACE_SECONDS`` is cut off, and the
buffer with it. A client that reads keeps its buffer near empty: Twisted hands the bytes
to the kernel on the next turn of the loop, and only a full kernel buffer keeps them here.
"""

from __future__ import annotations

import logging
from typing import Any

logger = logging.getLogger(__name__)

# Bytes a socket's transport may hold: some eight of the largest states (6x6 board, 1,500
# words: 125 KB), far above what a client that reads ever leaves waiting.
MAX_PENDING_BYTES = 1_048_576
# 4000 + RFC 6455's 1013 "try again later", as 4008 mirrors 1008 (policy violation).
CLOSE_NOT_READING = 4013
CLOSE_NOT_READING_REASON = "you did not read what the server sent"
# A close frame is at most 2 header bytes and 125 of payload (server frames are unmasked):
# room kept under the cap for it, so the buffer never passes the cap, close frame included.
CLOSE_FRAME_RESERVE = 127
# After the close frame, how long the client has to read the backlog and answer before the
# connection is cut (autobahn's closing handshake timeout, 1 s otherwise).
NOT_READING_GRACE_SECONDS = 10.0


def held_bytes(transport: Any) -> int | None:
    """Bytes ``transport`` holds in memory, not yet taken by the kernel; None when it is not
    a Twisted file descriptor transport (nor wraps one, as TLS does)."""
    for _ in range(4):
        if transport is None:
            return None
        buffered = getattr(transport, "dataBuffer", None)
        temp_length = getattr(transport, "_tempDataLen", None)
        if buffered is not None and isinstance(temp_length, int):
            # The whole dataBuffer stays in memory until it is all written (only ``offset``
            # moves), so all of it counts.
            return len(buffered) + temp_length
        transport = getattr(transport, "transport", None)
    return None


def pending_bytes(protocol: Any) -> int:
    """What a websocket protocol has waiting: its transport's buffer and autobahn's own
    queue of delayed writes (unused by Daphne, counted all the same)."""
    queued = sum(len(entry[0]) for entry in getattr(protocol, "send_queue", ()))
    return (held_bytes(protocol.transport) or 0) + queued


def close_not_reading(protocol: Any, waiting: int, refused: int) -> None:
    """Drop everything further for this socket and close it with CLOSE_NOT_READING."""
    protocol.boggle_not_reading = True
    client = getattr(protocol, "client_addr", None)
    logger.warning(
        "websocket %s closed with %d: it does not read; %d bytes were waiting to be sent "
        "(cap %d), a frame of %d refused",
        f"{client[0]}:{client[1]}" if client else "?",
        CLOSE_NOT_READING,
        waiting,
        MAX_PENDING_BYTES,
        refused,
    )
    protocol.closeHandshakeTimeout = NOT_READING_GRACE_SECONDS
    if protocol.state == protocol.STATE_OPEN:
        protocol.boggle_closing = True
        try:
            protocol.sendClose(code=CLOSE_NOT_READING, reason=CLOSE_NOT_READING_REASON)
        finally:
            protocol.boggle_closing = False
    else:  # still in its handshake or already closing: nothing more to say, cut it
        protocol.dropConnection(abort=True)


def guard_send_buffers() -> None:
    """Cap the bytes each of Daphne's websockets holds (``MAX_PENDING_BYTES``).

    Every frame, data or control, goes through autobahn's ``sendData``; the guard sits
    there, on Daphne's protocol class only. Frames the application sends once the socket is
    closing for not reading are dropped without an error (the disconnect follows).
    """
    try:
        from daphne.ws_protocol import WebSocketProtocol
    except ImportError:  # another server: its own limits
        return
    if getattr(WebSocketProtocol, "boggle_send_cap", False):
        return
    original_send_data = WebSocketProtocol.sendData
    original_server_send = WebSocketProtocol.serverSend

    def send_data(
        protocol: Any, data: bytes, sync: bool = False, chopsize: int | None = None
    ) -> None:
        if getattr(protocol, "boggle_closing", False):
            original_send_data(protocol, data, sync, chopsize)  # our close frame: room kept
            return
        if getattr(protocol, "boggle_not_reading", False):
            return
        waiting = pending_bytes(protocol)
        if waiting + len(data) > MAX_PENDING_BYTES - CLOSE_FRAME_RESERVE:
            close_not_reading(protocol, waiting, len(data))
            return
        original_send_data(protocol, data, sync, chopsize)

    def server_send(protocol: Any, content: Any, binary: bool = False) -> None:
        if getattr(protocol, "boggle_not_reading", False):
            return  # autobahn would raise on a closing socket: the application need not know
        original_server_send(protocol, content, binary)

    WebSocketProtocol.sendData = send_data
    WebSocketProtocol.serverSend = server_send
    WebSocketProtocol.boggle_send_cap = True
