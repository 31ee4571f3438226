"""Celery tasks of the dice sets: thin and idempotent, like ``photos.tasks``."""

from __future__ import annotations

from celery import shared_task

from dicesets import services


@shared_task(acks_late=True)
def remember_confirmed_board(photo_id: int, faces: list[list[str]]) -> int:
    """Keep the dice of a confirmed photo in its room's set; 0 if nothing was kept."""
    return services.remember_photo(photo_id, faces)
