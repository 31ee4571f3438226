"""bench/hostile.py's attackers: machines of their own on the simulated Wi-Fi (one host per
probe), each side run as ``bench/hostile.py --child NAME`` there: HTTP requests in turn or
at once, room-code guessing over six paths, and sockets that never read."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import socket
import sys
import time
import urllib.parse
from pathlib import Path
from typing import Any

from bench.attacks.client import with_host
from bench.attacks.probe_client import Socket, call, ws_base
from netlab import Host, SimulatedWifi
from netlab.websocket_frames import (
    client_text_frame,
    close_code_in,
    open_raw_websocket,
)

# The script whose ``--child NAME`` runs one attacker side.
SCRIPT = Path(__file__).resolve().parent.parent / "hostile.py"


ROOM_CODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # games.models.ROOM_CODE_ALPHABET


# ---------------------------------------------------------------------- the attackers


class Wifi:
    """Attackers on the simulated Wi-Fi: one host per probe, each its own address."""

    def __init__(self, wifi: SimulatedWifi, bases: list[str]) -> None:
        self.wifi = wifi
        self.bases = [with_host(base, wifi.gateway) for base in bases]
        self.hosts: dict[str, Host] = {}

    def host(self, name: str) -> Host:
        if name not in self.hosts:
            self.hosts[name] = self.wifi.add_host(name)
        return self.hosts[name]

    async def run(self, host: str, side: str, **params: Any) -> dict[str, Any]:
        """Run ``side`` (a function in SIDES) on ``host``; its JSON answer."""
        argv = [sys.executable, str(SCRIPT), "--child", side]
        child = await asyncio.create_subprocess_exec(
            *self.host(host).command(argv),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        given = {"bases": self.bases, "allow": str(self.wifi.subnet), **params}
        out, _ = await child.communicate(json.dumps(given).encode())
        lines = out.decode().strip().splitlines()
        if child.returncode != 0 or not lines:
            raise RuntimeError(f"the attacker's {side} failed (exit {child.returncode})")
        return dict(json.loads(lines[-1]))


async def side_http(
    bases: list[str], requests: list[dict[str, Any]], at_once: bool
) -> dict[str, Any]:
    """HTTP requests (method, path, body, headers) to the first Daphne (or the one numbered
    ``daphne`` in a request), in turn or all at once."""

    def one(request: dict[str, Any]) -> dict[str, Any]:
        answer = call(
            bases[int(request.get("daphne", 0)) % len(bases)] + request["path"], request.get("method", "POST"), request.get("body"),
            request.get("headers"),
        )  # fmt: skip
        return {"status": answer.status, "body": answer.body, "error": answer.error}

    if at_once:
        answers = await asyncio.gather(*(asyncio.to_thread(one, r) for r in requests))
    else:
        answers = [await asyncio.to_thread(one, r) for r in requests]
    return {"answers": list(answers)}


async def guess_socket(url: str, wait: float = 10.0, token: str | None = None) -> str:
    """Open a socket (a guessed code, a bad token as ``Authorization: Bearer``): its close
    code and error codes, or how the handshake failed, or "open" when it is still open
    after ``wait`` seconds."""
    try:
        sock = await Socket.open(url, token)
    except Exception as error:
        return f"handshake failed: {type(error).__name__}: {error}"[:90]
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(sock.closed.wait(), wait)
    codes = ",".join(str(m.get("code")) for m in sock.messages if m.get("type") == "error")
    if not sock.closed.is_set():
        await sock.close()
        return f"open {codes}".strip()
    return f"{sock.close_code} {codes}".strip()


async def side_guess(
    bases: list[str], seconds: float, rate: float, real_code: str
) -> dict[str, Any]:
    """Guess room codes over six paths in turn for ``seconds``, ``rate`` guesses a second,
    spread over the Daphnes; then ask for a real code once."""
    kinds = ["api", "photo-post", "photo-get", "page", "player-socket", "watch-socket"]
    events: list[tuple[float, str, str]] = []
    started = time.monotonic()
    index = 0
    while time.monotonic() - started < seconds:
        kind, base = kinds[index % len(kinds)], bases[index % len(bases)]
        index += 1
        code = "".join(random.choice(ROOM_CODE_ALPHABET) for _ in range(8))
        at = time.monotonic() - started
        if kind.endswith("socket"):
            path = f"/ws/rooms/{code}/watch/" if kind == "watch-socket" else f"/ws/rooms/{code}/"
            token = None if kind == "watch-socket" else "x"
            outcome = await guess_socket(ws_base(base) + path, token=token)
        else:
            method, path, raw, headers = {
                "api": ("GET", f"/api/rooms/{code}", None, {}),
                "photo-post": (
                    "POST", f"/api/rooms/{code}/photos", b"--x--\r\n",
                    {"Content-Type": "multipart/form-data; boundary=x"},
                ),
                "photo-get": ("GET", f"/api/rooms/{code}/photos/1", None, {}),
                "page": ("GET", f"/r/{code}/", None, {}),
            }[kind]  # fmt: skip
            answer = await asyncio.to_thread(call, base + path, method, None, headers, raw)
            outcome = str(answer.status)
        events.append((at, kind, outcome))
        await asyncio.sleep(max(0.0, index / rate - (time.monotonic() - started)))
    real = await asyncio.to_thread(call, f"{bases[0]}/api/rooms/{real_code}")
    return {"events": events, "real_code": real.status}


def open_never_reading(base: str, path: str) -> socket.socket:
    """A websocket handshake on a socket with a small receive window that is then never read."""
    parts = urllib.parse.urlsplit(base)
    sock, head = open_raw_websocket(parts.hostname or "", parts.port or 80, path)
    if not head.startswith(b"HTTP/1.1 101"):
        raise RuntimeError(f"handshake refused: {head[:80]!r}")
    return sock


def send_syncs(sock: socket.socket, seconds: float) -> str:
    """``sync`` 8 times a second for ``seconds``, never reading; how sending ended."""
    frame = client_text_frame(json.dumps({"type": "sync"}))
    sock.settimeout(2.0)
    end = time.monotonic() + seconds
    sent = 0
    while time.monotonic() < end:
        try:
            sock.sendall(frame)
        except OSError as error:
            return f"send stopped after {sent} syncs ({type(error).__name__})"
        sent += 1
        time.sleep(0.125)
    return f"{sent} syncs sent"


def read_close_code(sock: socket.socket) -> str:
    """Read what is left: the close frame's code, or how the connection ended."""
    data = bytearray()
    sock.settimeout(15)
    try:
        while chunk := sock.recv(1 << 20):
            data += chunk
        ending = "EOF without a close frame"
    except ConnectionResetError:
        ending = "reset without a close frame"
    except TimeoutError:
        ending = "still open"
    code = close_code_in(bytes(data))
    return f"close {code}" if code is not None else ending


async def side_never_reading(
    bases: list[str], code: str, sockets: int, seconds: float
) -> dict[str, Any]:
    opened = [open_never_reading(bases[0], f"/ws/rooms/{code}/watch/") for _ in range(sockets)]
    sending = await asyncio.gather(*(asyncio.to_thread(send_syncs, s, seconds) for s in opened))
    endings = await asyncio.gather(*(asyncio.to_thread(read_close_code, s) for s in opened))
    for sock in opened:
        sock.close()
    return {"sending": list(sending), "endings": list(endings)}
