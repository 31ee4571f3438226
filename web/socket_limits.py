"""Limits that keep one client from growing the server's memory through its websockets.

Every reply the server queues for a socket sits in that socket's send buffer until the
client reads it; a client that floods and never reads would make those buffers grow
without bound. So: replies echo at most a short piece of what the client sent
(``echo_type``), a socket that keeps sending past the rate limit is closed
(``FloodGuard``) and a player holds at most ``MAX_SOCKETS_PER_PLAYER`` sockets per process
(``claim_token`` before authenticating, ``games.presence.sockets_of`` after). Daphne itself drops a socket
whose client stops answering its pings.
"""

from __future__ import annotations

import json
import math
import time
from typing import Any

# A client's ``type`` is echoed (``request``, the unknown-type message) up to this length;
# a longer one is cut and ends with "…".
MAX_ECHO_CHARS = 32

# Messages refused as rate limited that a socket may send before it is closed: a bucket of
# FLOOD_ALLOWANCE, refilled at FLOOD_REFILL_PER_SECOND. An honest client backs off when told
# ``rate_limited`` and stays far below it; one that floods is closed within its allowance.
FLOOD_ALLOWANCE = 100
FLOOD_REFILL_PER_SECOND = 10.0
CLOSE_FLOODING = 4008
CLOSE_FLOODING_REASON = "too many messages"

# Open sockets one player may hold in one process (tabs, reconnects not yet noticed).
MAX_SOCKETS_PER_PLAYER = 8
CLOSE_TOO_MANY_SOCKETS = 4029

# Nesting JSON deeper than the parser's recursion limit is refused as malformed.
TOO_DEEP = "malformed JSON: too deeply nested"


# A message refused as too large or unreadable is still answered with its ``request_id``
# when it is a JSON object of at most SALVAGE_CHARS (parsing that costs well under a
# millisecond) and the id's JSON is at most MAX_SALVAGED_ID_CHARS (echoes stay small).
SALVAGE_CHARS = 65_536
MAX_SALVAGED_ID_CHARS = 128


def salvage_request_id(text: str | None) -> Any:
    """The ``request_id`` of a message that was refused before it was read, or None."""
    if text is None or len(text) > SALVAGE_CHARS:
        return None
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(message, dict):
        return None
    request_id = message.get("request_id")
    if request_id is None or len(json.dumps(request_id)) > MAX_SALVAGED_ID_CHARS:
        return None
    return request_id


def echo_type(kind: object) -> str | None:
    """What a reply may repeat of the ``type`` a client sent: text, at most MAX_ECHO_CHARS."""
    if not isinstance(kind, str):
        return None
    if len(kind) <= MAX_ECHO_CHARS:
        return kind
    return kind[: MAX_ECHO_CHARS - 1] + "…"


class _Refilled:
    """One socket's bucket, refilled with time (its own event loop only: no lock). Size and
    rate are read at each refill, from the module's settings (tests change them)."""

    def __init__(self, size: float) -> None:
        self.balance = size
        self.last = time.monotonic()

    def _refill(self, size: float, per_second: float) -> None:
        now = time.monotonic()
        self.balance = min(size, self.balance + (now - self.last) * per_second)
        self.last = now


class FloodGuard(_Refilled):
    """Counts one socket's rate-limited messages; ``overflowing`` once it sent too many."""

    def __init__(self) -> None:
        super().__init__(float(FLOOD_ALLOWANCE))

    def overflowing(self) -> bool:
        """Record one more rate-limited message; True when the socket should be closed."""
        self._refill(float(FLOOD_ALLOWANCE), FLOOD_REFILL_PER_SECOND)
        self.balance -= 1.0
        return self.balance < 0.0


# Sockets per token (authenticated or not yet), counted before any database work: the
# hundredth socket of one token costs a dictionary lookup, not an authentication.
_by_token: dict[str, int] = {}


def claim_token(token: str) -> bool:
    """Count one more socket with ``token``; False (nothing counted) when it already has
    ``MAX_SOCKETS_PER_PLAYER``. Each True is matched by one ``release_token``."""
    held = _by_token.get(token, 0)
    if held >= MAX_SOCKETS_PER_PLAYER:
        return False
    _by_token[token] = held + 1
    return True


def release_token(token: str) -> None:
    held = _by_token.get(token, 0) - 1
    if held > 0:
        _by_token[token] = held
    else:
        _by_token.pop(token, None)


# Bytes of ``state`` a socket may get from its ``sync`` requests: a bucket of
# SYNC_BYTES_BURST, refilled at SYNC_BYTES_PER_SECOND. The message limit alone let a
# spectator ask for the largest state (6x6 board, 1,500 words: 125 KB) 8 times a second;
# this allows five of those at once, then one every 2 s, and small states stay under the
# message limit. An honest client syncs on a version gap or a reconnect, far below.
SYNC_BYTES_BURST = 524_288
SYNC_BYTES_PER_SECOND = 65_536.0


class SyncBudget(_Refilled):
    """One socket's large replies (``sync``'s state, ``results``), counted in bytes. A
    reply is allowed while the bucket is not empty and then charged in full (its size is
    known only once it is built), so the bucket may go below zero: the next one waits until
    it has refilled."""

    def __init__(self) -> None:
        super().__init__(float(SYNC_BYTES_BURST))

    def _refill_bytes(self) -> None:
        self._refill(float(SYNC_BYTES_BURST), SYNC_BYTES_PER_SECOND)

    def wait_seconds(self) -> float:
        """0 when a ``sync`` may be answered now, else the seconds until it may."""
        self._refill_bytes()
        if self.balance > 0.0:
            return 0.0
        if SYNC_BYTES_PER_SECOND <= 0.0:  # a bucket that never refills (tests)
            return math.inf
        return (1.0 - self.balance) / SYNC_BYTES_PER_SECOND

    def spend(self, sent_bytes: int) -> None:
        """Charge a ``state`` reply of ``sent_bytes``."""
        self._refill_bytes()
        self.balance -= sent_bytes
