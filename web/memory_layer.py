"""The embedded default's channel layer: Channels' in-memory layer, sweeping expired
messages and group memberships once a second instead of on every receive.

``channels.layers.InMemoryChannelLayer`` walks every channel's queue and every group's
members before each ``receive``: with 1,000 sockets in one process that is some 2,000 steps
for each message delivered, and a round played by them (30,000 verdicts, their room's word
counts to 8 sockets each) spent a fifth of the process's CPU there (``bench/load.py
--players 1000 --profile``). Messages expire after a minute and memberships after a day,
so sweeping a second late changes nothing a client sees.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from channels.layers import InMemoryChannelLayer

# How often expired messages and memberships are swept, at most (seconds).
SWEEP_EVERY_SECONDS = 1.0

clock: Callable[[], float] = time.monotonic  # tests move their own


class EmbeddedChannelLayer(InMemoryChannelLayer):
    """``InMemoryChannelLayer`` whose sweep of expired messages runs at most once every
    ``SWEEP_EVERY_SECONDS``."""

    _next_sweep = 0.0

    def _clean_expired(self) -> None:
        now = clock()
        if now < self._next_sweep:
            return
        self._next_sweep = now + SWEEP_EVERY_SECONDS
        super()._clean_expired()
