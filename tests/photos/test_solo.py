"""The Solve page's photos (photos.solo_api): read by the rooms' reader for whoever holds the
photo's key (never a room's set memory), waited for with ``?wait=``, read again inside
corners placed by hand, under the rooms' waiting bounds, and deleted after an hour."""

from __future__ import annotations

import json
import os
from datetime import timedelta
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone

from photos import api as photos_api
from photos import retention
from photos.models import BoardPhoto
from tests.games.ws_helpers import create_room, tear_down
from tests.photos.helpers import PHOTO, PHOTO_BOARD, photo_bytes, png_bytes, upload
from vision.errors import GridNotFoundError
from web import throttle

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
async def _close_sockets():
    yield
    await tear_down()


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    """Photos go to a temporary MEDIA_ROOT and are read inline (no thread) in tests."""
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PHOTOS_READ_IN_THREAD = False
    throttle.reset()
    yield
    throttle.reset()


async def send(data: bytes | None, name: str = "board.png", **headers):
    body = {} if data is None else {"photo": SimpleUploadedFile(name, data, "image/png")}
    return await sync_to_async(Client().post)("/api/solve/photos", body, **headers)


async def get(path: str, key: str | None, **params):
    if key is None:
        return await sync_to_async(Client().get)(path, params)
    return await sync_to_async(Client().get)(path, params, HTTP_AUTHORIZATION=f"Bearer {key}")


async def corners(photo_id: int, key: str, body) -> object:
    return await sync_to_async(Client().post)(
        f"/api/solve/photos/{photo_id}/corners",
        json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {key}",
    )


async def test_anyone_sends_a_photo_and_its_key_reads_it(fake_reader):
    response = await send(png_bytes())
    assert response.status_code == 202, response.content
    answer = response.json()
    photo, key = answer["photo"], answer["key"]
    assert photo["status"] in ("uploaded", "read") and len(key) >= 40
    detail = await get(f"/api/solve/photos/{photo['id']}", key, wait="5")
    assert detail.status_code == 200
    read = detail.json()["photo"]
    assert read["status"] == "read"
    assert read["result"]["board"] == "cats qiex dogz went"
    assert read["result"]["doubtful"][1][1] is True and read["result"]["note"] == ""
    assert fake_reader.calls == [{"size": None, "corners": None, "memory": None, "dice_sets": []}]
    stored = await sync_to_async(BoardPhoto.objects.get)(pk=photo["id"])
    assert stored.room_id is None and stored.image.name.startswith("photos/_solve/")
    assert key not in stored.key_hash  # only a hash of the key is kept


async def test_another_key_no_key_or_a_rooms_photo_is_not_found(fake_reader):
    answer = (await send(png_bytes())).json()
    photo_id = answer["photo"]["id"]
    for key in (None, "nope", answer["key"][:-1] + "x", "\x00"):
        response = await get(f"/api/solve/photos/{photo_id}", key)
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "photo_not_found"
    ann = await create_room()
    room_photo = (await upload(ann.client, ann.code, png_bytes())).json()["photo"]["id"]
    response = await get(f"/api/solve/photos/{room_photo}", answer["key"])
    assert response.status_code == 404
    image = await get(f"/api/solve/photos/{photo_id}/image", "nope")
    assert image.status_code == 404


async def test_the_image_is_shown_to_its_key(fake_reader):
    answer = (await send(png_bytes((300, 200)))).json()
    response = await get(f"/api/solve/photos/{answer['photo']['id']}/image", answer["key"])
    assert response.status_code == 200 and response["Content-Type"] == "image/jpeg"


async def test_a_failed_reading_says_why_in_a_code(fake_reader):
    fake_reader.reading = GridNotFoundError("no grid found")
    answer = (await send(png_bytes())).json()
    detail = await get(f"/api/solve/photos/{answer['photo']['id']}", answer["key"], wait="5")
    photo = detail.json()["photo"]
    assert photo["status"] == "failed" and photo["failure"] == {"code": "no_grid"}
    assert "no grid" in photo["error"]


async def test_corners_by_hand_read_it_again(fake_reader):
    answer = (await send(png_bytes((200, 200)))).json()
    photo_id, key = answer["photo"]["id"], answer["key"]
    await get(f"/api/solve/photos/{photo_id}", key, wait="5")
    square = [[20, 20], [180, 20], [180, 180], [20, 180]]
    response = await corners(photo_id, key, {"corners": square, "size": 4})
    assert response.status_code == 202, response.content
    detail = (await get(f"/api/solve/photos/{photo_id}", key, wait="5")).json()["photo"]
    assert detail["status"] == "read" and detail["corners"] == square and detail["size"] == 4
    assert fake_reader.calls[-1]["corners"] == square
    bad = await corners(photo_id, key, {"corners": square[::-1], "size": 4})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_corners"
    assert (await corners(photo_id, "nope", {"corners": square, "size": 4})).status_code == 404


@pytest.mark.parametrize("wait", ["-1", "11", "soon", "1e400", "nan"])
async def test_a_wait_that_is_no_number_of_seconds_is_400(fake_reader, wait):
    answer = (await send(png_bytes())).json()
    response = await get(f"/api/solve/photos/{answer['photo']['id']}", answer["key"], wait=wait)
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid"


async def test_what_is_no_photo_is_refused_as_in_a_room():
    assert (await send(None)).status_code == 400
    assert (await send(b"GIF89a" + b"\0" * 100, "a.gif")).status_code == 415
    response = await send(b"hello, not an image at all")
    assert response.status_code == 400


@pytest.fixture
def never_read(monkeypatch):
    """Uploads stay waiting ("uploaded"), as when the readers are busy."""
    monkeypatch.setattr(photos_api, "enqueue_read", lambda photo_id: None)


async def test_the_solve_pages_photos_wait_under_the_rooms_bounds(never_read):
    # REMOTE_ADDR as the in-process test client hands it to the view (no socket is opened):
    # loopback is never limited, so the bounds are tried on a phone's address.
    address = {"REMOTE_ADDR": "10.0.0.5"}
    assert (await send(png_bytes(), **address)).status_code == 202
    assert (await send(png_bytes(), **address)).status_code == 202
    third = await send(png_bytes(), **address)
    assert third.status_code == 429 and "your photos" in third.json()["error"]["message"]
    ann = await create_room()
    # The address's bound counts both kinds: its room photo waits behind the two.
    response = await upload(ann.client, ann.code, png_bytes(), **address)
    assert response.status_code == 429


async def test_an_address_sends_a_few_photos_a_minute(fake_reader, monkeypatch):
    frozen = throttle.clock()
    monkeypatch.setattr(throttle, "clock", lambda: frozen)
    # An in-process request from a phone's address (no socket opened): loopback is not limited.
    statuses = [(await send(png_bytes(), REMOTE_ADDR="10.0.0.7")).status_code for _ in range(7)]
    assert statuses == [202] * 6 + [429]


async def test_photos_are_deleted_an_hour_after_their_upload(fake_reader):
    old = (await send(png_bytes())).json()["photo"]["id"]
    new = (await send(png_bytes())).json()["photo"]["id"]
    long_ago = timezone.now() - retention.SOLO_KEEP_FOR - timedelta(minutes=1)
    await sync_to_async(BoardPhoto.objects.filter(pk=old).update)(created_at=long_ago)
    old_file = Path((await sync_to_async(BoardPhoto.objects.get)(pk=old)).image.path)
    assert old_file.exists()
    assert await sync_to_async(retention.delete_old_solo_photos)() == 1
    assert not old_file.exists()
    assert await sync_to_async(BoardPhoto.objects.filter(pk=new).exists)()
    # The room's photos are never the Solve page's to delete.
    ann = await create_room()
    await upload(ann.client, ann.code, png_bytes())
    await sync_to_async(BoardPhoto.objects.update)(created_at=long_ago)
    assert await sync_to_async(retention.delete_old_solo_photos)() == 1
    assert await sync_to_async(BoardPhoto.objects.filter(room__isnull=False).count)() == 1


async def test_orphaned_files_of_the_solve_folder_go_and_the_folder_stays(fake_reader):
    answer = (await send(png_bytes())).json()
    photo = await sync_to_async(BoardPhoto.objects.get)(pk=answer["photo"]["id"])
    folder = Path(photo.image.path).parent
    orphan = folder / "orphan.png"
    orphan.write_bytes(b"x")
    past = (timezone.now() - timedelta(hours=2)).timestamp()
    os.utime(orphan, (past, past))
    os.utime(photo.image.path, (past, past))
    deleted = await sync_to_async(retention.delete_orphaned_files)()
    assert deleted.files == 1 and not orphan.exists()
    assert Path(photo.image.path).exists()


async def test_a_real_photo_is_read_for_the_solve_page():
    """The shipped models read the labelled photo as in a room (no set memory)."""
    data = photo_bytes(PHOTO)
    response = await sync_to_async(Client().post)(
        "/api/solve/photos", {"photo": SimpleUploadedFile("b.jpg", data, "image/jpeg")}
    )
    answer = response.json()
    detail = await get(f"/api/solve/photos/{answer['photo']['id']}", answer["key"], wait="10")
    photo = detail.json()["photo"]
    assert photo["status"] == "read", photo
    assert photo["result"]["board"] == PHOTO_BOARD
