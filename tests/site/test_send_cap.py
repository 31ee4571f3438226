"""A websocket whose client does not read is closed with 4013 before its replies pile up in
Daphne's memory (web.send_cap, installed by boggle_site.asgi).

The end-to-end test runs a real Daphne on ``tests/site/flood_app.py`` (an application that
sends what it is asked for), with a raw client that asks for 13 MB and reads nothing until
the server has given up on it.
"""

from __future__ import annotations

import os
import re
import socket
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from netlab.websocket_frames import client_text_frame, open_raw_websocket, server_frames
from tests.servers import REPO_ROOT
from tests.stack import poll_until
from web import send_cap
from web.network import free_port

# "<count> <size>": frames the flood application sends (13 MB, far above the cap and the
# few MB the kernel's socket buffers take on loopback).
FLOOD = "200 65536"
CLOSE_LINE = re.compile(
    r"closed with (\d+): it does not read; (\d+) bytes were waiting to be sent "
    r"\(cap (\d+)\), a frame of (\d+) refused"
)


@pytest.fixture
def flood_server(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """Daphne serving the flood application; yields its port and log file."""
    port = free_port()
    log_path = tmp_path / "daphne.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "daphne",
                "-b",
                "127.0.0.1",
                "-p",
                str(port),
                "tests.site.flood_app:application",
            ],
            cwd=REPO_ROOT,
            env={**os.environ, "DJANGO_SETTINGS_MODULE": "boggle_site.settings"},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        poll_until(lambda: _accepts(port), "the flood server")
        yield port, log_path
    finally:
        process.terminate()
        process.wait(timeout=10)


def _accepts(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def open_websocket(port: int) -> socket.socket:
    """A raw websocket on ``/`` after its handshake, with a small receive window."""
    sock, head = open_raw_websocket("127.0.0.1", port)
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


def read_frames(sock: socket.socket) -> list[tuple[int, bytes]]:
    """Every frame (opcode, payload) the server sends until it closes the connection."""
    data = bytearray()
    sock.settimeout(30)
    while True:
        try:
            chunk = sock.recv(1 << 20)
        except ConnectionResetError:
            break
        if not chunk:
            break
        data += chunk
    return server_frames(bytes(data))


def test_the_site_installs_the_cap() -> None:
    """Every way the project runs Daphne loads boggle_site.asgi, which installs the guard."""
    from daphne.ws_protocol import WebSocketProtocol

    import boggle_site.asgi  # noqa: F401

    assert getattr(WebSocketProtocol, "boggle_send_cap", False)


def test_a_socket_that_never_reads_is_closed_4013_within_the_cap(
    flood_server: tuple[int, Path],
) -> None:
    """Asked for 13 MB and reading nothing, the client is closed with 4013; what Daphne held
    for it never passed the cap (the guard's own count, logged when it closed the socket),
    and a client that reads late still finds the close code behind the backlog."""
    port, log_path = flood_server
    sock = open_websocket(port)
    try:
        sock.sendall(client_text_frame(FLOOD))
        poll_until(lambda: CLOSE_LINE.search(log_path.read_text()) is not None, "the 4013 close")
        match = CLOSE_LINE.search(log_path.read_text())
        assert match is not None
        code, waiting, cap, refused = (int(group) for group in match.groups())
        assert code == send_cap.CLOSE_NOT_READING
        assert cap == send_cap.MAX_PENDING_BYTES
        assert waiting + send_cap.CLOSE_FRAME_RESERVE <= cap
        assert waiting + refused > cap - send_cap.CLOSE_FRAME_RESERVE

        frames = read_frames(sock)
    finally:
        sock.close()
    data_frames = [payload for opcode, payload in frames if opcode == 0x1]
    assert 0 < len(data_frames) < 200  # the rest was dropped, never buffered
    opcode, payload = frames[-1]
    assert opcode == 0x8
    assert struct.unpack("!H", payload[:2])[0] == send_cap.CLOSE_NOT_READING
    assert payload[2:].decode() == send_cap.CLOSE_NOT_READING_REASON


def test_held_bytes_counts_twisteds_buffers_through_a_wrapper() -> None:
    """Both of Twisted's buffers count, whole (dataBuffer stays until it is all written);
    a TLS wrapper is looked through; an unknown transport has no count."""

    class Buffered:
        dataBuffer = b"x" * 100
        offset = 60
        _tempDataLen = 25

    class Wrapper:
        transport = Buffered()

    assert send_cap.held_bytes(Buffered()) == 125
    assert send_cap.held_bytes(Wrapper()) == 125
    assert send_cap.held_bytes(object()) is None
