"""Corners by hand on real PostgreSQL (tests/photos/test_corners.py runs on SQLite): a corner
given as an integer too large for a number (400 digits) is refused at the edge with 400
``invalid``, for a room's photo and the Solve page's, never a 500 (issue 48, defect 11).

The scenario runs in a subprocess (this file run as a script) with Django on a throwaway
PostgreSQL database and the tests' fake reader, and prints what it found as one JSON line.
"""

from __future__ import annotations

import json
import tempfile
from typing import Any

import pytest

from tests.servers import run_script_on_postgres

pytestmark = pytest.mark.integration

HUGE = "1" + "0" * 400


def test_corners_of_400_digits_are_400_on_postgres(postgres_url: str) -> None:
    with tempfile.TemporaryDirectory() as media:
        found = run_script_on_postgres(
            postgres_url, __file__, {"BOGGLE_MEDIA_DIR": media, "BOGGLE_PRELOAD_READER": "0"}
        )
    assert found["room"] == [400, "invalid"]
    assert found["solve"] == [400, "invalid"]
    assert found["size"] == [400, "invalid"]
    assert found["still_read"] == ["read", "read"]  # nothing lost, nothing read again


def scenario() -> dict:
    import django

    django.setup()

    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.test import Client, override_settings

    from games import rooms
    from photos import reading
    from photos.models import BoardPhoto
    from tests.photos.helpers import FakeReader, png_bytes

    reading._reader = FakeReader()
    found: dict = {}
    corners = f"[[20, {HUGE}], [180, 20], [180, 180], [20, 180]]"
    with override_settings(PHOTOS_READ_IN_THREAD=False, ALLOWED_HOSTS=["testserver"]):
        room, host = rooms.do_create_room("Ann")
        bearer: dict[str, Any] = {"HTTP_AUTHORIZATION": f"Bearer {host.token}"}
        client = Client()
        sent = client.post(
            f"/api/rooms/{room.code}/photos",
            {"photo": SimpleUploadedFile("b.png", png_bytes(), "image/png")},
            **bearer,
        ).json()["photo"]
        response = client.post(
            f"/api/rooms/{room.code}/photos/{sent['id']}/corners",
            f'{{"size": 4, "corners": {corners}}}',
            content_type="application/json",
            **bearer,
        )
        found["room"] = [response.status_code, _code(response)]
        response = client.post(
            f"/api/rooms/{room.code}/photos/{sent['id']}/corners",
            f'{{"size": {HUGE}, "corners": [[20, 20], [180, 20], [180, 180], [20, 180]]}}',
            content_type="application/json",
            **bearer,
        )
        found["size"] = [response.status_code, _code(response)]

        solo = client.post(
            "/api/solve/photos", {"photo": SimpleUploadedFile("b.png", png_bytes(), "image/png")}
        ).json()
        response = client.post(
            f"/api/solve/photos/{solo['photo']['id']}/corners",
            f'{{"size": 4, "corners": {corners}}}',
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {solo['key']}",
        )
        found["solve"] = [response.status_code, _code(response)]
        found["still_read"] = [
            BoardPhoto.objects.get(pk=pk).status for pk in (sent["id"], solo["photo"]["id"])
        ]
    return found


def _code(response) -> str:
    try:
        return str(response.json()["error"]["code"])
    except (ValueError, KeyError, TypeError):
        return f"not JSON: {response.content[:80]!r}"


if __name__ == "__main__":
    print(json.dumps(scenario()))
