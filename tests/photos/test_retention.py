"""Photo files whose row is gone (photos.retention): deleted after the grace in the folders of
the database's rooms; empty folders of rooms that are gone removed; nothing else touched."""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils import timezone

from games import rooms
from games.models import Room
from photos import retention
from photos.models import BoardPhoto

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media(settings, tmp_path) -> Path:
    """Photos go to a temporary MEDIA_ROOT."""
    settings.MEDIA_ROOT = tmp_path / "media"
    return Path(settings.MEDIA_ROOT)


def later() -> datetime:
    return timezone.now() + retention.ORPHAN_GRACE + timedelta(minutes=1)


def photo_of(room: Room) -> BoardPhoto:
    photo = BoardPhoto(room=room)
    photo.image.save("board.jpg", ContentFile(b"\xff\xd8 a photo"), save=False)
    photo.save()
    return photo


def stray(media: Path, name: str, hours_ago: float = 0) -> Path:
    path = media / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\xff\xd8 an orphan")
    then = (timezone.now() - timedelta(hours=hours_ago)).timestamp()
    os.utime(path, (then, then))
    return path


def test_a_file_left_by_a_failed_upload_is_deleted_after_the_grace(media: Path):
    """The upload writes the file before its row commits: a rollback leaves the file, which
    goes after the grace; the room's photo with a row stays."""
    room, _ = rooms.do_create_room("Ann")
    kept = photo_of(room)
    with pytest.raises(RuntimeError), transaction.atomic():
        orphan = photo_of(room)
        raise RuntimeError("the database went away")
    assert not BoardPhoto.objects.filter(pk=orphan.pk).exists()
    orphan_file = media / orphan.image.name
    assert orphan_file.exists()

    assert retention.delete_orphaned_files() == retention.Deleted()
    assert orphan_file.exists()
    assert retention.delete_orphaned_files(now=later()) == retention.Deleted(files=1)
    assert not orphan_file.exists()
    assert default_storage.exists(kept.image.name)


def test_files_of_rooms_this_database_does_not_have_are_left_alone(media: Path):
    """The media directory may be shared with another database: a folder of a room unknown
    here keeps its files, however old; only once empty is it removed."""
    other = stray(media, "photos/zz99zz99/abc.jpg", hours_ago=100)
    assert retention.delete_orphaned_files(now=later()) == retention.Deleted()
    assert other.exists()
    other.unlink()
    folder = other.parent
    then = (timezone.now() - timedelta(hours=2)).timestamp()
    os.utime(folder, (then, then))
    assert retention.delete_orphaned_files() == retention.Deleted(folders=1)
    assert not folder.exists()


def test_the_empty_folder_of_a_deleted_room_is_removed(media: Path):
    """Deleting the room deletes its photos' files (with their rows); the folder goes after
    the grace, and a folder of a room that still exists stays even when empty."""
    gone, _ = rooms.do_create_room("Ann")
    here, _ = rooms.do_create_room("Bob")
    photo_of(gone)
    here_photo = photo_of(here)
    folder = media / "photos" / gone.code
    gone.delete()
    assert folder.is_dir()
    assert not any(folder.iterdir())
    here_photo.delete()
    assert retention.delete_orphaned_files() == retention.Deleted()
    assert retention.delete_orphaned_files(now=later()) == retention.Deleted(folders=1)
    assert not folder.exists()
    assert (media / "photos" / here.code).is_dir()


def test_no_photo_folder_yet_is_no_error():
    assert retention.delete_orphaned_files(now=later()) == retention.Deleted()
