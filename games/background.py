"""The work each web (ASGI) process does on its own clock, in its event loop.

- The deadline watcher (``games.deadlines``) ends rounds on time.
- The flusher: every ``live.REFUSED_FLUSH_SECONDS`` it writes the refused entries waiting
  in memory (``games.live``; often enough that they are stored before a round's grace after
  its deadline ends, whichever process ends it) and sends the live counts of a share of
  the rooms whose counts changed (``games.live_counts``: each room about once every
  ``live_counts.PUBLISH_SECONDS``, the rooms spread over that period); once a period it
  also follows presence in rounds waiting for their players (``games.ready``), lets go
  of rounds idle for long and, on SQLite, checkpoints the write-ahead log (off the
  players' writes: ``web.sqlite``).
- The event loop's lag is measured for ``/metrics`` (``web.loop_lag``).
- The presence beat (``games.presence``): every ``presence.BEAT_SECONDS`` it renews the
  rows of this process's sockets and sweeps those of dead processes; a socket closing wakes
  it early to record the close.

All start with the first request or websocket the process serves.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from games import deadlines, events, live, live_counts, presence, ready
from web import loop_lag
from web.sqlite.base import checkpoint_wal
from web.threads import in_thread

logger = logging.getLogger(__name__)

_tasks: dict[asyncio.AbstractEventLoop, list[asyncio.Task]] = {}


def ensure_started() -> None:
    """Start this loop's deadline watcher, flusher and presence beat unless they run."""
    deadlines.ensure_watcher()
    loop_lag.ensure_watching()
    loop = asyncio.get_running_loop()
    tasks = _tasks.get(loop)
    if tasks is None or any(task.done() for task in tasks):
        for task in tasks or []:
            task.cancel()
        _tasks[loop] = [
            loop.create_task(_flush_forever(), name="live-round-flusher"),
            loop.create_task(_beat_forever(), name="presence-beat"),
        ]


async def stop() -> None:
    """Stop this loop's background work (a draining Daphne, and tests)."""
    await deadlines.stop_watcher()
    presence._wakeups.pop(asyncio.get_running_loop(), None)
    for task in _tasks.pop(asyncio.get_running_loop(), []):
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def flush_once(chores: bool = True) -> None:
    """One pass of the flusher (worker thread): the refused entries, this pass's share of
    the changed counts and, with ``chores``, the once-a-second chores. Refused entries that
    could not be written stay queued for the next pass (``live.flush_refused``); the rest
    is done all the same."""
    try:
        live.flush_refused()
    finally:
        try:
            live_counts.publish_changed(spread=True)
        finally:
            if chores:
                ready.recheck_waiting()
                live.drop_idle()
                checkpoint_wal()


async def _flush_forever() -> None:
    loop = asyncio.get_running_loop()
    chores_at = loop.time()
    while True:
        await asyncio.sleep(live.REFUSED_FLUSH_SECONDS)
        chores = loop.time() - chores_at >= live_counts.PUBLISH_SECONDS
        if chores:
            chores_at = loop.time()
        try:
            await in_thread(flush_once)(chores)
        except asyncio.CancelledError:
            raise
        except Exception:  # a database hiccup must not stop the counts for good
            # Nothing is lost: unwritten entries wait in the queue for the next pass.
            logger.exception("live round flusher: pass failed; retrying")


def beat_once(sweep: bool = True) -> list[tuple[str, dict]]:
    """One presence beat (worker thread): renew this process's sockets, record the closed
    ones, and (``sweep``) sweep those of dead processes; returns the events to send."""
    offline = presence.beat()
    if sweep:
        presence.sweep()
    return offline


async def _beat_forever() -> None:
    loop = asyncio.get_running_loop()
    swept_at = loop.time() - presence.BEAT_SECONDS
    while True:
        try:
            # Woken early by a closing socket: record it; the sweep keeps its own pace.
            sweep = loop.time() - swept_at >= presence.BEAT_SECONDS
            if sweep:
                swept_at = loop.time()
            for code, event in await in_thread(beat_once)(sweep):
                await events.send_room_event(code, event)
        except asyncio.CancelledError:
            raise
        except Exception:  # the database is back soon; the next beat renews what this missed
            logger.exception("presence beat: failed; retrying")
        await presence.wait_for_beat(presence.BEAT_SECONDS)
