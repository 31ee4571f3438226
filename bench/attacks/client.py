"""The hostile bench's client side of the protocol: HTTP through ``crowd``'s client, room
websocket URLs and sockets, a URL on another host, and rooms created or joined
(``Credentials``)."""

from __future__ import annotations

import asyncio
import urllib.parse
from dataclasses import dataclass
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from bench.crowd.http_client import HttpResult, http_call


async def http(
    base: str,
    method: str,
    path: str,
    body: dict[str, Any] | None = None,
    token: str | None = None,
) -> HttpResult:
    return await asyncio.to_thread(http_call, base, method, path, body, token, 60.0)


def ws_url(base: str, code: str) -> str:
    """A room's socket; its player's token goes in a header (``open_socket``), never here."""
    return base.replace("http://", "ws://", 1) + f"/ws/rooms/{code}/"


async def open_socket(
    url: str, token: str | None = None, max_queue: int | None = 1024
) -> ClientConnection:
    """Open a socket; ``token``: the player's, as ``Authorization: Bearer`` (docs/api.md)."""
    return await connect(
        url,
        additional_headers={"Authorization": f"Bearer {token}"} if token is not None else None,
        compression=None,
        open_timeout=30,
        ping_interval=None,
        close_timeout=1,
        max_size=None,
        max_queue=max_queue,
        proxy=None,
    )


def with_host(base: str, host: str) -> str:
    parts = urllib.parse.urlsplit(base)
    return parts._replace(netloc=f"{host}:{parts.port}").geturl()


# ----------------------------------------------------------------------------- players


@dataclass
class Credentials:
    code: str
    token: str
    player_id: int


async def create_room(
    base: str, nickname: str, settings: dict[str, Any] | None = None
) -> Credentials:
    body: dict[str, Any] = {"nickname": nickname}
    if settings:
        body["settings"] = settings
    result = await http(base, "POST", "/api/rooms", body)
    for _ in range(12):  # an earlier attack may have spent the address's room creations
        if result.status != 429:
            break
        await asyncio.sleep(60 / 10)  # web.throttle.CREATE gives one back every 6 s
        result = await http(base, "POST", "/api/rooms", body)
    if result.status != 201:
        raise SystemExit(f"abuse: creating a room: {result.status} {result.error}")
    return Credentials(
        result.body["room"]["code"], result.body["player"]["token"], result.body["player"]["id"]
    )


async def join_room(base: str, code: str, nickname: str) -> tuple[HttpResult, Credentials | None]:
    result = await http(base, "POST", f"/api/rooms/{code}/join", {"nickname": nickname})
    if result.status != 201:
        return result, None
    return result, Credentials(code, result.body["player"]["token"], result.body["player"]["id"])
