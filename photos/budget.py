"""Photos cannot fill the disk: a budget of bytes per address and per room within any hour,
and a floor of free space below which no photo is stored (docs/api.md, "Board from a
photo"; issue 48).

The other bounds count photos (waiting to be read, sent a minute); a phone sending 15 MB
files as fast as they are read still stored some 55 GB an hour. Here each upload's bytes
are counted in a sliding hour, for its address and for its room (the Solve page's photos:
the address only), all or none: an upload over either budget is refused (429
``rate_limited``, with the ``Retry-After`` until enough bytes leave the hour) and counts
nothing. As for every per-address limit, loopback and ``BOGGLE_RATE_LIMITS = False`` are
never counted (``web.throttle.bucket_key``).

Production keeps the budgets in Redis (``web.limits_redis``, as the other per-address
limits), so every web process spends one budget; a reservation is one Lua script, so two
processes cannot both spend the last bytes. While Redis cannot be reached, each process
counts its own, and no upload fails for it.

The floor (``check_free_space``) is for everyone, loopback included: a full disk stops the
database and the logs, not only the photos. Refused with 507 ``storage_full``.
"""

from __future__ import annotations

import logging
import math
import shutil
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.utils.translation import gettext, gettext_lazy

from photos.exceptions import StorageFull
from web import limits_redis, metrics, throttle

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

logger = logging.getLogger(__name__)

WINDOW_SECONDS = 3600.0


@dataclass(frozen=True)
class Budget:
    name: str
    setting: str  # the setting holding its bytes an hour (boggle_site.env.photo_megabytes)
    message: StrOrPromise  # lazy: "%(used)s" and "%(limit)s" are MB

    def limit(self) -> int:
        return int(getattr(settings, self.setting))


ADDRESS = Budget(
    "photo_bytes_address",
    "BOGGLE_PHOTO_BYTES_PER_ADDRESS_HOUR",
    gettext_lazy(
        "your address has sent %(used)s MB of photos within the hour; the limit is %(limit)s MB"
    ),
)
ROOM = Budget(
    "photo_bytes_room",
    "BOGGLE_PHOTO_BYTES_PER_ROOM_HOUR",
    gettext_lazy(
        "this room has received %(used)s MB of photos within the hour; the limit is %(limit)s MB"
    ),
)

# This process's budgets; tests move their own (Redis's: web.limits_redis.wall_clock).
clock: Callable[[], float] = time.monotonic


@dataclass(frozen=True)
class Reservation:
    """One upload's bytes, counted in each of ``keys`` (budget name, key)."""

    keys: tuple[tuple[str, str], ...]
    member: str
    size: int
    shared: bool  # counted in Redis, not in this process


class _Over(Exception):
    """The upload would take ``budget`` over its limit; ``wait`` seconds until it fits."""

    def __init__(self, budget: Budget, used: int, wait: float) -> None:
        super().__init__(budget.name)
        self.budget, self.used, self.wait = budget, used, wait


BUDGETS = {budget.name: budget for budget in (ADDRESS, ROOM)}


def _megabytes(size: int) -> str:
    return f"{size / 1e6:.0f}"


def _refusal(over: _Over) -> throttle.Throttled:
    metrics.limit_hit(over.budget.name)
    refusal = str(over.budget.message) % {
        "used": _megabytes(over.used),
        "limit": _megabytes(over.budget.limit()),
    }
    retry_after = max(1, math.ceil(over.wait))
    message = gettext("%(refusal)s; try again in %(seconds)s s") % {
        "refusal": refusal,
        "seconds": retry_after,
    }
    return throttle.Throttled(message, retry_after)


def reserve(address: str | None, room: str | None, size: int) -> Reservation | None:
    """Count ``size`` bytes for ``address`` and ``room`` (a room's code; None for the Solve
    page) before storing them; Throttled, and nothing counted, when either budget would go
    over. ``release`` gives them back (the upload failed after all). None when nothing is
    counted (loopback, limits off)."""
    key = throttle.bucket_key(address or "")
    if key is None or not throttle.enabled():
        return None
    keys = [(ADDRESS.name, key)]
    if room is not None:
        keys.append((ROOM.name, room))
    member = f"{uuid.uuid4().hex}:{size}"
    try:
        if limits_redis.configured():
            try:
                _reserve_shared(keys, member, size)
                return Reservation(tuple(keys), member, size, shared=True)
            except limits_redis.Unavailable:
                pass
        _reserve_here(keys, member, size)
    except _Over as over:
        raise _refusal(over) from None
    return Reservation(tuple(keys), member, size, shared=False)


def release(reservation: Reservation | None) -> None:
    """Take back the bytes ``reserve`` counted."""
    if reservation is None:
        return
    if reservation.shared:
        _release_shared(reservation)
        return
    with _lock:
        for name_key in reservation.keys:
            events = _events.get(name_key)
            if events is not None:
                for event in events:
                    if event[1] == reservation.member:
                        events.remove(event)
                        break


# ------------------------------------------------------------------ in this process

_lock = threading.Lock()
# (budget name, key) -> (time, member, bytes) of its uploads within the hour, oldest first
_events: dict[tuple[str, str], deque[tuple[float, str, int]]] = {}
# Keys kept before those with nothing left in the hour are dropped.
KEEP_AT_LEAST = 1024
_next_prune = KEEP_AT_LEAST


def _wait_until_fits(events: Any, used: int, size: int, limit: int, now: float) -> float:
    """Seconds until enough of ``events`` ((time, bytes), oldest first) leave the hour."""
    freed = 0
    for at, spent in events:
        freed += spent
        if used - freed + size <= limit:
            return at + WINDOW_SECONDS - now
    return WINDOW_SECONDS


def _reserve_here(keys: list[tuple[str, str]], member: str, size: int) -> None:
    global _next_prune
    with _lock:
        now = clock()
        found = []
        for name, key in keys:
            events = _events.setdefault((name, key), deque())
            while events and events[0][0] <= now - WINDOW_SECONDS:
                events.popleft()
            used = sum(spent for _, _, spent in events)
            limit = BUDGETS[name].limit()
            if used + size > limit:
                ages = [(at, spent) for at, _, spent in events]
                raise _Over(BUDGETS[name], used, _wait_until_fits(ages, used, size, limit, now))
            found.append(events)
        for events in found:
            events.append((now, member, size))
        if len(_events) >= _next_prune:
            for name_key, events in list(_events.items()):
                if not events or events[-1][0] <= now - WINDOW_SECONDS:
                    del _events[name_key]
            _next_prune = max(KEEP_AT_LEAST, 2 * len(_events))


def reset() -> None:
    global _next_prune
    with _lock:
        _events.clear()
        _next_prune = KEEP_AT_LEAST


# ------------------------------------------------------------------ in Redis

# KEYS: one sorted set per budget, members "<id>:<bytes>" scored by time. ARGV: now, window
# seconds, member, bytes, expiry seconds, then each key's limit. Returns {1} when counted
# in every set; {0, the key's index, bytes used, seconds until it fits} when one is full.
RESERVE = """
local now, window, size = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[4])
local function bytes(member) return tonumber(string.match(member, ':(%d+)$')) end
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local events = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
  local used = 0
  for j = 1, #events, 2 do used = used + bytes(events[j]) end
  local limit = tonumber(ARGV[5 + i])
  if used + size > limit then
    local freed, wait = 0, window
    for j = 1, #events, 2 do
      freed = freed + bytes(events[j])
      if used - freed + size <= limit then
        wait = tonumber(events[j + 1]) + window - now
        break
      end
    end
    return {0, i, tostring(used), tostring(wait)}
  end
end
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, ARGV[3])
  redis.call('EXPIRE', key, ARGV[5])
end
return {1}
"""


def _redis_key(name: str, key: str) -> str:
    return limits_redis.key("bytes", name, key)


def _reserve_shared(keys: list[tuple[str, str]], member: str, size: int) -> None:
    """``_reserve_here`` in Redis; limits_redis.Unavailable when it does not answer."""
    limits = [BUDGETS[name].limit() for name, _ in keys]
    with limits_redis.connection() as client:
        result = limits_redis.script(client, RESERVE)(
            keys=[_redis_key(name, key) for name, key in keys],
            args=[repr(limits_redis.wall_clock()), repr(WINDOW_SECONDS), member, size,
                  math.ceil(WINDOW_SECONDS) + 1, *limits],
            client=client,
        )  # fmt: skip
    if int(result[0]) == 0:
        name = keys[int(result[1]) - 1][0]
        raise _Over(BUDGETS[name], int(float(result[2])), float(result[3]))


def _release_shared(reservation: Reservation) -> None:
    try:
        with limits_redis.connection() as client:
            for name, key in reservation.keys:
                client.zrem(_redis_key(name, key), reservation.member)
    except limits_redis.Unavailable:
        logger.info("photo budgets: bytes stay counted for the hour (Redis unreachable)")


# ------------------------------------------------------------------ the free-space floor


def _existing(path: Path) -> Path:
    """``path`` or its nearest existing parent (MEDIA_ROOT is made by the first photo)."""
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def check_free_space(size: int) -> None:
    """Refuse (StorageFull) a photo of ``size`` bytes that would leave the media disk with
    less than ``BOGGLE_PHOTO_MIN_FREE_BYTES`` free."""
    floor = int(getattr(settings, "BOGGLE_PHOTO_MIN_FREE_BYTES", 0))
    if floor <= 0:
        return
    free = shutil.disk_usage(_existing(Path(settings.MEDIA_ROOT))).free
    if free - size < floor:
        logger.warning(
            "photo refused: %s MB free on the media disk, the floor is %s MB",
            _megabytes(free), _megabytes(floor),
        )  # fmt: skip
        raise StorageFull(
            gettext(
                "the server's disk is nearly full, so it cannot store photos for now; "
                "type the board in instead"
            )
        )
