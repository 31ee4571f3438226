"""bench/hostile.py's client: one HTTP request from a fresh client (``call``, never raises),
a room ``Socket`` that reads everything, and the steps the probes share: sync, wait for
the running round, end it, create a room; and the machine's load average."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed

from bench.attacks.client import open_socket

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


# ------------------------------------------------------------------------------ clients


@dataclass
class Answer:
    status: int  # 0: no answer
    body: Any
    text: str

    @property
    def error(self) -> str:
        if isinstance(self.body, dict) and isinstance(self.body.get("error"), dict):
            return str(self.body["error"].get("code"))
        return ""


def call(
    url: str,
    method: str = "GET",
    body: Any = None,
    headers: dict[str, str] | None = None,
    raw: bytes | None = None,
    timeout: float = 30.0,
) -> Answer:
    """One HTTP request from a fresh client (no cookies, no proxy); never raises."""
    data = raw if raw is not None else json.dumps(body).encode() if body is not None else None
    sent = {"Accept": "application/json", **(headers or {})}
    if body is not None:
        sent.setdefault("Content-Type", "application/json")
    request = urllib.request.Request(url, data=data, method=method, headers=sent)
    try:
        with _OPENER.open(request, timeout=timeout) as response:
            status, content = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, content = error.code, error.read() if error.fp else b""
    except Exception as error:
        return Answer(0, None, f"{type(error).__name__}: {error}")
    text = content.decode("utf-8", "replace")
    try:
        parsed = json.loads(text) if text else None
    except ValueError:
        parsed = None
    return Answer(status, parsed, text[:200])


def ws_base(base: str) -> str:
    return base.replace("http://", "ws://", 1)


class Socket:
    """A room websocket that reads everything into ``messages``."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.messages: list[dict[str, Any]] = []
        self.changed = asyncio.Event()
        self.close_code: int | None = None
        self.closed = asyncio.Event()
        self._next_id = 0
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, url: str, token: str | None = None) -> Socket:
        return cls(await open_socket(url, token))

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                self.messages.append(json.loads(raw))
                self.changed.set()
        except ConnectionClosed:
            pass
        finally:
            self.close_code = self.ws.close_code
            self.closed.set()
            self.changed.set()

    async def send(self, message: dict[str, Any]) -> int:
        self._next_id += 1
        await self.ws.send(json.dumps({**message, "request_id": self._next_id}))
        return self._next_id

    async def wait(
        self, found: Callable[[dict[str, Any]], bool], timeout: float = 15.0
    ) -> dict[str, Any] | None:
        deadline = time.monotonic() + timeout
        while True:
            for message in self.messages:
                if found(message):
                    return message
            left = deadline - time.monotonic()
            if left <= 0 or self.closed.is_set():
                return None
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)

    async def reply(self, request_id: int, timeout: float = 15.0) -> dict[str, Any] | None:
        """The answer to the message ``send`` numbered ``request_id``."""
        return await self.wait(lambda m: m.get("request_id") == request_id, timeout)

    async def ask(self, message: dict[str, Any], timeout: float = 15.0) -> dict[str, Any] | None:
        request_id = await self.send(message)
        return await self.reply(request_id, timeout)

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._reader, 5)


async def sync(sock: Socket) -> dict[str, Any]:
    """The room's state, as a ``sync`` answers it ({} when it did not)."""
    reply = await sock.ask({"type": "sync"}) or {}
    return dict(reply.get("state") or {})


async def running_round(sock: Socket, timeout: float = 30.0) -> dict[str, Any]:
    """The room's round once it runs and its ``starts_at`` has passed (sync until then)."""
    deadline = time.monotonic() + timeout
    state: dict[str, Any] | None = None
    while time.monotonic() < deadline:
        state = await sync(sock)
        round_ = state.get("round") or {}
        if round_.get("status") == "running" and time.time() * 1000 >= (round_["starts_at"] or 0):
            return dict(round_)
        await asyncio.sleep(0.5)
    raise RuntimeError(f"the round did not start: {str(state)[:300]}")


async def end_round(sock: Socket) -> dict[str, Any]:
    """End the round (host) and return the viewer's state afterwards."""
    for _ in range(20):  # a player who just spent its message budget is answered rate_limited
        reply = await sock.ask({"type": "end_round"}) or {}
        if reply.get("code") != "rate_limited":
            break
        await asyncio.sleep(1.0)
    if not await sock.wait(lambda m: m.get("type") == "round.ended", 30):
        raise RuntimeError(f"end_round: {reply}")
    await asyncio.sleep(1.0)
    return await sync(sock)


async def create(base: str, nickname: str, settings: dict[str, Any] | None = None) -> Answer:
    body: dict[str, Any] = {"nickname": nickname, **({"settings": settings} if settings else {})}
    answer = await asyncio.to_thread(call, f"{base}/api/rooms", "POST", body)
    if answer.status != 201:
        raise RuntimeError(f"creating a room: {answer.status} {answer.text}")
    return answer


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())
