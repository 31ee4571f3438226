"""Database work from async code (sockets, background loops, async views)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from channels.db import database_sync_to_async

P = ParamSpec("P")
R = TypeVar("R")


def in_thread(func: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """Run ``func`` on the event loop's thread pool (connects, state, round ends,
    housekeeping, photo previews). Channels' default, one thread per process
    (``thread_sensitive``), would queue every socket's work behind every other's; the word
    path has threads of its own (``web.writers``)."""
    return database_sync_to_async(func, thread_sensitive=False)
