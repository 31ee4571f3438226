"""Deleting rooms nobody uses any more, answers kept for retried requests, files nothing
needs (dictionary versions and uploads, orphaned photo files), and what other apps keep
past its time (``games.signals.housekeeping``)."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.db.models import Exists, OuterRef
from django.utils import timezone

from dictionaries import retention as dictionary_retention
from games import signals
from games.models import Connection, Room
from web.models import IdempotentResponse

logger = logging.getLogger(__name__)

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


def delete_unused_files() -> dict[str, int]:
    """Delete the compiled dictionary versions and word lists nothing needs, past their
    retention period (``dictionaries.retention``), and what other apps delete on the
    ``games.signals.housekeeping`` hook (photo files whose row is gone, unused dice sets);
    returns how many of each. Hourly, after ``cleanup_idle_rooms``:
    beat's task in production, and every web process's deadline watcher (``games.deadlines``)."""
    dictionaries = dictionary_retention.delete_unused()
    counts = {
        "dictionary_versions": dictionaries.versions,
        "dictionary_version_files": dictionaries.version_files,
        "dictionary_discarded_files": dictionaries.discarded_files,
    }
    # Other apps' clean-ups (games.signals.housekeeping), which games does not import.
    for receiver, result in signals.housekeeping.send_robust(sender=Room):
        if isinstance(result, Exception):
            logger.error("housekeeping of %r failed: %s", receiver, result)
        elif isinstance(result, dict):
            counts.update(result)
    return counts
