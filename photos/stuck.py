"""Readings that will never finish: failed, so that the room hears it and can try again.

A photo stays "reading" when every attempt at it is gone: the worker was killed whole (its
task waits in Redis's unacknowledged set until the broker's visibility timeout, long after
the room gave up), or killed past the reading's hard time limit. A photo stays "uploaded"
when its task was lost before any worker took it (Redis lost its data). ``fail_stuck_readings``
(beat, every ``SWEEP_EVERY_SECONDS``; and hourly from every web process's housekeeping, for
the embedded default) fails them as an unreadable photo is failed: ``board.unreadable`` with
code ``failed``. A task delivered again later finds the photo failed and does nothing.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db.models import Q

from photos import reading
from photos.models import PENDING_FOR_AT_MOST, BoardPhoto

logger = logging.getLogger(__name__)

wall_clock: Callable[[], float] = time.time  # tests move their own
# How often beat runs the sweep (seconds): the room hears of a stuck reading at most this
# long after it is past its limit.
SWEEP_EVERY_SECONDS = 10.0
# A reading is stuck this long after its attempt started: past the hard time limit, by
# which the worker has killed the attempt, with time for the pool to notice (seconds).
READING_FOR_AT_MOST = timedelta(seconds=reading.READ_HARD_LIMIT_SECONDS + 15)
# Photos failed per sweep: more wait for the next one.
PER_SWEEP = 100


def fail_stuck_readings() -> int:
    """Fail the photos being read past ``READING_FOR_AT_MOST``, and those waiting for a
    reading past ``PENDING_FOR_AT_MOST`` (``photos.models``); returns how many."""
    now = datetime.fromtimestamp(wall_clock(), UTC)
    stuck = BoardPhoto.objects.filter(_stuck(now)).order_by("pk").values_list("pk", flat=True)
    failed = 0
    for photo_id in stuck[:PER_SWEEP]:
        # Checked again on the locked row: an attempt may have started or finished since.
        if reading.fail_reading(photo_id, lambda photo: _is_stuck(photo, now)):
            logger.warning("board photo %s: its reading was stuck; failed it", photo_id)
            failed += 1
    return failed


def _stuck(now: datetime) -> Q:
    reading_long = Q(
        status=BoardPhoto.Status.READING, reading_started_at__lt=now - READING_FOR_AT_MOST
    )
    # Waiting long for a reading; or being read since a release that did not note when.
    waiting_long = Q(queued_at__lt=now - PENDING_FOR_AT_MOST) & (
        Q(status=BoardPhoto.Status.UPLOADED)
        | Q(status=BoardPhoto.Status.READING, reading_started_at__isnull=True)
    )
    return reading_long | waiting_long


def _is_stuck(photo: BoardPhoto, now: datetime) -> bool:
    """``_stuck``, for one (locked) row."""
    if photo.status not in (BoardPhoto.Status.UPLOADED, BoardPhoto.Status.READING):
        return False
    started = photo.reading_started_at if photo.status == BoardPhoto.Status.READING else None
    if started is not None:
        return started < now - READING_FOR_AT_MOST
    return photo.queued_at < now - PENDING_FOR_AT_MOST


def on_housekeeping(sender: Any, **kwargs: Any) -> dict[str, int]:
    """``games.signals.housekeeping`` receiver: the sweep, hourly where there is no beat."""
    return {"stuck_photo_readings": fail_stuck_readings()}
