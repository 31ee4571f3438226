"""The Solve page's photos on real PostgreSQL (tests/photos/test_solo.py runs on SQLite): a
photo with no room is stored, read (the row locked while it is: ``FOR UPDATE OF`` the
photo alone, since PostgreSQL refuses to lock the empty side of the room's outer join),
read again inside corners, and deleted after its hour; a room's photo beside it keeps
telling its room.

The scenario runs in a subprocess (this file run as a script) with Django on a throwaway
PostgreSQL database, the reader replaced by the tests' fake, and prints what it found as
one JSON line.
"""

from __future__ import annotations

import json
import tempfile

import pytest

from tests.servers import run_script_on_postgres

pytestmark = pytest.mark.integration


def test_solve_page_photos_on_postgres(postgres_url: str) -> None:
    with tempfile.TemporaryDirectory() as media:
        found = run_script_on_postgres(
            postgres_url, __file__, {"BOGGLE_MEDIA_DIR": media, "BOGGLE_PRELOAD_READER": "0"}
        )
    assert found["uploaded"] == 202
    assert found["read"] == {"status": "read", "board": "cats qiex dogz went"}
    assert found["failed"] == {"status": "failed", "failure": {"code": "no_grid"}}
    assert found["corners"] == [202, "read", 4]
    assert found["room_photo"] == "read"
    assert found["deleted"] == 2 and found["left"] == 1


def scenario() -> dict:
    import django

    django.setup()

    from datetime import timedelta

    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.test import Client, override_settings
    from django.utils import timezone

    from games import rooms
    from photos import reading, retention
    from photos.models import BoardPhoto
    from tests.photos.helpers import FakeReader, png_bytes
    from vision.errors import GridNotFoundError

    fake = FakeReader()
    reading._reader = fake
    found: dict = {}
    with override_settings(PHOTOS_READ_IN_THREAD=False, ALLOWED_HOSTS=["testserver"]):
        client = Client()

        def send() -> dict:
            picture = SimpleUploadedFile("b.png", png_bytes(), "image/png")
            response = client.post("/api/solve/photos", {"photo": picture})
            found["uploaded"] = response.status_code
            return response.json()

        def detail(sent: dict) -> dict:
            response = client.get(
                f"/api/solve/photos/{sent['photo']['id']}",
                HTTP_AUTHORIZATION=f"Bearer {sent['key']}",
            )
            return response.json()["photo"]

        sent = send()
        photo = detail(sent)
        found["read"] = {"status": photo["status"], "board": photo["result"]["board"]}
        response = client.post(
            f"/api/solve/photos/{sent['photo']['id']}/corners",
            json.dumps({"corners": [[20, 20], [180, 20], [180, 180], [20, 180]], "size": 4}),
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {sent['key']}",
        )
        again = detail(sent)
        found["corners"] = [response.status_code, again["status"], again["size"]]

        fake.reading = GridNotFoundError("no grid found")
        photo = detail(send())
        found["failed"] = {"status": photo["status"], "failure": photo["failure"]}

        fake.reading = FakeReader().reading
        room, host = rooms.do_create_room("Ann")
        response = Client().post(
            f"/api/rooms/{room.code}/photos",
            {"photo": SimpleUploadedFile("b.png", png_bytes(), "image/png")},
            HTTP_AUTHORIZATION=f"Bearer {host.token}",
        )
        found["room_photo"] = BoardPhoto.objects.get(pk=response.json()["photo"]["id"]).status

        long_ago = timezone.now() - retention.SOLO_KEEP_FOR - timedelta(minutes=1)
        BoardPhoto.objects.update(created_at=long_ago)
        found["deleted"] = retention.delete_old_solo_photos()
        found["left"] = BoardPhoto.objects.count()
    return found


if __name__ == "__main__":
    print(json.dumps(scenario()))
