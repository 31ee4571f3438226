"""Photos cannot fill the disk (issue 48, hole 4): each address and each room may store a
budget of bytes an hour (``photos.budget``), counted once for the whole site in production
(Redis), and below a floor of free space every upload is refused with ``storage_full``."""

from __future__ import annotations

import io
import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from PIL import Image

from photos import budget
from photos.models import BoardPhoto
from tests.fake_clock import FakeClock
from tests.games.ws_helpers import create_room, tear_down
from tests.photos.helpers import upload
from web import limits_redis, throttle

pytestmark = pytest.mark.django_db(transaction=True)

# Addresses of phones on a Wi-Fi: loopback is never limited (web.throttle).
PHONE = "10.0.0.8"
OTHER_PHONE = "10.0.0.9"


@pytest.fixture(autouse=True)
async def _close_sockets():
    yield
    await tear_down()


@pytest.fixture(autouse=True)
def clock(settings, tmp_path, monkeypatch) -> Iterator[FakeClock]:
    """Photos go to a temporary MEDIA_ROOT, read inline; the budgets' clocks stand still
    until a test moves them, and start empty."""
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PHOTOS_READ_IN_THREAD = False
    fake = FakeClock()
    monkeypatch.setattr(budget, "clock", fake)
    monkeypatch.setattr(limits_redis, "wall_clock", fake)
    monkeypatch.setattr(throttle, "clock", fake)
    budget.reset()
    throttle.reset()
    limits_redis.reset()
    yield fake
    budget.reset()
    throttle.reset()
    limits_redis.reset()


def noise_png(seed: int, side: int = 200) -> bytes:
    """A PNG that does not compress (random pixels): ``side``² x 3 bytes and a little."""
    pixels = random.Random(seed).randbytes(side * side * 3)
    buffer = io.BytesIO()
    Image.frombytes("RGB", (side, side), pixels).save(buffer, format="PNG")
    return buffer.getvalue()


PHOTO_SIZE = len(noise_png(0))


def stored_files(settings: Any) -> list[Path]:
    root = Path(settings.MEDIA_ROOT)
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []


async def solo_upload(data: bytes, **headers: Any):
    picture = SimpleUploadedFile("b.png", data, "image/png")
    return await sync_to_async(Client().post)("/api/solve/photos", {"photo": picture}, **headers)


async def test_an_address_that_spent_its_bytes_for_the_hour_is_refused(
    fake_reader, settings, clock
):
    settings.BOGGLE_PHOTO_BYTES_PER_ADDRESS_HOUR = 3 * PHOTO_SIZE + PHOTO_SIZE // 2
    settings.BOGGLE_PHOTO_BYTES_PER_ROOM_HOUR = 100 * PHOTO_SIZE
    ann, cid = await create_room("Ann"), await create_room("Cid")
    statuses = []
    for number in range(3):
        response = await upload(ann.client, ann.code, noise_png(number), REMOTE_ADDR=PHONE)
        statuses.append(response.status_code)
    assert statuses == [202, 202, 202]
    before = await sync_to_async(BoardPhoto.objects.count)()
    files = stored_files(settings)

    # Another room does not give the same phone a new budget.
    refused = await upload(cid.client, cid.code, noise_png(3), REMOTE_ADDR=PHONE)
    assert refused.status_code == 429, refused.content
    assert refused.json()["error"]["code"] == "rate_limited"
    assert "MB of photos" in refused.json()["error"]["message"]
    assert 1 <= int(refused["Retry-After"]) <= 3600
    assert await sync_to_async(BoardPhoto.objects.count)() == before  # nothing stored
    assert stored_files(settings) == files

    # Another phone has its own budget; the first one's comes back as its bytes age.
    other = await upload(cid.client, cid.code, noise_png(4), REMOTE_ADDR=OTHER_PHONE)
    assert other.status_code == 202
    clock.now += 3600
    again = await upload(cid.client, cid.code, noise_png(5), REMOTE_ADDR=PHONE)
    assert again.status_code == 202, again.content


async def test_a_room_has_a_byte_budget_whichever_addresses_send(fake_reader, settings):
    settings.BOGGLE_PHOTO_BYTES_PER_ADDRESS_HOUR = 100 * PHOTO_SIZE
    settings.BOGGLE_PHOTO_BYTES_PER_ROOM_HOUR = 2 * PHOTO_SIZE + PHOTO_SIZE // 2
    ann, cid = await create_room("Ann"), await create_room("Cid")
    for number, address in enumerate(("10.0.0.1", "10.0.0.2")):
        response = await upload(ann.client, ann.code, noise_png(number), REMOTE_ADDR=address)
        assert response.status_code == 202, response.content
    refused = await upload(ann.client, ann.code, noise_png(2), REMOTE_ADDR="10.0.0.3")
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limited"
    assert "this room" in refused.json()["error"]["message"]
    # The same phone may still send to another room: the room's budget was spent, not its own.
    other_room = await upload(cid.client, cid.code, noise_png(3), REMOTE_ADDR="10.0.0.3")
    assert other_room.status_code == 202


async def test_the_solve_pages_photos_spend_the_same_address_budget(fake_reader, settings):
    settings.BOGGLE_PHOTO_BYTES_PER_ADDRESS_HOUR = 2 * PHOTO_SIZE + PHOTO_SIZE // 2
    ann = await create_room("Ann")
    assert (await solo_upload(noise_png(0), REMOTE_ADDR=PHONE)).status_code == 202
    assert (await upload(ann.client, ann.code, noise_png(1), REMOTE_ADDR=PHONE)).status_code == 202
    refused = await solo_upload(noise_png(2), REMOTE_ADDR=PHONE)
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limited"
    assert "key" not in refused.json()  # no photo, no key


async def test_a_refused_upload_spends_nothing(fake_reader, settings):
    """An upload refused for another reason (not an image) costs no bytes of the budget."""
    settings.BOGGLE_PHOTO_BYTES_PER_ADDRESS_HOUR = 2 * PHOTO_SIZE + PHOTO_SIZE // 2
    ann = await create_room("Ann")
    for _ in range(5):
        bad = await upload(ann.client, ann.code, b"GIF89a" + bytes(PHOTO_SIZE), REMOTE_ADDR=PHONE)
        assert bad.status_code in (400, 415)
    for number in range(2):
        response = await upload(ann.client, ann.code, noise_png(number), REMOTE_ADDR=PHONE)
        assert response.status_code == 202


async def test_loopback_is_never_counted(fake_reader, settings):
    """This machine (the host's laptop) is never limited, as for every other limit."""
    settings.BOGGLE_PHOTO_BYTES_PER_ADDRESS_HOUR = PHOTO_SIZE
    settings.BOGGLE_PHOTO_BYTES_PER_ROOM_HOUR = PHOTO_SIZE
    ann = await create_room("Ann")
    for number in range(3):
        assert (await upload(ann.client, ann.code, noise_png(number))).status_code == 202


# ------------------------------------------------------------------ the free-space floor


def low_disk(free: int):
    real = shutil.disk_usage

    def fake(path: Any) -> Any:
        total, used, _ = real(path)
        return type(real(path))(total, used, free)

    return fake


async def test_below_the_free_space_floor_uploads_are_refused(fake_reader, settings, monkeypatch):
    settings.BOGGLE_PHOTO_MIN_FREE_BYTES = 500_000_000
    ann = await create_room("Ann")
    # Short of the floor once this photo is stored: refused, from loopback too.
    monkeypatch.setattr(shutil, "disk_usage", low_disk(500_000_000 + PHOTO_SIZE // 2))
    refused = await upload(ann.client, ann.code, noise_png(0))
    assert refused.status_code == 507, refused.content
    assert refused.json()["error"]["code"] == "storage_full"
    assert "disk" in refused.json()["error"]["message"]
    solo = await solo_upload(noise_png(1), REMOTE_ADDR=PHONE)
    assert solo.status_code == 507
    assert solo.json()["error"]["code"] == "storage_full"
    assert await sync_to_async(BoardPhoto.objects.count)() == 0
    assert stored_files(settings) == []

    monkeypatch.setattr(shutil, "disk_usage", low_disk(500_000_000 + 2 * PHOTO_SIZE))
    assert (await upload(ann.client, ann.code, noise_png(2))).status_code == 202


async def test_the_refusal_is_in_the_requests_language(fake_reader, settings, monkeypatch):
    settings.BOGGLE_PHOTO_MIN_FREE_BYTES = 500_000_000
    monkeypatch.setattr(shutil, "disk_usage", low_disk(1000))
    ann = await create_room("Ann")
    refused = await upload(ann.client, ann.code, noise_png(0), HTTP_ACCEPT_LANGUAGE="fr")
    assert refused.status_code == 507
    assert "disque" in refused.json()["error"]["message"]


# ------------------------------------------------------------------ production: Redis


@pytest.mark.integration
def test_in_production_every_process_counts_one_budget(settings, redis_url, redis_prefix):
    """Two web processes (two in-process budgets) sharing Redis: one budget between them."""
    settings.BOGGLE_LIMITS_REDIS_URL = redis_url
    settings.BOGGLE_REDIS_PREFIX = redis_prefix
    settings.BOGGLE_PHOTO_BYTES_PER_ADDRESS_HOUR = 1000
    settings.BOGGLE_PHOTO_BYTES_PER_ROOM_HOUR = 10_000
    taken = [budget.reserve(PHONE, "room-a", 400), budget.reserve(PHONE, "room-b", 400)]
    assert all(t is not None and t.shared for t in taken)
    budget.reset()  # as if the next request reached another process
    with pytest.raises(throttle.Throttled):
        budget.reserve(PHONE, "room-c", 400)
    budget.release(taken[0])  # an upload that failed after all gives its bytes back
    assert budget.reserve(PHONE, "room-c", 400) is not None
    assert limits_redis.configured()
