"""Celery tasks of the photos app: thin and idempotent, like ``games.tasks``.

A reading survives the death of the process reading it. Its message is acknowledged only
once the reading is done (``acks_late``); when the pool process dies mid-read (killed, out
of memory) the worker puts the message back in the queue at once
(``reject_on_worker_lost``) and another process reads the photo again, at most
``reading.MAX_READ_ATTEMPTS`` times. When the whole worker dies, the message comes back only
after the broker's visibility timeout (boggle_site.settings): ``fail_stuck_photo_readings``
fails the photo long before, so that the room hears it and can try again.
"""

from __future__ import annotations

from celery import shared_task

from photos import reading, stuck


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=reading.READ_SOFT_LIMIT_SECONDS,
    time_limit=reading.READ_HARD_LIMIT_SECONDS,
)
def read_board_photo(photo_id: int) -> bool:
    """Read the board in a photo and tell the room; False if gone, already done, or being
    read by another process."""
    return reading.do_read_photo(photo_id)


@shared_task(ignore_result=True)
def fail_stuck_photo_readings() -> int:
    """Safety net run by beat: fail the readings that will never finish (``photos.stuck``)."""
    return stuck.fail_stuck_readings()
