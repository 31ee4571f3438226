"""The event loop's lag (web.loop_lag): a loop held busy shows up in the histogram that
/metrics serves, as late as it was held."""

from __future__ import annotations

import asyncio
import time

from web import loop_lag


def observations_over(seconds: float) -> float:
    """Wake-ups recorded so far that came more than ``seconds`` late."""
    total = over = 0.0
    for metric in loop_lag.LOOP_LAG.collect():
        for sample in metric.samples:
            if sample.name.endswith("_count"):
                total = sample.value
            if sample.name.endswith("_bucket") and float(sample.labels["le"]) == seconds:
                over = sample.value
    return total - over


async def test_a_loop_held_busy_is_measured_as_late() -> None:
    before = observations_over(0.2)
    loop_lag.ensure_watching()
    await asyncio.sleep(0)  # the watcher starts its first sleep
    time.sleep(0.5)  # the loop held: the watcher wakes at least 0.4 s late
    await asyncio.sleep(loop_lag.PERIOD_SECONDS * 3)
    assert observations_over(0.2) >= before + 1
