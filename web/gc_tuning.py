"""Garbage-collector settings for the web processes, where a pause is a late verdict.

CPython's full collection walks every tracked object. A Daphne process holds some 120,000
of them from startup alone (Django, the apps, the URL and template machinery), objects that
live as long as the process: each full collection walked them all again, 50-130 ms during
which no frame was answered. Freezing them after startup moves them out of the collector's
sight; raising the youngest generation's threshold makes the small collections rarer
(objects a request makes mostly die before the next one). The collector also waits out
the burst of rooms ending together (``collection_paused``, ``games.rounds.end_rounds``),
and the word path leaves no cycles behind (``solver.judge.find_word_path``): at 1,000
players a self-calling closure there left 5,000 cyclic objects a second.

The load client (``bench/load.py``, one process playing a thousand phones) tunes its own
collector the same way: its pauses counted in the latencies it measured.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

# Allocations (less deallocations) before a young collection; CPython's default is 700.
YOUNG_THRESHOLD = 20_000

_pause_lock = threading.Lock()
_paused = 0  # blocks running in ``collection_paused``
_was_enabled = True  # whether the collector ran when the first of them began


def tune_for_latency() -> None:
    """Call once, after the application is set up and before it serves."""
    gc.collect()  # what startup left behind goes now, not frozen
    gc.freeze()
    _young, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)


def freeze_long_lived() -> None:
    """Move what exists now out of the collector's sight again, after a late start-up step
    (the board reader: TensorFlow's many objects live as long as the process). Without a
    collection first, so that serving players does not pause."""
    gc.freeze()


@contextlib.contextmanager
def collection_paused() -> Iterator[None]:
    """No cyclic collection while the block runs (in any thread), for a burst of
    allocation whose objects die by reference counting when it is done: ending many
    rounds at once builds a hundred thousand result dicts, which set off young and
    middle collections that walked them all while they were alive, and at times a full
    one (hundreds of milliseconds), all while verdicts waited. Blocks in several threads
    nest; the collector runs again when the last one ends, as it was before the first."""
    global _paused, _was_enabled
    with _pause_lock:
        if _paused == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _paused += 1
    try:
        yield
    finally:
        with _pause_lock:
            _paused -= 1
            if _paused == 0 and _was_enabled:
                gc.enable()
