"""Per-address rate limits: room creations, joins, unknown room codes, websockets opened,
websocket messages.

Token buckets held in memory, so each limit applies per web process (three Daphnes behind
a proxy let an address through up to three times as often, which still bounds abuse).

The address is the TCP peer Daphne saw, or, with ``BOGGLE_TRUSTED_PROXY_HOPS`` set to the
number of reverse proxies in front of Daphne, the one that many entries from the right of
``X-Forwarded-For`` (what the outermost trusted proxy saw; entries before it are the
client's own words). IPv6 clients are counted per /64, the block one subscriber gets.
Loopback is never limited: it is this machine (the host's own laptop, or a proxy that was
not declared, whose clients cannot be told apart). ``BOGGLE_RATE_LIMITS = False`` turns
every limit off.
"""

from __future__ import annotations

import ipaddress
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.http import HttpRequest
from django.utils.translation import gettext, gettext_lazy

from games.exceptions import RateLimited


@dataclass(frozen=True)
class Limit:
    name: str
    per_minute: float  # tokens added back each minute
    burst: int  # tokens a fresh bucket holds: requests at once
    message: str  # lazy: put in the request's language when refused

    def __post_init__(self) -> None:
        _limits[self.name] = self  # pruning finds every bucket's limit by its name

    @property
    def per_second(self) -> float:
        return self.per_minute / 60


_limits: dict[str, Limit] = {}


# A LAN party behind one address (a school's NAT) creates a few rooms; a script does far
# more.
CREATE = Limit("create", 10, 20, gettext_lazy("too many rooms created from your address"))
# Joins: a household at once, then one a second. Every join is an event to everyone in the
# room: forty within a second held up the players' verdicts. A classroom joining at once
# gets 429s whose Retry-After the site's pages wait out (static/js/lib/api.js).
JOIN = Limit("join", 60, 10, gettext_lazy("too many joins from your address"))
# Codes are 8 of 31 characters: misses mean guessing (or a typo, a few times).
ROOM_MISS = Limit(
    "room_miss", 20, 20, gettext_lazy("too many unknown room codes from your address")
)
# Websockets opened: one per page, a few more on reconnects; that LAN party's phones all at
# once. A script opening hundreds costs the server a handshake each.
SOCKET = Limit("socket", 120, 120, gettext_lazy("too many connections from your address"))
# Websocket messages of all the address's players together, on top of each player's own
# limit: players joined many times over must not multiply what one client can make the
# server do. A household or a classroom behind one address types far fewer words a second.
MESSAGE = Limit("message", 20 * 60, 100, gettext_lazy("too many messages from your address"))

# Buckets kept before full (idle) ones are dropped.
KEEP_AT_LEAST = 1024

clock: Callable[[], float] = time.monotonic  # tests move their own

_lock = threading.Lock()
# (limit name, address) -> (tokens, when counted)
_buckets: dict[tuple[str, str], tuple[float, float]] = {}
_next_prune = KEEP_AT_LEAST


class Throttled(RateLimited):
    """429 with a ``Retry-After`` header (games.api.error_response)."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def enabled() -> bool:
    return bool(getattr(settings, "BOGGLE_RATE_LIMITS", True))


def client_address(request: HttpRequest) -> str:
    """The address limits count against (see the module's docstring)."""
    return _address(
        request.META.get("REMOTE_ADDR") or "", request.META.get("HTTP_X_FORWARDED_FOR", "")
    )


def scope_address(scope: dict) -> str:
    """``client_address`` of a websocket's ASGI scope."""
    client = scope.get("client") or ("",)
    headers = dict(scope.get("headers") or ())
    return _address(str(client[0] or ""), headers.get(b"x-forwarded-for", b"").decode("latin-1"))


def _address(peer: str, forwarded_for: str) -> str:
    hops = int(getattr(settings, "BOGGLE_TRUSTED_PROXY_HOPS", 0) or 0)
    if hops > 0:
        forwarded = [part.strip() for part in forwarded_for.split(",") if part.strip()]
        if forwarded:
            return forwarded[-min(hops, len(forwarded))]
    return peer


def bucket_key(address: str) -> str | None:
    """The key of the address's bucket; None for loopback and for no address at all (a
    Unix socket: this machine), never limited."""
    if not address:
        return None
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return address  # unparsable: still counted, as one client
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return None
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network(f"{ip}/64", strict=False))
    return str(ip)


def _tokens(limit: Limit, key: str, now: float) -> float:
    tokens, then = _buckets.get((limit.name, key), (float(limit.burst), now))
    return min(float(limit.burst), tokens + (now - then) * limit.per_second)


def _refuse(limit: Limit, tokens: float) -> Throttled:
    retry_after = max(1, math.ceil((1 - tokens) / limit.per_second))
    message = gettext("%(refusal)s; try again in %(seconds)s s") % {
        "refusal": limit.message,
        "seconds": retry_after,
    }
    return Throttled(message, retry_after)


def _prune(now: float) -> None:
    """Drop buckets that have refilled (the same as absent); amortised O(1) per call."""
    global _next_prune
    if len(_buckets) < _next_prune:
        return
    for name, key in list(_buckets):
        limit = _limits.get(name)
        if limit is None or _tokens(limit, key, now) >= limit.burst:
            del _buckets[(name, key)]
    _next_prune = max(KEEP_AT_LEAST, 2 * len(_buckets))


def take(limit: Limit, address: str, refuse: bool = True) -> None:
    """Count one request; raise Throttled when the bucket is empty (with ``refuse``, else
    the bucket just stays empty)."""
    key = bucket_key(address)
    if key is None or not enabled():
        return
    with _lock:
        now = clock()
        tokens = _tokens(limit, key, now)
        if tokens < 1 and refuse:
            raise _refuse(limit, tokens)
        _buckets[(limit.name, key)] = (max(0.0, tokens - 1), now)
        _prune(now)


def allows(limit: Limit, address: str) -> bool:
    """``take`` without the exception: False (and nothing counted) when the bucket is empty."""
    try:
        take(limit, address)
    except Throttled:
        return False
    return True


def check(limit: Limit, address: str) -> None:
    """Raise Throttled when the bucket is empty, without counting a request."""
    key = bucket_key(address)
    if key is None or not enabled():
        return
    with _lock:
        tokens = _tokens(limit, key, clock())
    if tokens < 1:
        raise _refuse(limit, tokens)


def tracked() -> int:
    return len(_buckets)


def reset() -> None:
    global _next_prune
    with _lock:
        _buckets.clear()
        _next_prune = KEEP_AT_LEAST
