"""A websocket application that sends what it is asked for, for the send cap's tests
(tests/site/test_send_cap.py): Daphne serves it with ``web.send_cap`` installed,
as ``boggle_site.asgi`` installs it for the site.

A text frame ``"<count> <size>"`` makes it send ``count`` text frames of ``size`` bytes,
giving the event loop a turn between them (Twisted hands its buffer to the kernel then),
as the site's replies and events go out one by one.
"""

from __future__ import annotations

import asyncio
from typing import Any

from web.send_cap import guard_send_buffers

guard_send_buffers()


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "websocket":
        return
    while True:
        message = await receive()
        if message["type"] == "websocket.connect":
            await send({"type": "websocket.accept"})
        elif message["type"] == "websocket.receive":
            count, size = (int(part) for part in message["text"].split())
            for _ in range(count):
                await send({"type": "websocket.send", "text": "x" * size})
                await asyncio.sleep(0)
        else:
            return
