"""Websocket frames as raw bytes, for the tests and benches whose client must not read as a
browser would: a socket that never reads, then looks at what the server had queued for it
(``tests/site/test_send_cap.py``, ``bench/hostile.py``)."""

from __future__ import annotations

import struct

CLOSE_OPCODE = 0x8


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
