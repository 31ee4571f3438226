"""Twisted's TCP connections send at once when nothing is waiting, as asyncio's do.

Twisted buffers every write and asks the event loop to say when the socket is writable:
for each frame a websocket sends, the descriptor is registered for writing, the loop turns
once, the bytes are sent and the descriptor is unregistered again (two ``epoll_ctl`` calls
and a callback through Twisted's logging context). A socket whose client reads has room in
its kernel buffer nearly always, so here a write on a connection with nothing waiting is
sent at once; only what the kernel does not take is buffered, and Twisted's usual path
sends it. Order is kept (nothing is sent at once while bytes wait), and so is every limit
that reads the buffer (``web.send_cap``). TLS connections keep Twisted's own path.
"""

from __future__ import annotations

from typing import Any

from twisted.internet import tcp

_installed = False


def install() -> None:
    """Send at once on Twisted's TCP connections (once per process)."""
    global _installed
    if _installed:
        return
    _installed = True
    buffered_write = tcp.Connection.write

    def write(connection: Any, data: bytes) -> None:
        if (
            type(data) is bytes
            and data
            and connection.connected
            and not connection._writeDisconnected
            and not connection.TLS
            and not connection._tempDataLen
            and connection.offset >= len(connection.dataBuffer)
        ):
            sent = connection.writeSomeData(data)
            if sent == len(data):
                return
            if isinstance(sent, int):  # the kernel took part of it: the rest waits
                data = data[sent:]
            # Otherwise the connection is lost: the buffered path finds out and closes it.
        buffered_write(connection, data)

    tcp.Connection.write = write  # type: ignore[method-assign]
