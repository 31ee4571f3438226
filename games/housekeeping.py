"""Deleting rooms nobody uses any more."""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Exists, OuterRef
from django.utils import timezone

from games.models import (
    Player,
    Room,
)

# Rooms with nobody online and no activity for this long are deleted.
IDLE_ROOM_LIFETIME = timedelta(days=1)


def cleanup_idle_rooms() -> int:
    """Delete rooms with nobody online and no activity for a day; returns how many."""
    cutoff = timezone.now() - IDLE_ROOM_LIFETIME
    someone_online = Player.objects.filter(
        room=OuterRef("pk"), connections__gt=0, left_at__isnull=True
    )
    idle = Room.objects.filter(last_active_at__lt=cutoff).exclude(Exists(someone_online))
    count = 0
    for room in idle:
        room.delete()
        count += 1
    return count
