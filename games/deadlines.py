"""The deadline watcher: ends rounds on time from inside each web (ASGI) process.

Every Daphne process runs one watcher in its event loop, started by the first request or
websocket it serves. Every ``POLL_SECONDS`` (and right when a round this process serves is
due) it ends the running rounds past their deadline (one indexed query when there are
none), ``rounds.ROUNDS_PER_BATCH`` at a time. Ending is idempotent (``rounds.end_rounds``),
so several processes and the Celery ``end_round`` task may all try: a round is scored once.

Embedded (tasks in-process), the watchers are what ends rounds: right after the deadline
plus ``rounds.END_GRACE_SECONDS``. With Celery workers, the ``end_round`` task scheduled at
that moment ends the round in a worker, so that scoring (Python that holds a process's GIL)
does not delay the verdicts of other rooms' players on a web process; the watchers end a
round only ``WORKER_FALLBACK_SECONDS`` later, when no worker has (dead, busy, cut off from
Redis).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time

from django.conf import settings

from games import autopilot, housekeeping, live, rounds
from web.threads import in_thread

logger = logging.getLogger(__name__)

# Time between checks: bounds how late after its deadline a round ends.
POLL_SECONDS = 0.25
# How often the watcher also prepares stalled rounds, and deletes idle rooms and the files
# nothing needs any more (seconds; both on its first pass too).
HOUSEKEEPING_EVERY = 5.0
# How often it starts the rounds and ends the games the autopilot has due (games.autopilot).
AUTOPILOT_EVERY = 1.0
CLEANUP_EVERY = 3600.0
# With Celery workers, a watcher ends a round this long after a worker should have
# (seconds): more than a busy worker's delay, little enough that players barely wait.
WORKER_FALLBACK_SECONDS = 2.0

_watchers: dict[asyncio.AbstractEventLoop, asyncio.Task] = {}


def ensure_watcher() -> None:
    """Start the watcher for the running event loop unless it already runs."""
    loop = asyncio.get_running_loop()
    task = _watchers.get(loop)
    if task is None or task.done():
        _watchers[loop] = loop.create_task(_watch(), name="round-deadline-watcher")


async def stop_watcher() -> None:
    """Stop this loop's watcher (tests)."""
    task = _watchers.pop(asyncio.get_running_loop(), None)
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def _end_overdue_rounds() -> None:
    """End overdue rounds, in batches (``rounds.end_overdue_rounds``): rooms that started
    together (a tournament, a load test) all end at once, and ending them together costs
    little more than ending one."""
    await in_thread(rounds.end_overdue_rounds)(_lateness())


def _lateness() -> float:
    """How long after its deadline this process's watcher ends a round (seconds)."""
    if settings.CELERY_TASK_ALWAYS_EAGER:  # no workers: the watchers end rounds
        return rounds.END_GRACE_SECONDS
    return rounds.END_GRACE_SECONDS + WORKER_FALLBACK_SECONDS


def _until_next_check() -> float:
    """Seconds to sleep: the poll interval, or less when a round this process serves is due
    sooner (its deadline plus the grace), so results go out right on time."""
    delay = POLL_SECONDS
    due = live.next_deadline()
    if due is not None:
        delay = min(delay, due + _lateness() - time.time())
    return max(delay, 0.005)


async def _watch() -> None:
    last_housekeeping = last_cleanup = last_autopilot = -math.inf
    while True:
        try:
            await _end_overdue_rounds()
            now = time.monotonic()
            if now - last_autopilot >= AUTOPILOT_EVERY:
                last_autopilot = now
                await in_thread(autopilot.run_due)()
            if now - last_housekeeping >= HOUSEKEEPING_EVERY:
                last_housekeeping = now
                await in_thread(rounds.prepare_stalled_rounds)()
            if now - last_cleanup >= CLEANUP_EVERY:
                last_cleanup = now
                await in_thread(housekeeping.cleanup_idle_rooms)()
                await in_thread(housekeeping.delete_unused_files)()
        except asyncio.CancelledError:
            raise
        except Exception:  # a database hiccup must not stop the clock for good
            logger.exception("deadline watcher: check failed; retrying")
        await asyncio.sleep(_until_next_check())
