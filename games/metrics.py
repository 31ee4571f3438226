"""What the games app reports at ``/metrics`` (``web.metrics``): the words judged on this
process's sockets and how long their verdicts took, counted as they are sent; and the
site's rounds, read from the database at each scrape (``RoundsCollector``), since rounds
are started and ended by every web process and worker alike.

A verdict's time runs from its frame reaching this process (``received_at``, taken before
anything else in ``games.consumers``) to the verdict sent back on the socket: judging, the
write of an accepted word with its batch (``web.writers``) and any wait between them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

from django.db import DatabaseError
from django.db.models import Count, F, Q
from django.utils import timezone
from prometheus_client import Counter, Histogram
from prometheus_client.metrics_core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from games.models import Round
from web import metrics

logger = logging.getLogger(__name__)

VERDICT_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# A timed round is late when it ended (or has still not ended) this long after its deadline:
# the deadline watchers check every second, so on time is well under it.
LATE_END_SECONDS = 5.0
# Rounds whose deadline fell within this window are the ones ``ended late`` counts.
LATE_WINDOW_SECONDS = 900

WORDS_JUDGED = Counter(
    "boggle_words_judged",
    "Entries answered with a verdict on this process's sockets, by verdict (received: a"
    " room with hidden verdicts; round_over: too late).",
    ["verdict"],
)
VERDICT_SECONDS = Histogram(
    "boggle_verdict_seconds",
    "Seconds from an entry's frame reaching this process to its verdict sent back.",
    buckets=VERDICT_BUCKETS,
)


def answered(kind: str | None, reply: dict[str, Any] | None, received_at: float) -> None:
    """Count a socket's answer to a message (``games.consumers``): a word's verdict, or a
    ``server_error``."""
    if reply is None:
        return
    if reply.get("code") == "server_error":
        metrics.socket_server_error()
    elif kind == "submit" and reply.get("type") == "verdict":
        WORDS_JUDGED.labels(str(reply.get("verdict"))).inc()
        VERDICT_SECONDS.observe(max(0.0, time.time() - received_at))


class RoundsCollector(Collector):
    """The site's rounds, from the database at each scrape: the same figures from every web
    process (aggregate them with ``max``)."""

    def describe(self) -> Iterator[Metric]:
        yield from self._families()

    def collect(self) -> Iterator[Metric]:
        running, overdue, ended_late = self._families()
        now = timezone.now()
        late = timedelta(seconds=LATE_END_SECONDS)
        try:
            counts = Round.objects.filter(status=Round.Status.RUNNING).aggregate(
                running=Count("id"),
                # Paper rounds end when the host scores the lists, not at the deadline.
                overdue=Count("id", filter=Q(ends_at__lt=now - late, paper=False)),
            )
            late_ends = Round.objects.filter(
                status=Round.Status.ENDED,
                paper=False,
                ends_at__gte=now - timedelta(seconds=LATE_WINDOW_SECONDS),
                ended_at__gt=F("ends_at") + late,
            ).count()
        except DatabaseError:  # the database is down: /readyz says so; report nothing
            logger.debug("metrics: rounds not read", exc_info=True)
            return
        running.add_metric([], counts["running"])
        overdue.add_metric([], counts["overdue"])
        ended_late.add_metric([], late_ends)
        yield from (running, overdue, ended_late)

    @staticmethod
    def _families() -> tuple[GaugeMetricFamily, GaugeMetricFamily, GaugeMetricFamily]:
        return (
            GaugeMetricFamily("boggle_rounds_running", "Rounds running on the site (database)."),
            GaugeMetricFamily(
                "boggle_rounds_overdue",
                f"Timed rounds still running {LATE_END_SECONDS:g} s or more after their deadline.",
            ),
            GaugeMetricFamily(
                "boggle_rounds_ended_late",
                f"Timed rounds whose deadline fell in the last {LATE_WINDOW_SECONDS} s that"
                f" ended more than {LATE_END_SECONDS:g} s after it.",
            ),
        )
