"""One reading of a photo at a time, on real PostgreSQL (issue 49): a task delivered while
another process reads the photo does nothing; once that process is gone (its connection
closed, as when it is killed) the photo is read.

The scenario runs in a subprocess (this file run as a script) with Django on a throwaway
PostgreSQL database and the tests' fake reader, and prints what it found as one JSON line.
"""

from __future__ import annotations

import json
import tempfile

import pytest

from tests.servers import run_script_on_postgres

pytestmark = pytest.mark.integration


def test_a_photo_is_read_by_one_process_at_a_time(postgres_url: str) -> None:
    with tempfile.TemporaryDirectory() as media:
        found = run_script_on_postgres(
            postgres_url, __file__, {"BOGGLE_MEDIA_DIR": media, "BOGGLE_PRELOAD_READER": "0"}
        )
    assert found["while_another_reads"] == [False, "uploaded", 0]
    assert found["once_it_died"] == [True, "read", 1]
    assert found["lock_released"] is True


def scenario() -> dict:
    import os

    import django

    django.setup()

    import psycopg
    from django.core.files.base import ContentFile

    from games import rooms
    from photos import reading
    from photos.models import BoardPhoto
    from tests.photos.helpers import FakeReader, png_bytes

    fake = FakeReader()
    reading._reader = fake
    room, _ = rooms.do_create_room("Ann")
    photo = BoardPhoto(room=room)
    photo.image.save("board.png", ContentFile(png_bytes()), save=False)
    photo.save()
    key = (reading.READING_LOCK_SPACE, photo.pk)

    def outcome(done: bool) -> list:
        return [done, BoardPhoto.objects.get(pk=photo.pk).status, len(fake.calls)]

    found: dict = {}
    # Another process reading the photo: it holds the photo's lock on its connection.
    other = psycopg.connect(os.environ["DATABASE_URL"], autocommit=True)
    other.execute("SELECT pg_advisory_lock(%s, %s)", key)
    found["while_another_reads"] = outcome(reading.do_read_photo(photo.pk))
    other.close()  # killed: PostgreSQL ends its session, and the lock with it
    found["once_it_died"] = outcome(reading.do_read_photo(photo.pk))
    with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as probe:
        row = probe.execute("SELECT pg_try_advisory_lock(%s, %s)", key).fetchone()
        found["lock_released"] = bool(row and row[0])
    return found


if __name__ == "__main__":
    print(json.dumps(scenario()))
