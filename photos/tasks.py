"""Celery tasks of the photos app: thin and idempotent, like ``games.tasks``."""

from __future__ import annotations

from celery import shared_task

from photos import reading


@shared_task(acks_late=True)
def read_board_photo(photo_id: int) -> bool:
    """Read the board in a photo and tell the room; False if gone or already done."""
    return reading.do_read_photo(photo_id)
