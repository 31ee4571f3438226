"""The embedded default's channel layer: Channels' in-memory layer, sweeping expired
messages and group memberships once a second instead of on every receive.

``channels.layers.InMemoryChannelLayer`` walks every channel's queue and every group's
members before each ``receive``: with 1,000 sockets in one process that is some 2,000 steps
for each message delivered, and a round played by them (30,000 verdicts, their room's word
counts to 8 sockets each) spent a fifth of the process's CPU there (``bench/load.py
--players 1000 --profile``). Messages expire after a minute and memberships after a day,
so sweeping a second late changes nothing a client sees.

Delivering is also cheaper than Channels' own, with the same effect: a group send puts the
message on each member's queue directly instead of starting a task per member and waiting
for them all, and a channel's queue is kept between messages (dropped by the sweep once it
is empty and nobody waits on it) instead of being built anew for every message sent and
every receive. At 1,000 sockets these were some 3 % of the process's CPU.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from copy import deepcopy
from typing import Any

from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer

# How often expired messages and memberships are swept, at most (seconds).
SWEEP_EVERY_SECONDS = 1.0

clock: Callable[[], float] = time.monotonic  # tests move their own


class EmbeddedChannelLayer(InMemoryChannelLayer):
    """``InMemoryChannelLayer`` whose sweep of expired messages runs at most once every
    ``SWEEP_EVERY_SECONDS``, and whose sends start no task."""

    _next_sweep = 0.0

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_channel_name(channel)
        assert "__asgi_channel__" not in message
        self._put(channel, message)

    async def receive(self, channel: str) -> dict[str, Any]:
        self.require_valid_channel_name(channel)
        self._clean_expired()
        _, message = await self._queue(channel).get()
        return message

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        for channel in list(self.groups.get(group, ())):
            # As Channels' layer: a member whose queue is full misses this one.
            with contextlib.suppress(ChannelFull):
                self._put(channel, message)

    def _put(self, channel: str, message: dict[str, Any]) -> None:
        # Each receiver gets its own copy, as over Redis.
        try:
            self._queue(channel).put_nowait((time.time() + self.expiry, deepcopy(message)))
        except asyncio.QueueFull:
            raise ChannelFull(channel) from None

    def _queue(self, channel: str) -> asyncio.Queue:
        queue = self.channels.get(channel)
        if queue is None:
            queue = self.channels[channel] = asyncio.Queue(maxsize=self.get_capacity(channel))
        return queue

    def _clean_expired(self) -> None:
        now = clock()
        if now < self._next_sweep:
            return
        self._next_sweep = now + SWEEP_EVERY_SECONDS
        super()._clean_expired()
        # Queues outlive their messages here (see the module's doc): drop the empty ones
        # nobody is waiting on, such as a closed socket's.
        for channel, queue in list(self.channels.items()):
            if queue.empty() and not getattr(queue, "_getters", None):
                del self.channels[channel]
