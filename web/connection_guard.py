"""Connections from an address that opened too many lately are dropped before Daphne reads
a byte of them.

Every connection Daphne takes costs it an HTTP parse and, for a websocket, a handshake:
a script opening two thousand sockets kept the process busy for seconds, and every
player's verdicts waited, although the application refused all but a few. A refused
connection here is closed as soon as it is accepted, for a fraction of that cost.

Counted per peer address like ``web.throttle``'s limits (loopback never). The declared
reverse proxies (``BOGGLE_TRUSTED_PROXIES``) are not counted: every client behind them
comes through their connections, and the proxy caps connections per client (docs/operations.md). A
client that reaches Daphne directly, around the proxy, is counted as itself.
"""

from __future__ import annotations

from typing import Any

from web import proxies, throttle

# A classroom behind one address loading its pages at once (a page opens a few connections
# and a websocket); a script opening sockets by the thousand.
CONNECTION = throttle.Limit(
    "connection", 300, 300, "too many connections from your address", per_process=True
)


def admits(host: str) -> bool:
    """Whether a new TCP connection from ``host`` is taken (and counted)."""
    if proxies.is_trusted_proxy(host):
        return True
    return throttle.allows(CONNECTION, host)


def guard_connections() -> None:
    """Make Daphne drop, at accept, connections ``admits`` refuses (no HTTP answer: the
    client sees the connection closed, as from a full server)."""
    try:
        from daphne.http_protocol import HTTPFactory
    except ImportError:  # another server: its own limits, or a proxy's
        return
    if getattr(HTTPFactory, "boggle_connection_guard", False):
        return
    original = HTTPFactory.buildProtocol

    def build_protocol(factory: Any, addr: Any) -> Any:
        if not admits(str(getattr(addr, "host", "") or "")):
            return None  # Twisted closes the connection at once
        return original(factory, addr)

    HTTPFactory.buildProtocol = build_protocol
    HTTPFactory.boggle_connection_guard = True
