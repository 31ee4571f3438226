"""What the photos app reports at ``/metrics`` (``web.metrics``): the photos read and how long
each took, and the photos waiting to be read.

Photos are read in Celery's worker processes (in the web process in the embedded default),
and a worker serves no ``/metrics``: each reading's outcome and time are added to a tally
every web process reports (``web.shared_tally``: one Redis hash in production, one HINCRBY
round trip per photo). Simpler than prometheus_client's multiprocess mode, which needs a
directory shared by every process, wiped at each start, and would give each Daphne's
scrape every other process's counts too; the photo rows hold no time of the reading's end
to read back at scrape time. The tally is the site's: every web process reports the same
totals (aggregate them with ``max``).

A reading's time runs from its queueing (``queued_at``: the upload, or corners placed by
hand) to its end, so a wait for a busy worker counts: it is what the room waited.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

from django.db import DatabaseError
from django.db.models import Count, Min
from django.utils import timezone
from prometheus_client.metrics_core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from photos.models import BoardPhoto
from web.shared_tally import SharedTally, histogram_buckets, histogram_fields

logger = logging.getLogger(__name__)

READINGS = SharedTally("photos")
READ_SECONDS_BUCKETS = (1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0, 600.0)
# Photos queued longer ago than this are not counted as waiting: lost (photos.api drops
# them from an address's count after five minutes) and deleted with their room.
WAITING_WINDOW = timedelta(hours=1)
OUTCOME = "outcome:"


def reading_finished(photo: BoardPhoto) -> None:
    """Count a reading that ended (``photos.reading``, the row just saved): read, or the
    ``board.unreadable`` code it failed with."""
    failure: dict[str, Any] = photo.failure or {}
    read = photo.status == BoardPhoto.Status.READ
    outcome = "read" if read else str(failure.get("code") or "unreadable")
    seconds = max(0.0, (timezone.now() - photo.queued_at).total_seconds())
    READINGS.add(
        {OUTCOME + outcome: 1, **histogram_fields("seconds", READ_SECONDS_BUCKETS, seconds)}
    )


class PhotosCollector(Collector):
    def describe(self) -> Iterator[Metric]:
        yield from self._read_families()
        yield from self._waiting_families()

    def collect(self) -> Iterator[Metric]:
        yield from self._read()
        yield from self._waiting()

    def _read(self) -> Iterator[Metric]:
        totals = READINGS.totals()
        if totals is None:  # Redis does not answer (web.limits_redis logs it)
            return
        read, seconds = self._read_families()
        for field, count in sorted(totals.items()):
            if field.startswith(OUTCOME):
                read.add_metric([field.removeprefix(OUTCOME)], count)
        buckets, total = histogram_buckets(totals, "seconds", READ_SECONDS_BUCKETS)
        seconds.add_metric([], buckets, total)
        yield from (read, seconds)

    def _waiting(self) -> Iterator[Metric]:
        now = timezone.now()
        try:
            found = BoardPhoto.objects.filter(
                status__in=(BoardPhoto.Status.UPLOADED, BoardPhoto.Status.READING),
                queued_at__gte=now - WAITING_WINDOW,
            ).aggregate(count=Count("id"), oldest=Min("queued_at"))
        except DatabaseError:  # the database is down: /readyz says so; report nothing
            logger.debug("metrics: photos waiting not read", exc_info=True)
            return
        waiting, oldest = self._waiting_families()
        waiting.add_metric([], found["count"])
        since = found["oldest"]
        oldest.add_metric([], (now - since).total_seconds() if since is not None else 0.0)
        yield from (waiting, oldest)

    @staticmethod
    def _read_families() -> tuple[CounterMetricFamily, HistogramMetricFamily]:
        return (
            CounterMetricFamily(
                "boggle_photos_read",
                "Photo readings ended on the site, by outcome (read, or the board.unreadable code).",
                labels=["outcome"],
            ),
            HistogramMetricFamily(
                "boggle_photo_read_seconds",
                "Seconds from a photo's reading being queued to its end, on the site.",
            ),
        )

    @staticmethod
    def _waiting_families() -> tuple[GaugeMetricFamily, GaugeMetricFamily]:
        return (
            GaugeMetricFamily(
                "boggle_photos_waiting",
                "Photos queued in the last hour and not read yet (uploaded or reading).",
            ),
            GaugeMetricFamily(
                "boggle_photo_oldest_waiting_seconds",
                "How long the oldest of those photos has waited (0: none waits).",
            ),
        )
