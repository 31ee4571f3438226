"""How one socket gets the room's live counts: with its player's next verdict while they
type, in a frame of their own otherwise.

The counts (``round.counts``, ``games.live_counts``) reach a room about once a second. At
one word a second per player that was nearly one frame more per verdict on every socket,
a frame each process had to frame and write for a snapshot the next one replaces. So a
socket whose player typed lately keeps the newest counts back for up to ``HOLD_SECONDS``
and its next verdict carries them (``counts_event``, docs/api.md); a socket that typed
nothing, or whose player stopped, gets them on their own as before, at most that much
later. A snapshot replaces the one held: only the newest is ever sent.

Plain bookkeeping, no I/O: the consumer (``games.consumers``) holds one per socket and arms
the timer that releases what no verdict took.
"""

from __future__ import annotations

from typing import Any

# The room event this delivers.
COUNTS_EVENT = "round.counts"
# Set on an event's layer message (never sent) when it is counts alone, which the next
# replaces; counts with news (long words, a co-op team's new words) go out at once.
SNAPSHOT_KEY = "counts_snapshot"
# A player who sent an entry within this long is typing: their counts wait for a verdict.
TYPING_SECONDS = 2.0
# The longest counts wait for a verdict before they go on their own.
HOLD_SECONDS = 1.0


class CountsDelivery:
    """One socket's held counts and when its player last typed (``time.monotonic``)."""

    __slots__ = ("held", "typed_at")

    def __init__(self) -> None:
        self.held: dict[str, Any] | None = None  # the newest counts event, as published
        self.typed_at = float("-inf")

    def typed(self, now: float) -> None:
        """The player sent an entry."""
        self.typed_at = now

    def hold(self, event: dict[str, Any], now: float) -> bool:
        """Counts came: True when they are held for the next verdict (the caller makes sure
        they are released after ``HOLD_SECONDS``), False when they go out now."""
        if not event.get(SNAPSHOT_KEY) or now - self.typed_at > TYPING_SECONDS:
            self.held = None  # what goes out now is newer
            return False
        self.held = event
        return True

    def take(self) -> dict[str, Any] | None:
        """The held counts, to send now (with a verdict, or released), or None."""
        event, self.held = self.held, None
        return event

    def drop(self) -> None:
        """The round changed: counts of the one before must not reach the next."""
        self.held = None
