"""Deleting board-photo files whose row is gone, and the Solve page's photos once used.

A photo's file goes with its row (``photos.models.delete_photo_file``: a room keeps its 3
latest photos, and idle rooms are deleted with theirs). A file can still outlive its row: the
upload writes the file before the row's transaction commits, so a failed insert or commit (a
database restart) or a process killed in between leaves the file behind; and the folder of a
deleted room (``photos/<room code>/``) stays, empty. ``delete_orphaned_files`` (hourly:
``games.housekeeping.delete_unused_files``) deletes such files, and such folders, once
untouched for ``ORPHAN_GRACE``, far longer than an upload takes.

Files are deleted only in the folders of this database's rooms: the media directory may be
shared with other databases (the tests' use var/media), whose photos this one does not know.
A folder of a room that is gone is only removed when empty, which loses nothing.

The Solve page's photos (no room, ``photos/_solve/``) are kept ``SOLO_KEEP_FOR`` after their
upload, time to read them and place corners by hand, and deleted at the next hourly pass.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from games.models import Room
from photos.models import PHOTO_FOLDER, SOLO_FOLDER, BoardPhoto

logger = logging.getLogger(__name__)

# A photo file without a row, or an empty folder of a room that is gone, is deleted once
# untouched for this long (an upload writes its file and commits its row within seconds).
ORPHAN_GRACE = timedelta(hours=1)
# A Solve page photo is deleted, row and file, this long after its upload.
SOLO_KEEP_FOR = timedelta(hours=1)


@dataclass(frozen=True)
class Deleted:
    """What one ``delete_orphaned_files`` pass deleted."""

    files: int = 0
    folders: int = 0


def delete_orphaned_files(now: datetime | None = None) -> Deleted:
    """Delete the files in rooms' photo folders that no ``BoardPhoto`` names, and the empty
    folders of rooms that no longer exist, untouched since ``ORPHAN_GRACE`` before ``now``
    (default: now); returns the counts."""
    storage = BoardPhoto._meta.get_field("image").storage
    cutoff = (now or timezone.now()) - ORPHAN_GRACE
    try:
        codes, _ = storage.listdir(PHOTO_FOLDER)
    except FileNotFoundError:
        return Deleted()
    # Read before listing the files: a photo stored meanwhile has a new file, which the
    # grace keeps.
    rooms = set(Room.objects.filter(code__in=codes).values_list("code", flat=True))
    named = set(BoardPhoto.objects.filter(room__code__in=rooms).values_list("image", flat=True))
    named |= set(BoardPhoto.objects.filter(room__isnull=True).values_list("image", flat=True))
    rooms.add(SOLO_FOLDER)  # the Solve page's folder is never a gone room's
    files = folders = 0
    for code in codes:
        folder = f"{PHOTO_FOLDER}/{code}"
        try:
            _, names = storage.listdir(folder)
        except FileNotFoundError:
            continue
        if code in rooms:
            for name in names:
                path = f"{folder}/{name}"
                if path not in named and _untouched_since(storage, path, cutoff):
                    storage.delete(path)  # a file already gone is no error
                    files += 1
        elif not names and _untouched_since(storage, folder, cutoff):
            try:
                storage.delete(folder)  # empty: FileSystemStorage removes the folder
            except OSError:  # a file arrived meanwhile
                continue
            folders += 1
    if files or folders:
        logger.info("deleted %d orphaned photo files and %d empty room folders", files, folders)
    return Deleted(files=files, folders=folders)


def _untouched_since(storage: Any, name: str, cutoff: datetime) -> bool:
    try:
        return bool(storage.get_modified_time(name) < cutoff)
    except FileNotFoundError:
        return False


def delete_old_solo_photos(now: datetime | None = None) -> int:
    """Delete the Solve page's photos uploaded over ``SOLO_KEEP_FOR`` before ``now``, with
    their files; returns how many."""
    cutoff = (now or timezone.now()) - SOLO_KEEP_FOR
    old = BoardPhoto.objects.filter(room__isnull=True, created_at__lt=cutoff)
    count, _ = old.delete()  # row by row, so that post_delete removes each file
    return count


def on_housekeeping(sender: Any, **kwargs: Any) -> dict[str, int]:
    """games.signals.housekeeping receiver: the hourly deletion of the Solve page's old
    photos and of orphaned photo files."""
    solo = delete_old_solo_photos()
    deleted = delete_orphaned_files()
    return {"solo_photos": solo, "photo_files": deleted.files, "photo_folders": deleted.folders}
