"""Deleting rooms nobody uses any more, and answers kept for retried requests."""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Exists, OuterRef
from django.utils import timezone

from games.models import (
    Connection,
    IdempotentResponse,
    Room,
)

# Rooms with nobody online and no activity for this long are deleted.
IDLE_ROOM_LIFETIME = timedelta(days=1)


def cleanup_idle_rooms() -> int:
    """Delete rooms with nobody online and no activity for a day; returns how many."""
    cutoff = timezone.now() - IDLE_ROOM_LIFETIME
    someone_online = Connection.objects.live().filter(
        player__room=OuterRef("pk"), player__left_at__isnull=True
    )
    idle = Room.objects.filter(last_active_at__lt=cutoff).exclude(Exists(someone_online))
    count = 0
    for room in idle:
        room.delete()
        count += 1
    # Retries come within minutes; a day-old answer is never asked for again.
    IdempotentResponse.objects.filter(created_at__lt=cutoff).delete()
    return count
