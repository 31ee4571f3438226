"""One attack measured (``Bench.run``): the server's RSS before, at the peak and after, the
honest players' verdict p95 against the idle one, HTTP statuses and the server log's
errors, gathered in an ``Outcome``."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from bench.attacks.honest import HonestTable
from bench.attacks.outcome import Outcome
from bench.attacks.server_watch import RssSampler, ServerLog
from bench.crowd.figures import log, percentile

if TYPE_CHECKING:
    from bench.attacks.attacker import Attacker


AFTER_SECONDS = 10.0
MIN_WINDOW_SECONDS = 5.0


# ------------------------------------------------------------------------- measurement


class Bench:
    def __init__(
        self, base: str, attacker: Attacker, sampler: RssSampler, server_log: ServerLog | None
    ) -> None:
        self.base = base
        self.attacker = attacker
        self.sampler = sampler
        self.server_log = server_log
        self.table = HonestTable(base)
        self.idle_p95: float | None = None
        self.idle_n = 0

    async def measure_idle(self, seconds: float) -> None:
        start = time.monotonic()
        await asyncio.sleep(seconds)
        values = self.table.latencies(start, time.monotonic())
        self.idle_p95, self.idle_n = percentile(values, 95), len(values)
        log(f"idle: honest verdict p95 {self.idle_p95 or 0:.1f} ms (n={self.idle_n})")

    async def run(self, name: str, attack: Callable[[Outcome], Awaitable[None]]) -> Outcome:
        outcome = Outcome(name)
        log(f"attack {name} ...")
        logged_before = self.server_log.counts() if self.server_log else Counter()
        log_offset = len(self.server_log.text()) if self.server_log else 0
        outcome.rss_before = self.sampler.read()
        start = time.monotonic()
        try:
            await attack(outcome)
        except Exception as error:
            outcome.failed = f"{type(error).__name__}: {error}"[:200]
            log(f"  {name}: the attack itself failed: {outcome.failed}")
        end = time.monotonic()
        outcome.seconds = end - start
        await asyncio.sleep(AFTER_SECONDS)
        outcome.rss_after = self.sampler.read()
        outcome.rss_peak = self.sampler.peak(start)
        # The honest words sent during the attack (at least its first 5 s, for the quick
        # ones), and those of them still unanswered 10 s after it.
        until = max(end, start + MIN_WINDOW_SECONDS)
        values = self.table.latencies(start, until)
        outcome.honest_p95, outcome.honest_n = percentile(values, 95), len(values)
        outcome.honest_unanswered = self.table.unanswered(start, until)
        if self.server_log:
            outcome.log_errors = self.server_log.counts() - logged_before
            for line, count in self.server_log.exceptions(log_offset).most_common(4):
                outcome.note(f"server log: {count} x {line}")
        return outcome
