"""Counts that any process of the site adds to and every web process reports: metrics of work
done where no ``/metrics`` is served (photos are read in Celery's worker processes, whose
own counters no scrape would ever see).

In production (``REDIS_URL``) a tally is one Redis hash under ``BOGGLE_REDIS_PREFIX``
(``<prefix>boggle:metrics:<name>``), each field a running total that HINCRBY adds to in
one round trip; without Redis (the embedded default, where the web process does all the
work) the process's memory. Totals are counters: they only grow, and a Redis that lost its
data starts them again from 0, which Prometheus reads as a counter reset. Counting is best
effort: while Redis does not answer, an addition is dropped (``web.limits_redis`` logs the
outage), never an error for the work it counts.

A histogram is kept as fields too (``histogram_fields``, ``histogram_buckets``): one count
per bucket (not cumulative, so one HINCRBY each), its sum and its count.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Mapping, Sequence

from web import limits_redis


class SharedTally:
    def __init__(self, name: str) -> None:
        self.name = name
        self._lock = threading.Lock()
        self._here: Counter[str] = Counter()

    def key(self) -> str:
        return limits_redis.key("metrics", self.name)

    def add(self, amounts: Mapping[str, float]) -> None:
        """Add each amount to its field's total."""
        if not limits_redis.configured():
            with self._lock:
                self._here.update(amounts)
            return
        try:
            with limits_redis.connection() as client:
                pipe = client.pipeline(transaction=False)
                for field, amount in amounts.items():
                    if float(amount).is_integer():
                        pipe.hincrby(self.key(), field, int(amount))
                    else:
                        pipe.hincrbyfloat(self.key(), field, amount)
                pipe.execute()
        except limits_redis.Unavailable:
            pass  # dropped: a count is not worth failing or delaying the work it counts

    def totals(self) -> dict[str, float] | None:
        """Every field's total; None while Redis does not answer."""
        if not limits_redis.configured():
            with self._lock:
                return dict(self._here)
        try:
            with limits_redis.connection() as client:
                stored = client.hgetall(self.key())
        except limits_redis.Unavailable:
            return None
        return {field.decode(): float(value) for field, value in stored.items()}

    def clear_here(self) -> None:
        """Forget the totals kept in this process (tests)."""
        with self._lock:
            self._here.clear()


def histogram_fields(name: str, bounds: Sequence[float], value: float) -> dict[str, float]:
    """The fields one observation adds: its bucket (the first bound at least ``value``, or
    ``+Inf``), the sum and the count."""
    bucket = next((bound for bound in bounds if value <= bound), math.inf)
    return {f"{name}:le:{_bound(bucket)}": 1, f"{name}:sum": value, f"{name}:count": 1}


def histogram_buckets(
    totals: Mapping[str, float], name: str, bounds: Sequence[float]
) -> tuple[list[tuple[str, float]], float]:
    """Prometheus's cumulative buckets (``le`` as text, ``+Inf`` last) and the sum."""
    buckets: list[tuple[str, float]] = []
    running = 0.0
    for bound in [*bounds, math.inf]:
        running += totals.get(f"{name}:le:{_bound(bound)}", 0.0)
        buckets.append((_bound(bound), running))
    return buckets, totals.get(f"{name}:sum", 0.0)


def _bound(bound: float) -> str:
    return "+Inf" if math.isinf(bound) else repr(float(bound))
