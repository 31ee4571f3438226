"""How often daily attempts may start (web.throttle buckets), on top of the room-creation
limit every attempt also counts against (it creates a room). In production both are counted
once for the whole site, in Redis (web.shared_buckets), whichever web process answers.

Each attempt can become a leaderboard entry, under any nickname; a person plays a few a
day, a script would fill the board with them."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from web import throttle

# Per address: a household, or a class behind one NAT, starts a dozen at once; after that
# one every 15 s. Loopback is not counted (web.throttle).
DAILY_ADDRESS = throttle.Limit(
    "daily_address", 4, 12, gettext_lazy("too many daily attempts from your address")
)
# Per device (daily.devices): a shared tablet passes round a few players; a round lasts
# 3 minutes, so more than one a minute after that is nobody playing.
DAILY_DEVICE = throttle.Limit(
    "daily_device", 1, 4, gettext_lazy("too many daily attempts from this device")
)


def take_attempt(address: str, device: str) -> None:
    """Count one attempt for the address and the device; raise web.throttle.Throttled
    (429 ``rate_limited``) when either has none left."""
    throttle.check(DAILY_DEVICE, f"device:{device}")
    throttle.take(DAILY_ADDRESS, address)
    throttle.take(DAILY_DEVICE, f"device:{device}")
