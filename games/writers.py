"""A few threads per process for the word path's database work, each keeping its connection.

``database_sync_to_async`` hands every call to a thread and, before and after it, closes the
thread's connection if it is "obsolete", which with a connection pool (PostgreSQL) is always:
each accepted word checked a connection out (with a health-check round trip) and back in.
These threads keep theirs, so an accepted word costs its INSERT and nothing more; a
connection that failed (PostgreSQL restarted) is dropped after the error and the next call
gets a fresh one.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from django.db import connection

# Threads per process: each holds one database connection (see DATABASE_POOL_SIZE).
WRITER_THREADS = 4

P = ParamSpec("P")
R = TypeVar("R")

_executor = ThreadPoolExecutor(max_workers=WRITER_THREADS, thread_name_prefix="word-path")


async def run(func: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """Run ``func`` on a word-path thread and wait for it without blocking the event loop."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_executor, functools.partial(_call, func, *args, **kwargs))


def _call(func: Callable[..., R], *args: object, **kwargs: object) -> R:
    try:
        return func(*args, **kwargs)
    except Exception:
        if connection.connection is not None and not connection.is_usable():
            connection.close()  # broken: the next call connects afresh
        raise
