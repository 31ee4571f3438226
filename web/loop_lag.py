"""How late this process's event loop runs what is due: the lag every socket's frames wait.

A task sleeps ``PERIOD_SECONDS`` over and over and records how much later than asked it
woke (``boggle_event_loop_lag_seconds`` at ``/metrics``, a histogram). When the loop is
busy (a burst of frames, a slow callback, the GIL held by a thread) every verdict and
event waits as long; a p99 above a few tens of milliseconds is what players feel.
``bench/load.py`` reads it from each web process over a round's play.
"""

from __future__ import annotations

import asyncio

from prometheus_client import Histogram

PERIOD_SECONDS = 0.1
# Bucket bounds (seconds): fine below 50 ms, where a healthy loop stays.
BUCKETS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)

LOOP_LAG = Histogram(
    "boggle_event_loop_lag_seconds",
    "How late this process's event loop woke a task that slept 0.1 s (its delay to every "
    "socket's frames).",
    buckets=BUCKETS,
)

_watchers: dict[asyncio.AbstractEventLoop, asyncio.Task[None]] = {}


def ensure_watching() -> None:
    """Start measuring the running loop's lag unless it is measured already."""
    loop = asyncio.get_running_loop()
    task = _watchers.get(loop)
    if task is None or task.done():
        _watchers[loop] = loop.create_task(_watch(), name="event-loop-lag")


async def _watch() -> None:
    loop = asyncio.get_running_loop()
    while True:
        asked = loop.time() + PERIOD_SECONDS
        await asyncio.sleep(PERIOD_SECONDS)
        LOOP_LAG.observe(max(0.0, loop.time() - asked))
