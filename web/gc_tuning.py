"""Garbage-collector settings for the web processes, where a pause is a late verdict.

CPython's full collection walks every tracked object. A Daphne process holds some 120,000
of them from startup alone (Django, the apps, the URL and template machinery), objects that
live as long as the process: each full collection walked them all again, 50-130 ms during
which no frame was answered. Freezing them after startup moves them out of the collector's
sight; raising the youngest generation's threshold makes the small collections rarer
(objects a request makes mostly die before the next one).
"""

from __future__ import annotations

import gc

# Allocations (less deallocations) before a young collection; CPython's default is 700.
YOUNG_THRESHOLD = 20_000


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
