"""Websocket frames as raw bytes, for the tests and benches whose client must not read as a
browser would: a socket that never reads, then looks at what the server had queued for it
(``tests/site/test_send_cap.py``, ``bench/hostile.py``)."""

from __future__ import annotations

import base64
import os
import socket
import struct

CLOSE_OPCODE = 0x8


def open_raw_websocket(host: str, port: int, path: str = "/") -> tuple[socket.socket, bytes]:
    """A websocket handshake on a plain socket with a small receive window, so that what the
    server sends piles up on its side while the client does not read. Returns the socket
    and the head of the server's answer (``HTTP/1.1 101`` when it took the socket)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((host, port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:  # the answer is the headers alone: nothing sent yet
        head += sock.recv(1)
    return sock, head


def client_text_frame(text: str) -> bytes:
    """A masked (client) text frame of fewer than 126 bytes."""
    payload = text.encode()
    mask = os.urandom(4)
    masked = bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))
    return bytes([0x81, 0x80 | len(payload)]) + mask + masked


def server_frames(data: bytes) -> list[tuple[int, bytes]]:
    """The (opcode, payload) of each frame in bytes a server sent (unmasked); a frame cut
    off at the end keeps the part that arrived."""
    frames: list[tuple[int, bytes]] = []
    at = 0
    while at + 2 <= len(data):
        opcode, length = data[at] & 0x0F, data[at + 1] & 0x7F
        at += 2
        if length == 126:
            (length,) = struct.unpack("!H", data[at : at + 2])
            at += 2
        elif length == 127:
            (length,) = struct.unpack("!Q", data[at : at + 8])
            at += 8
        frames.append((opcode, bytes(data[at : at + length])))
        at += length
    return frames


def close_code_in(data: bytes) -> int | None:
    """The code of the close frame in bytes a server sent, or None when none arrived."""
    for opcode, payload in server_frames(data):
        if opcode == CLOSE_OPCODE and len(payload) >= 2:
            return int(struct.unpack("!H", payload[:2])[0])
    return None
