"""Board from a photo: upload (POST /api/rooms/<code>/photos), the reading task and its
room events, and the host confirming the read board with ``set_board``."""

from __future__ import annotations

import io
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.utils import timezone
from PIL import Image

from photos import api as photos_api
from photos import reading
from photos.models import PENDING_FOR_AT_MOST, BoardPhoto
from photos.tasks import read_board_photo
from tests.games.ws_helpers import (
    ask,
    connect,
    create_room,
    join_room,
    receive_until,
    tear_down,
    two_players,
)
from tests.photos.helpers import PHOTO, photo_bytes, png_bytes, upload
from vision.errors import (
    ClutteredPhotoError,
    DiceCountError,
    DiceTooSmallError,
    GridNotFoundError,
)
from vision.recognize import BoardReading

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


def real_photo_bytes() -> bytes:
    return photo_bytes(PHOTO)


# ------------------------------------------------------------------ the real models


async def test_a_player_uploads_a_real_photo_and_the_host_plays_that_board():
    data = real_photo_bytes()
    ann, bob = await two_players()
    response = await upload(bob.client, bob.code, data)  # any player may upload
    assert response.status_code == 202, response.content
    photo_id = response.json()["photo"]["id"]
    assert response.json()["photo"]["status"] in ("uploaded", "read")

    reading_event = await receive_until(ann.comm, "board.reading")
    assert reading_event["photo_id"] == photo_id
    read = await receive_until(ann.comm, "board.read", timeout=60)
    assert read["photo_id"] == photo_id
    assert (read["rows"], read["cols"]) == (4, 4)
    assert len(read["letters"]) == 4 and all(len(row) == 4 for row in read["letters"])
    assert all(0.0 <= value <= 1.0 for row in read["confidence"] for value in row)
    assert read["board"] == "ygkh auox mrlz isio"
    assert read["note"] == ""
    assert (await receive_until(bob.comm, "board.read"))["board"] == read["board"]

    photo = await sync_to_async(BoardPhoto.objects.get)(pk=photo_id)
    assert photo.status == "read" and photo.result["board"] == read["board"]
    assert photo.uploaded_by_id == bob.id

    # The host confirms it (possibly corrected); the next round plays it.
    reply = await ask(ann.comm, "set_board", board=read["board"])
    assert reply["type"] == "ok" and reply["board"] == "ygkh auox mrlz isio"
    reply = await ask(ann.comm, "start_round")
    assert reply["type"] == "ok", reply
    started = await receive_until(bob.comm, "round.started")
    assert started["round"]["board"] == "ygkh auox mrlz isio"


async def test_a_corrupt_jpeg_is_refused_or_reported_unreadable():
    data = real_photo_bytes()
    ann, bob = await two_players()
    broken = data[: len(data) // 3]  # a truncated upload: the header is fine
    response = await upload(ann.client, ann.code, broken)
    if response.status_code == 400:
        assert response.json()["error"]["code"] == "invalid"
        return
    assert response.status_code == 202, response.content
    event = await receive_until(bob.comm, "board.unreadable", timeout=60)
    assert event["photo_id"] == response.json()["photo"]["id"]
    assert "damaged" in event["message"] or "decoded" in event["message"]


# ------------------------------------------------------------------ refused uploads


async def test_a_file_that_is_not_an_image_is_400():
    ann = await create_room()
    response = await upload(ann.client, ann.code, b"%PDF-1.4 not a photo at all" * 10)
    assert response.status_code == 400
    assert response.json() == {
        "error": {"code": "invalid", "message": "the file is not an image (JPEG, PNG, WebP, ...)"}
    }
    assert await sync_to_async(BoardPhoto.objects.count)() == 0


async def test_no_photo_field_is_400():
    ann = await create_room()
    response = await upload(ann.client, ann.code, None)
    assert response.status_code == 400
    assert "'photo'" in response.json()["error"]["message"]


async def test_a_file_over_15_mb_is_413():
    ann = await create_room()
    response = await upload(ann.client, ann.code, b"\xff\xd8" + b"0" * photos_api.MAX_UPLOAD_BYTES)
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "too_large"
    assert "15 MB" in response.json()["error"]["message"]


async def test_a_progressive_jpeg_too_big_to_decode_is_413_at_upload():
    """libjpeg holds a progressive JPEG's coefficients whole while decoding it: one whose
    buffer would pass the reader's limit is refused at upload, before it waits its turn."""
    picture = io.BytesIO()
    # 7.5 MP with full-resolution colour: about 45 MB of coefficients (limit 40 MB).
    Image.new("RGB", (3000, 2500), (200, 180, 90)).save(
        picture, "JPEG", progressive=True, subsampling=0, quality=80
    )
    ann = await create_room()
    response = await upload(ann.client, ann.code, picture.getvalue())
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "too_large"
    assert "progressive JPEG" in response.json()["error"]["message"]
    assert await sync_to_async(BoardPhoto.objects.count)() == 0


def test_the_page_refuses_the_same_size_before_sending():
    """The room page checks a photo's size before uploading it (static/js/room/photo.js):
    the same limit as the server's, so its own words are never wrong."""
    script = (Path(__file__).resolve().parents[2] / "static/js/room/photo.js").read_text()
    match = re.search(r"export const MAX_PHOTO_BYTES = ([\d_]+);", script)
    assert match is not None
    assert int(match.group(1).replace("_", "")) == photos_api.MAX_UPLOAD_BYTES


async def test_an_image_over_the_pixel_limit_is_413():
    ann = await create_room()
    bomb = png_bytes((8000, 8000), mode="1")  # 64 MP in a few kB
    response = await upload(ann.client, ann.code, bomb, name="bomb.png")
    assert response.status_code == 413
    assert "MP" in response.json()["error"]["message"]


async def test_a_png_over_the_lower_lossless_limit_is_413():
    """20 MP would be fine as a JPEG; a PNG decodes at full size, so it is refused."""
    ann = await create_room()
    response = await upload(ann.client, ann.code, png_bytes((5000, 4000), mode="1"), name="x.png")
    assert response.status_code == 413
    assert "the limit for PNG is 12 MP" in response.json()["error"]["message"]


async def test_a_tiny_image_is_400():
    ann = await create_room()
    response = await upload(ann.client, ann.code, png_bytes((20, 20)), name="tiny.png")
    assert response.status_code == 400
    assert "pixels a side" in response.json()["error"]["message"]


async def test_an_unknown_room_is_404():
    ann = await create_room()
    response = await upload(ann.client, "zzzzzzzz", png_bytes())
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "room_not_found"


async def test_someone_who_is_not_a_player_gets_403():
    ann = await create_room()
    response = await upload(Client(), ann.code, png_bytes())
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "not_a_player"
    other = await create_room("Cid")  # a player of another room, by token
    response = await upload(
        Client(), ann.code, png_bytes(), HTTP_AUTHORIZATION=f"Bearer {other.token}"
    )
    assert response.status_code == 403


# ------------------------------------------------------------------ the task (fake models)


async def test_a_bearer_token_upload_is_read_and_stored(fake_reader):
    ann = await create_room()
    bob = await join_room(ann.code, "Bob")
    await connect(ann)
    response = await upload(
        Client(), ann.code, png_bytes(), name="b.png", HTTP_AUTHORIZATION=f"Bearer {bob.token}"
    )
    assert response.status_code == 202
    photo_id = response.json()["photo"]["id"]
    read = await receive_until(ann.comm, "board.read")
    assert read["board"] == "cats qiex dogz went"
    assert read["confidence"][1][1] == 0.5
    detail = await sync_to_async(bob.client.get)(f"/api/rooms/{ann.code}/photos/{photo_id}")
    assert detail.status_code == 200
    assert detail.json()["photo"]["status"] == "read"
    assert detail.json()["photo"]["result"]["board"] == "cats qiex dogz went"
    photo = await sync_to_async(BoardPhoto.objects.get)(pk=photo_id)
    assert photo.image.name.endswith(".png") and photo.image.name.startswith(f"photos/{ann.code}/")


async def test_the_task_is_idempotent(fake_reader):
    ann, _ = await two_players()
    response = await upload(ann.client, ann.code, png_bytes())
    photo_id = response.json()["photo"]["id"]
    await receive_until(ann.comm, "board.read")
    assert await sync_to_async(read_board_photo)(photo_id) is False  # already read
    assert await sync_to_async(read_board_photo)(999_999) is False  # gone
    assert await ann.comm.receive_nothing(timeout=0.2)


async def test_a_board_of_another_size_is_returned_with_a_note(fake_reader):
    fake_reader.reading = BoardReading(
        rows=5,
        cols=5,
        letters=[list("abcde")] * 5,
        confidence=[[0.9] * 5] * 5,
        centers=[[[0.0, 0.0]] * 5] * 5,
    )
    ann, _ = await two_players()
    await upload(ann.client, ann.code, png_bytes())
    read = await receive_until(ann.comm, "board.read")
    assert (read["rows"], read["cols"]) == (5, 5)
    assert "5x5" in read["note"] and "4x4" in read["note"]
    reply = await ask(ann.comm, "set_board", board=read["board"])  # the room still plays 4x4
    assert reply["type"] == "error" and reply["code"] == "invalid"


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (GridNotFoundError("no grid found"), "no grid found; fill the frame with the board"),
        (
            ClutteredPhotoError("no grid found"),
            "no grid found; clear the table around the board, or come closer",
        ),
        (
            DiceTooSmallError(9.4),
            "the dice are too small in this photo (9 pixels across); move closer",
        ),
        (DiceCountError(15, (16, 25, 36)), "found 15 dice, expected 16, 25 or 36; take the photo"),
    ],
)
async def test_no_board_in_the_photo_is_board_unreadable_with_what_to_change(
    fake_reader, error, message
):
    fake_reader.reading = error
    ann, bob = await two_players()
    response = await upload(bob.client, bob.code, png_bytes())
    event = await receive_until(ann.comm, "board.unreadable")
    assert event["photo_id"] == response.json()["photo"]["id"]
    assert event["message"].startswith(message)
    photo = await sync_to_async(BoardPhoto.objects.get)(pk=event["photo_id"])
    assert photo.status == "failed" and photo.error == event["message"]


async def test_the_room_state_holds_the_photo_until_its_board_is_used(fake_reader):
    """A reload or a reconnect shows the photo being read, or read and not yet used: the
    room state carries it, with which dice are doubtful, until the host uses its board."""
    ann, bob = await two_players()
    assert (await ask(ann.comm, "sync"))["state"]["photo"] is None
    response = await upload(bob.client, bob.code, png_bytes())
    photo_id = response.json()["photo"]["id"]
    read = await receive_until(ann.comm, "board.read")
    assert read["doubtful"][1] == [False, True, False, False]
    state = (await ask(bob.comm, "sync"))["state"]
    assert state["photo"]["id"] == photo_id and state["photo"]["status"] == "read"
    assert state["photo"]["result"]["board"] == read["board"]
    assert state["photo"]["result"]["doubtful"] == read["doubtful"]
    reply = await ask(ann.comm, "set_board", board=read["board"])
    assert reply["type"] == "ok"
    assert (await ask(bob.comm, "sync"))["state"]["photo"] is None


async def test_a_photo_of_a_board_already_played_is_not_in_the_state(fake_reader):
    ann, bob = await two_players()
    await upload(bob.client, bob.code, png_bytes())
    await receive_until(ann.comm, "board.read")
    assert (await ask(ann.comm, "sync"))["state"]["photo"] is not None
    assert (await ask(ann.comm, "start_round"))["type"] == "ok"
    assert (await ask(ann.comm, "sync"))["state"]["photo"] is None


async def test_a_bug_while_reading_still_answers_the_room(fake_reader):
    fake_reader.reading = RuntimeError("boom")
    ann, _ = await two_players()
    await upload(ann.client, ann.code, png_bytes())
    event = await receive_until(ann.comm, "board.unreadable")
    assert "boom" not in event["message"]


# ------------------------------------------------------------------ formats, by content

EPS = b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 100 100\nshowpage\n%%EOF\n"
HEIC = b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + b"\x00" * 64


def encoded(fmt: str, size=(200, 200)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size).save(buffer, format=fmt)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("data", "name", "needle"),
    [
        (EPS, "board.jpg", "EPS images are not accepted"),
        (HEIC, "IMG_0001.HEIC", "HEIC/HEIF photos are not accepted"),
        (encoded("GIF"), "board.png", "GIF images are not accepted"),
        (encoded("TIFF"), "board.jpg", "TIFF images are not accepted"),
    ],
    ids=["eps", "heic", "gif", "tiff"],
)
async def test_image_formats_other_than_jpeg_png_webp_are_415(data, name, needle):
    ann = await create_room()
    response = await upload(ann.client, ann.code, data, name=name)
    assert response.status_code == 415, response.content
    error = response.json()["error"]
    assert error["code"] == "unsupported_image"
    assert needle in error["message"] and "JPEG, PNG or WebP" in error["message"]
    assert await sync_to_async(BoardPhoto.objects.count)() == 0


async def test_the_format_is_taken_from_the_bytes_not_the_name(fake_reader):
    ann = await create_room()
    response = await upload(ann.client, ann.code, encoded("WEBP"), name="board.eps")
    assert response.status_code == 202, response.content
    photo = await sync_to_async(BoardPhoto.objects.get)()
    assert photo.image.name.endswith(".webp")


# ------------------------------------------------------------------ photos in flight


@pytest.fixture
def never_read(monkeypatch):
    """Uploads stay waiting ("uploaded"), as when the readers are busy."""
    monkeypatch.setattr(photos_api, "enqueue_read", lambda photo_id: None)


async def test_one_address_has_at_most_two_photos_waiting_across_rooms(never_read):
    ann, cid = await create_room("Ann"), await create_room("Cid")  # same address, two rooms
    assert (await upload(ann.client, ann.code, png_bytes())).status_code == 202
    assert (await upload(cid.client, cid.code, png_bytes())).status_code == 202
    response = await upload(cid.client, cid.code, png_bytes())
    assert response.status_code == 429
    assert response.json()["error"]["code"] == "rate_limited"
    assert "your photos" in response.json()["error"]["message"]
    other = await upload(cid.client, cid.code, png_bytes(), REMOTE_ADDR="10.0.0.9")
    assert other.status_code == 202  # another phone is not held up by this one


async def test_at_most_four_photos_wait_in_all(never_read):
    for number in range(4):
        player = await create_room(f"P{number}")
        response = await upload(
            player.client, player.code, png_bytes(), REMOTE_ADDR=f"10.0.0.{number}"
        )
        assert response.status_code == 202
    late = await create_room("Late")
    response = await upload(late.client, late.code, png_bytes(), REMOTE_ADDR="10.0.1.1")
    assert response.status_code == 429
    assert response.json()["error"]["code"] == "rate_limited"
    assert "busy" in response.json()["error"]["message"]


async def test_a_photo_stuck_waiting_for_long_stops_counting(never_read):
    ann = await create_room()
    for _ in range(2):
        assert (await upload(ann.client, ann.code, png_bytes())).status_code == 202
    long_ago = timezone.now() - PENDING_FOR_AT_MOST - timedelta(seconds=1)
    await sync_to_async(BoardPhoto.objects.update)(queued_at=long_ago)  # its worker died
    assert (await upload(ann.client, ann.code, png_bytes())).status_code == 202


async def test_a_room_keeps_its_latest_three_photos(fake_reader, settings):
    ann = await create_room()
    ids = []
    for _ in range(5):
        response = await upload(ann.client, ann.code, png_bytes())
        assert response.status_code == 202
        ids.append(response.json()["photo"]["id"])
    kept = await sync_to_async(lambda: sorted(BoardPhoto.objects.values_list("pk", flat=True)))()
    assert kept == ids[-3:]
    files = sorted(p.name for p in (Path(settings.MEDIA_ROOT) / "photos" / ann.code).iterdir())
    names = await sync_to_async(
        lambda: sorted(Path(p.image.name).name for p in BoardPhoto.objects.all())
    )()
    assert files == names  # the older files went with their rows
    gone = await sync_to_async(ann.client.get)(f"/api/rooms/{ann.code}/photos/{ids[0]}")
    assert gone.status_code == 404


def test_a_process_reads_at_most_its_slots_of_photos_at_once(fake_reader, monkeypatch):
    """Uploads beyond the limit wait their turn instead of decoding side by side (two
    slots here, to see the limit bind rather than readings that happen not to overlap)."""
    monkeypatch.setattr(reading, "_reading_threads", ThreadPoolExecutor(max_workers=2))
    running, peak, lock, release = 0, 0, threading.Lock(), threading.Event()

    def read(source, memory=None, dice_sets=()):
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
        release.wait(5)
        with lock:
            running -= 1
        return fake_reader.reading

    monkeypatch.setattr(fake_reader, "read", read)
    threads = [threading.Thread(target=reading.read_bytes, args=(b"x", 4)) for _ in range(5)]
    for thread in threads:
        thread.start()
    deadline = 50
    while running < 2 and deadline:  # let the first readers in
        threading.Event().wait(0.05)
        deadline -= 1
    threading.Event().wait(0.2)
    assert peak == 2
    release.set()
    for thread in threads:
        thread.join(5)
    assert peak == 2


def test_the_reader_is_preloaded_on_the_reading_thread(fake_reader, monkeypatch, settings) -> None:
    """preload_reader warms the models up on the thread that reads photos, then reports;
    with PHOTOS_PRELOAD_READER off it does nothing."""
    warmed_on: list[str] = []
    fake_reader.warm_up = lambda: warmed_on.append(threading.current_thread().name)
    monkeypatch.setattr(reading, "_reads_since_load", 0)  # as just loaded: nothing read yet
    ready = threading.Event()
    settings.PHOTOS_PRELOAD_READER = False
    reading.preload_reader(on_ready=ready.set)
    reading._reading_threads.submit(lambda: None).result()  # anything queued has run
    assert warmed_on == [] and not ready.is_set()
    settings.PHOTOS_PRELOAD_READER = True
    reading.preload_reader(on_ready=ready.set)
    assert ready.wait(10)
    read_on = reading._reading_threads.submit(threading.current_thread).result().name
    assert warmed_on == [read_on]
    assert read_on.startswith("board-reader")
