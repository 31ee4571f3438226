"""A few threads per process for the word path's database work, each keeping its connection.

``database_sync_to_async`` hands every call to a thread and, before and after it, closes the
thread's connection if it is "obsolete", which with a connection pool (PostgreSQL) is always:
each accepted word checked a connection out (with a health-check round trip) and back in.
These threads keep theirs, so an accepted word costs its INSERT and nothing more; a
connection that died (PostgreSQL restarted) is replaced and the call made once more, so the
player never sees the restart.

Writes wait their turn per client address (``lane``): at most ``CALLS_PER_ADDRESS`` of one
address's calls are on these threads at once, the rest wait on the event loop. A client that
joined a room many times over, or spends its whole message budget at once, queues behind
itself, not in front of every other player's words.
"""

from __future__ import annotations

import asyncio
import functools
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from typing import ParamSpec, TypeVar

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import InterfaceError, OperationalError, connection
from django.utils import translation

# Threads per process: each holds one database connection (see DATABASE_POOL_SIZE).
WRITER_THREADS = 4
# One address's calls on those threads at once: under the thread count, so one address
# never holds them all (a household's or a classroom's words still flow: a write takes
# milliseconds).
CALLS_PER_ADDRESS = 2

P = ParamSpec("P")
R = TypeVar("R")

_executor = ThreadPoolExecutor(max_workers=WRITER_THREADS, thread_name_prefix="word-path")


async def run(func: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """Run ``func`` on a word-path thread and wait for it without blocking the event loop."""
    # In the caller's interface language (the socket's, games.consumers): the pool's
    # threads are plain threads, where Django's active language is thread-local.
    call = functools.partial(_call_in_language, translation.get_language(), func, *args, **kwargs)
    if _on_calling_thread.get():
        return await sync_to_async(call, thread_sensitive=True)()
    return await asyncio.get_running_loop().run_in_executor(_executor, call)


# Set by ``on_calling_thread``: the word path's database work runs on the thread that waits
# for it (in ``async_to_sync``) instead of the pool's.
_on_calling_thread: ContextVar[bool] = ContextVar("word_path_on_calling_thread", default=False)


@contextmanager
def on_calling_thread() -> Iterator[None]:
    """Within the block, the word path's database work runs on the calling thread, on its
    connection: for synchronous callers whose rows live in a transaction still open on that
    connection (tests under pytest-django's ``db`` fixture), which another thread's
    connection cannot see."""
    token = _on_calling_thread.set(True)
    try:
        yield
    finally:
        _on_calling_thread.reset(token)


class Lanes:
    """At most ``width`` calls in flight per key; a key's further calls wait, in order, on
    the event loop. A key's semaphore exists only while the key has calls."""

    def __init__(self, width: int) -> None:
        self.width = width
        self._semaphores: dict[str, asyncio.Semaphore] = {}
        self._users: Counter[str] = Counter()

    @asynccontextmanager
    async def lane(self, key: str | None) -> AsyncIterator[None]:
        if key is None:  # no address to hold back (this machine): straight through
            yield
            return
        semaphore = self._semaphores.setdefault(key, asyncio.Semaphore(self.width))
        self._users[key] += 1
        try:
            async with semaphore:
                yield
        finally:
            self._users[key] -= 1
            if not self._users[key]:
                del self._users[key]
                del self._semaphores[key]

    def waiting(self) -> int:
        """Calls holding or waiting for a lane, over every key (tests, benchmarks)."""
        return sum(self._users.values())


_lanes = Lanes(CALLS_PER_ADDRESS)


async def run_in_lane(
    lane: str | None, func: Callable[P, R], *args: P.args, **kwargs: P.kwargs
) -> R:
    """``run``, taking its turn in the lane of the caller's address (a
    ``web.throttle.bucket_key``; None for this machine, never held back)."""
    async with _lanes.lane(lane):
        return await run(func, *args, **kwargs)


def _call_in_language(
    language: str | None, func: Callable[..., R], *args: object, **kwargs: object
) -> R:
    if language == settings.LANGUAGE_CODE:  # these threads only ever activate it back
        return _call(func, *args, **kwargs)
    with translation.override(language):
        return _call(func, *args, **kwargs)


def _call(func: Callable[..., R], *args: object, **kwargs: object) -> R:
    try:
        return func(*args, **kwargs)
    except (OperationalError, InterfaceError):
        if not _connection_died():
            raise  # the database refused the statement: not a connection problem
        # The kept connection died (PostgreSQL restarted): once more on a fresh one. Safe
        # for the word path: loading reads, and a repeated INSERT of an entry that did get
        # stored meets its unique constraint and is answered as stored.
        connection.close()
        return func(*args, **kwargs)


def _connection_died() -> bool:
    return connection.connection is not None and not connection.is_usable()
