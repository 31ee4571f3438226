"""A few threads per process for the word path's database work, each keeping its connection.

``database_sync_to_async`` hands every call to a thread and, before and after it, closes the
thread's connection if it is "obsolete", which with a connection pool (PostgreSQL) is always:
each accepted word checked a connection out (with a health-check round trip) and back in.
These threads keep theirs, so an accepted word costs its INSERT and nothing more; a
connection that died (PostgreSQL restarted) is replaced and the call made once more, so the
player never sees the restart.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from channels.db import database_sync_to_async
from django.db import InterfaceError, OperationalError, connection

# Threads per process: each holds one database connection (see DATABASE_POOL_SIZE).
WRITER_THREADS = 4

P = ParamSpec("P")
R = TypeVar("R")

_executor = ThreadPoolExecutor(max_workers=WRITER_THREADS, thread_name_prefix="word-path")


def in_thread(func: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """Any other database work from async code (connects, state, round ends, housekeeping):
    on the event loop's thread pool. Channels' default, one thread per process
    (``thread_sensitive``), would queue every socket's work behind every other's."""
    return database_sync_to_async(func, thread_sensitive=False)


async def run(func: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """Run ``func`` on a word-path thread and wait for it without blocking the event loop."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_executor, functools.partial(_call, func, *args, **kwargs))


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
