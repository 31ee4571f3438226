"""The web processes' event-loop lag (``web.loop_lag``), read from each one's /metrics.

Each snapshot (``counters``) is the histogram's cumulative bucket counts per process, as
``lag.<process>|<le>``; a window's delta (``bench.crowd.costs``) holds the wake-ups in that
window, from which ``summary`` gives p50, p99 and the largest bucket reached, per process.
"""

from __future__ import annotations

import math
from typing import Any

from bench.crowd.scrape import metrics_text

METRIC = "boggle_event_loop_lag_seconds_bucket"


def counters(urls: list[str]) -> dict[str, float]:
    """``lag.<process>|<le>`` -> wake-ups so far at most ``le`` seconds late."""
    found: dict[str, float] = {}
    for url in urls:
        name = f"daphne-{url.rsplit(':', 1)[-1]}"
        text = metrics_text(url)
        if text is None:
            continue
        for line in text.splitlines():
            if line.startswith(METRIC + "{"):
                labels, _, value = line.rpartition(" ")
                bound = labels.split('le="', 1)[1].split('"', 1)[0]
                found[f"lag.{name}|{bound}"] = float(value)
    return found


def summary(window: dict[str, float]) -> dict[str, dict[str, Any]]:
    """Per process: wake-ups in the window and the bucket bounds (ms) holding its p50 and
    p99 and its slowest one (an upper bound each: a histogram knows no more)."""
    by_process: dict[str, list[tuple[float, float]]] = {}
    for key, count in window.items():
        if not key.startswith("lag."):
            continue
        process, _, bound = key.removeprefix("lag.").partition("|")
        by_process.setdefault(process, []).append(
            (math.inf if bound == "+Inf" else float(bound), count)
        )
    figures: dict[str, dict[str, Any]] = {}
    for process, buckets in sorted(by_process.items()):
        buckets.sort()
        total = buckets[-1][1] if buckets else 0.0
        if total <= 0:
            continue

        def bound_of(
            share: float, buckets: list[tuple[float, float]] = buckets, total: float = total
        ) -> str:
            for bound, count in buckets:
                if count >= share * total:
                    return "over 5 s" if bound == math.inf else f"<= {bound * 1000:g} ms"
            return "?"

        figures[process] = {
            "wakeups": int(total),
            "p50": bound_of(0.5),
            "p99": bound_of(0.99),
            "max": bound_of(1.0),
        }
    return figures
