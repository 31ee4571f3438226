"""Connections from an address that opened too many lately are dropped before Daphne reads
a byte of them.

Every connection Daphne takes costs it an HTTP parse and, for a websocket, a handshake:
a script opening two thousand sockets kept the process busy for seconds, and every
player's verdicts waited, although the application refused all but a few. A refused
connection here is closed as soon as it is accepted, for a fraction of that cost.

Counted per client address like ``games.throttle``'s limits (loopback never). Behind a
declared reverse proxy (``BOGGLE_TRUSTED_PROXY_HOPS``) every connection comes from the
proxy, so nothing is counted here: the proxy caps connections per client (README).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from games import throttle

# A classroom behind one address loading its pages at once (a page opens a few connections
# and a websocket); a script opening sockets by the thousand.
CONNECTION = throttle.Limit("connection", 300, 300, "too many connections from your address")


def admits(host: str) -> bool:
    """Whether a new TCP connection from ``host`` is taken (and counted)."""
    if int(getattr(settings, "BOGGLE_TRUSTED_PROXY_HOPS", 0) or 0) > 0:
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
