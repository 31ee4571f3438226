"""Per-address rate limits: room creations, joins, unknown room codes, daily attempts,
photos, solves, waiting lists, websockets opened, websocket messages.

Token buckets (``Limit``) and strict windows (``Window``). In production (Redis configured,
``web.limits_redis``) each is counted once for the whole site, in Redis
(``web.shared_buckets``, ``web.shared_windows``): two or three Daphnes behind a proxy that
spreads one client's requests give it one budget, not one per process. The embedded default
(one process, no Redis) counts in memory. While Redis cannot be reached each process counts
in its own memory (a log line says so): an outage weakens the limits to one budget per
process and never fails a request.

The limits checked on a process's event loop (``per_process``: connections accepted,
websockets opened, websocket messages) are counted in that process, also in production: they
guard that process's loop, and a Redis round trip per frame would cost it what they save.

Unknown room codes are a strict window (``ROOM_MISS``): at most 20 within any minute, one
budget for every path that takes a code (HTTP API, pages, photos, both sockets), see
``games.access.find_room_from``.

The address is the TCP peer Daphne saw, or, when that peer is one of the reverse proxies
of ``BOGGLE_TRUSTED_PROXIES``, the client it forwards (``web.proxies``: the
right-most entry of ``X-Forwarded-For`` that is not a trusted proxy; a client reaching
Daphne directly is counted as itself whatever it writes there). IPv6 clients are counted
per /64, the block one subscriber gets.
Loopback is never limited: it is this machine (the host's own laptop, or a proxy that was
not declared, whose clients cannot be told apart). ``BOGGLE_RATE_LIMITS = False`` turns
every limit off.
"""

from __future__ import annotations

import functools
import ipaddress
import math
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.conf import settings
from django.http import HttpRequest
from django.utils.translation import gettext, gettext_lazy

from web import limits_redis, metrics, proxies, shared_buckets, shared_windows
from web.errors import RateLimited

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


@dataclass(frozen=True)
class Limit:
    name: str
    per_minute: float  # tokens added back each minute
    burst: int  # tokens a fresh bucket holds: requests at once
    message: StrOrPromise  # lazy: put in the request's language when refused
    # Counted in each process, never in Redis: a limit checked on the event loop.
    per_process: bool = False

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


@dataclass(frozen=True)
class Window:
    """At most ``count`` events per address within any ``seconds``: a strict cap, where a
    token bucket lets a full burst and then a minute's refill through in its first minute."""

    name: str
    count: int
    seconds: float
    message: StrOrPromise  # lazy: put in the request's language when refused

    def __post_init__(self) -> None:
        _window_seconds[self.name] = self.seconds  # pruning finds each key's window by name


_window_seconds: dict[str, float] = {}

# Codes are 8 of 31 characters: misses mean guessing (or a typo, a few times). Counted on
# every path that takes a code; once used up, every look-up by that address is refused,
# real codes too, so the refusals tell nothing (games.access.find_room_from).
ROOM_MISS = Window(
    "room_miss", 20, 60.0, gettext_lazy("too many unknown room codes from your address")
)
# Websockets opened: one per page, a few more on reconnects; that LAN party's phones all at
# once. A script opening hundreds costs the server a handshake each.
SOCKET = Limit(
    "socket", 120, 120, gettext_lazy("too many connections from your address"), per_process=True
)
# Websocket messages of all the address's players together, on top of each player's own
# limit: players joined many times over must not multiply what one client can make the
# server do. A household or a classroom behind one address types far fewer words a second.
MESSAGE = Limit(
    "message", 20 * 60, 100, gettext_lazy("too many messages from your address"), per_process=True
)

# Websocket messages of one player (or one spectator's socket), in every process it has
# sockets in: a burst of 20, then 8 a second. Unlike the limits above it is counted on
# loopback too and whatever BOGGLE_RATE_LIMITS says (``spend``): it keeps any one client
# from flooding the database.
PLAYER_MESSAGE = Limit(
    "player_message", 8 * 60, 20, gettext_lazy("too many messages"), per_process=True
)

# Buckets kept before full (idle) ones are dropped.
KEEP_AT_LEAST = 1024

clock: Callable[[], float] = time.monotonic  # tests move their own

_lock = threading.Lock()
# (limit name, address) -> (tokens, when counted)
_buckets: dict[tuple[str, str], tuple[float, float]] = {}
_next_prune = KEEP_AT_LEAST
# (window name, address) -> (time, id) of its events within the window, oldest first
_windows: dict[tuple[str, str], deque[tuple[float, str]]] = {}
_next_window_prune = KEEP_AT_LEAST


class Throttled(RateLimited):
    """429 with a ``Retry-After`` header (web.json_api.error_response)."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def enabled() -> bool:
    return bool(getattr(settings, "BOGGLE_RATE_LIMITS", True))


def client_address(request: HttpRequest) -> str:
    """The address limits count against (see the module's docstring)."""
    return proxies.client_address(
        request.META.get("REMOTE_ADDR") or "", request.META.get("HTTP_X_FORWARDED_FOR", "")
    )


def scope_address(scope: dict) -> str:
    """``client_address`` of a websocket's ASGI scope."""
    client = scope.get("client") or ("",)
    forwarded = b",".join(
        value for name, value in scope.get("headers") or () if name == b"x-forwarded-for"
    )
    return proxies.client_address(str(client[0] or ""), forwarded.decode("latin-1"))


@functools.lru_cache(maxsize=4096)  # every socket message asks: parse each address once
def bucket_key(address: str) -> str | None:
    """The key of the address's bucket; None for loopback and for no address at all (a
    Unix socket: this machine), never limited."""
    if not address:
        return None
    ip = proxies.parse_ip(address)
    if ip is None:
        return address  # unparsable: still counted, as one client
    if ip.is_loopback:
        return None
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network(f"{ip}/64", strict=False))
    return str(ip)


def _tokens(limit: Limit, key: str, now: float) -> float:
    tokens, then = _buckets.get((limit.name, key), (float(limit.burst), now))
    return min(float(limit.burst), tokens + (now - then) * limit.per_second)


def _throttled(refusal: StrOrPromise, retry_after: int) -> Throttled:
    message = gettext("%(refusal)s; try again in %(seconds)s s") % {
        "refusal": refusal,
        "seconds": retry_after,
    }
    return Throttled(message, retry_after)


def _refuse(limit: Limit, tokens: float) -> Throttled:
    metrics.limit_hit(limit.name)
    return _throttled(limit.message, max(1, math.ceil((1 - tokens) / limit.per_second)))


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
    if _shared(limit):
        try:
            shared_buckets.take(limit.name, key, limit.per_second, limit.burst, refuse)
        except shared_buckets.Empty as empty:
            raise _refuse(limit, empty.tokens) from None
        except limits_redis.Unavailable:
            pass  # counted here meanwhile (web.limits_redis logs the outage)
        else:
            return
    with _lock:
        now = clock()
        tokens = _tokens(limit, key, now)
        if tokens < 1 and refuse:
            raise _refuse(limit, tokens)
        _buckets[(limit.name, key)] = (max(0.0, tokens - 1), now)
        _prune(now)


def _shared(limit: Limit) -> bool:
    """Whether ``limit`` is counted in Redis, once for the site (see the docstring)."""
    return not limit.per_process and limits_redis.configured()


def spend(limit: Limit, key: str) -> bool:
    """Spend one token of the bucket named ``key`` (a player, a socket: not an address);
    False, and nothing spent, when it is empty."""
    with _lock:
        now = clock()
        tokens = _tokens(limit, key, now)
        if tokens < 1:
            metrics.limit_hit(limit.name)
            return False
        _buckets[(limit.name, key)] = (tokens - 1, now)
        _prune(now)
    return True


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
    tokens: float | None = None
    if _shared(limit):
        try:
            tokens = shared_buckets.tokens(limit.name, key, limit.per_second, limit.burst)
        except limits_redis.Unavailable:
            tokens = None
    if tokens is None:
        with _lock:
            tokens = _tokens(limit, key, clock())
    if tokens < 1:
        raise _refuse(limit, tokens)


def _refuse_window(window: Window, oldest: float, now: float) -> Throttled:
    metrics.limit_hit(window.name)
    return _throttled(window.message, max(1, math.ceil(oldest + window.seconds - now)))


def _recent(window: Window, key: str, now: float) -> deque[tuple[float, str]] | None:
    """The key's events still inside the window (older ones dropped), or None."""
    events = _windows.get((window.name, key))
    if events is None:
        return None
    while events and events[0][0] <= now - window.seconds:
        events.popleft()
    return events


def _prune_windows(now: float) -> None:
    """Drop keys whose events have all left their window; amortised O(1) per call."""
    global _next_window_prune
    if len(_windows) < _next_window_prune:
        return
    for name, key in list(_windows):
        events = _windows[(name, key)]
        if not events or events[-1][0] <= now - _window_seconds.get(name, 0.0):
            del _windows[(name, key)]
    _next_window_prune = max(KEEP_AT_LEAST, 2 * len(_windows))


@dataclass(frozen=True)
class Slot:
    """One event counted in a window, which ``release`` can take back."""

    window: Window
    key: str
    member: str
    shared: bool  # counted in Redis (shared_windows), not in this process


def _reserve_here(window: Window, key: str, member: str) -> Slot:
    with _lock:
        now = clock()
        events = _recent(window, key, now)
        if events is None:
            events = _windows[(window.name, key)] = deque()
        if len(events) >= window.count:
            raise _refuse_window(window, events[0][0], now)
        events.append((now, member))
        _prune_windows(now)
    return Slot(window, key, member, shared=False)


def reserve(window: Window, address: str, scope: str = "") -> Slot | None:
    """Count one event of ``address`` in ``window`` before the work that may turn out to be
    one (a room look-up: a miss); Throttled when the window is full. Counting first keeps
    the cap strict under parallel requests: each holds its slot while it looks. ``release``
    gives the slot back (a hit). None when nothing is counted (loopback, limits off).
    Production counts in Redis, one budget for every web process (``web.shared_windows``);
    here when there is none, or while it cannot be reached."""
    key = bucket_key(address)
    if key is None or not enabled():
        return None
    if scope:  # the address's events at one thing (a room): a window of their own
        key = f"{scope}:{key}"
    member = uuid.uuid4().hex
    if limits_redis.configured():
        try:
            shared_windows.reserve(window.name, key, member, window.count, window.seconds)
        except shared_windows.Full as full:
            raise _refuse_window(window, full.oldest, full.now) from None
        except limits_redis.Unavailable:
            return _reserve_here(window, key, member)
        return Slot(window, key, member, shared=True)
    return _reserve_here(window, key, member)


def release(slot: Slot | None) -> None:
    """Take back an event ``reserve`` counted (the look-up found the room)."""
    if slot is None:
        return
    if slot.shared:
        shared_windows.release(slot.window.name, slot.key, slot.member)
        return
    with _lock:
        events = _windows.get((slot.window.name, slot.key))
        if events is None:
            return
        for event in events:
            if event[1] == slot.member:
                events.remove(event)
                return


def tracked() -> int:
    return len(_buckets) + len(_windows)


def reset() -> None:
    global _next_prune, _next_window_prune
    with _lock:
        _buckets.clear()
        _windows.clear()
        _next_prune = KEEP_AT_LEAST
        _next_window_prune = KEEP_AT_LEAST
