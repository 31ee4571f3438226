"""The hourly deletion of files nothing needs (games.housekeeping.delete_unused_files) is
wired like the idle-room clean-up: a beat entry in production, and every web process's
deadline watcher (which is all the embedded default has)."""

from __future__ import annotations

import asyncio
import contextlib
import os
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.files.base import ContentFile
from django.utils import timezone

from dictionaries import files, services
from dictionaries.models import DictionaryVersion
from games import deadlines, housekeeping, rooms, rounds, tasks
from photos.models import BoardPhoto
from tests.dictionaries.helpers import compile_now, current_version, make_dictionary


def test_beat_runs_the_task_hourly(settings):
    entry = settings.CELERY_BEAT_SCHEDULE["delete-unused-files"]
    assert entry["task"] == tasks.delete_unused_files.name == "games.tasks.delete_unused_files"
    assert entry["schedule"] == deadlines.CLEANUP_EVERY == 3600.0


@pytest.mark.django_db
def test_the_task_deletes_old_versions_and_orphaned_photo_files(settings, tmp_path: Path):
    """Through the task (run eagerly, as beat's would run on a worker): an old version that
    is not current, and a photo file without its row, go; what is in use stays."""
    settings.BOGGLE_DICTIONARY_DIR = tmp_path / "dictionaries"
    settings.MEDIA_ROOT = tmp_path / "media"
    tiny = make_dictionary("tiny")
    old = current_version(tiny)
    services.do_edit_words(tiny, ["gnu"], "add", recompile=False)
    compile_now(tiny)
    DictionaryVersion.objects.filter(pk=old.pk).update(
        created_at=timezone.now() - timedelta(days=31)
    )
    room, _ = rooms.do_create_room("Ann")
    photo = BoardPhoto(room=room)
    photo.image.save("board.jpg", ContentFile(b"photo"), save=False)
    orphan = Path(photo.image.path)  # never saved as a row
    two_hours_ago = (timezone.now() - timedelta(hours=2)).timestamp()
    os.utime(orphan, (two_hours_ago, two_hours_ago))

    counts = tasks.delete_unused_files.apply().get()
    assert counts == {
        "dictionary_versions": 1,
        "dictionary_version_files": 1,
        "dictionary_discarded_files": 0,
        "solo_photos": 0,
        "photo_files": 1,
        "photo_folders": 0,
        "stuck_photo_readings": 0,  # photos.stuck, hourly where no beat runs it
        "dice_sets": 0,  # dicesets' clean-up, through games.signals.housekeeping
        "quickplay_tickets": 0,  # quickplay's, likewise
    }
    assert not files.version_path(old).exists()
    assert files.version_path(current_version(tiny)).exists()
    assert not orphan.exists()


async def test_the_deadline_watcher_deletes_unused_files_first_then_hourly(monkeypatch) -> None:
    """On its first pass (a process that just started cleans up too), after the idle rooms,
    and not again within the hour."""
    passes = 0
    done: list[str] = []

    async def no_overdue_rounds() -> None:
        nonlocal passes
        passes += 1

    monkeypatch.setattr(deadlines, "POLL_SECONDS", 0.01)
    monkeypatch.setattr(deadlines, "_end_overdue_rounds", no_overdue_rounds)
    monkeypatch.setattr(rounds, "prepare_stalled_rounds", lambda: 0)
    monkeypatch.setattr(housekeeping, "cleanup_idle_rooms", lambda: done.append("rooms"))
    monkeypatch.setattr(housekeeping, "delete_unused_files", lambda: done.append("files"))
    watcher = asyncio.create_task(deadlines._watch())
    try:
        for _ in range(1000):  # until 5 passes; a bound, not a measure
            if passes >= 5:
                break
            await asyncio.sleep(0.01)
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
    assert passes >= 5
    assert done == ["rooms", "files"]
