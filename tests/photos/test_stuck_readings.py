"""Readings whose worker died (issue 49): the reading is tried again at most
``MAX_READ_ATTEMPTS`` times, announced once; a reading stuck past its limit, or a photo whose
task was lost, ends as ``board.unreadable`` (``photos.stuck``, with a fake clock), and a task
delivered after that does nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.files.base import ContentFile

from boggle_site.celery import app
from games.models import MAX_ROUND_SECONDS, Room
from games.rounds import COUNTDOWN_SECONDS, END_GRACE_SECONDS
from photos import reading, stuck
from photos.models import PENDING_FOR_AT_MOST, BoardPhoto
from photos.tasks import read_board_photo
from tests.fake_clock import FakeClock
from tests.games.ws_helpers import collect, receive_until, tear_down, two_players
from tests.photos.helpers import png_bytes
from tests.servers import REPO_ROOT

pytestmark = pytest.mark.django_db(transaction=True)

READING = BoardPhoto.Status.READING
UPLOADED = BoardPhoto.Status.UPLOADED


@pytest.fixture(autouse=True)
async def _close_sockets():
    yield
    await tear_down()


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PHOTOS_READ_IN_THREAD = False


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeClock]:
    fake = FakeClock()
    fake.now = time.time()
    monkeypatch.setattr(stuck, "wall_clock", fake)
    yield fake


def at(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


async def a_room() -> tuple[WebsocketCommunicator, str]:
    """The socket of a room's host, once the room's arrivals are heard."""
    ann, _ = await two_players()
    assert ann.comm is not None
    await collect(ann.comm)
    return ann.comm, ann.code


@sync_to_async
def left_behind(code: str, **fields) -> BoardPhoto:
    """A photo of the room as a dead worker leaves it (no task runs for it here)."""
    photo = BoardPhoto(room=Room.objects.get(code=code), **fields)
    photo.image.save("board.png", ContentFile(png_bytes()), save=False)
    photo.save()
    return photo


@sync_to_async
def stored(photo: BoardPhoto) -> BoardPhoto:
    return BoardPhoto.objects.get(pk=photo.pk)


sweep = sync_to_async(stuck.fail_stuck_readings)
read_task = sync_to_async(read_board_photo)


def test_the_reading_task_goes_back_to_the_queue_when_its_process_dies() -> None:
    task = app.tasks["photos.tasks.read_board_photo"]
    assert task.acks_late and task.reject_on_worker_lost
    assert task.soft_time_limit == reading.READ_SOFT_LIMIT_SECONDS
    assert task.time_limit == reading.READ_HARD_LIMIT_SECONDS
    assert stuck.READING_FOR_AT_MOST.total_seconds() > reading.READ_HARD_LIMIT_SECONDS


def test_the_broker_never_gives_back_a_round_end_still_waiting_for_its_eta() -> None:
    """kombu hands an unacknowledged message to a worker again after the visibility timeout,
    and a worker holds ``end_round`` unacknowledged until its eta: a timeout shorter than a
    round would end rounds twice and pile copies up in the workers (a photo's reading does
    not rely on it: ``photos.stuck``)."""
    production = {
        "REDIS_URL": "redis://127.0.0.1:6379/13",  # not connected to: settings only
        "DATABASE_URL": "postgresql://boggle@127.0.0.1:5432/boggle",
        "DJANGO_SECRET_KEY": "test-only-key",
        "DJANGO_ALLOWED_HOSTS": "localhost",
        "DJANGO_SETTINGS_MODULE": "boggle_site.settings",
    }
    script = (
        "import json; from django.conf import settings; "
        "print(json.dumps(settings.CELERY_BROKER_TRANSPORT_OPTIONS['visibility_timeout']))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "BOGGLE_"))}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO_ROOT,
        env=env | production,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    visibility = json.loads(done.stdout.strip().splitlines()[-1])
    longest_hold = MAX_ROUND_SECONDS + COUNTDOWN_SECONDS + END_GRACE_SECONDS
    assert visibility > longest_hold + 60


async def test_a_reading_whose_worker_died_fails_once_past_its_limit(clock, fake_reader):
    room, code = await a_room()
    photo = await left_behind(
        code, status=READING, reading_started_at=at(clock.now), read_attempts=1
    )
    clock.now += stuck.READING_FOR_AT_MOST.total_seconds() - 1
    assert await sweep() == 0  # it may still be read
    assert await room.receive_nothing(timeout=0.2)

    clock.now += 2
    assert await sweep() == 1
    event = await receive_until(room, "board.unreadable", photo_id=photo.pk)
    assert event["code"] == "failed"
    assert event["message"] == reading.FAILED_MESSAGE
    assert (await stored(photo)).status == BoardPhoto.Status.FAILED
    assert await sweep() == 0  # told once

    # Its task, given back by Redis long after, finds it failed: not read, not announced.
    assert await read_task(photo.pk) is False
    assert fake_reader.calls == []
    assert await room.receive_nothing(timeout=0.2)


async def test_a_photo_whose_task_was_lost_fails_once_waiting_too_long(clock, fake_reader):
    room, code = await a_room()
    waited = PENDING_FOR_AT_MOST.total_seconds()
    lost = await left_behind(code, status=UPLOADED, queued_at=at(clock.now - waited - 1))
    waiting = await left_behind(code, status=UPLOADED, queued_at=at(clock.now - waited + 5))
    assert await sweep() == 1
    event = await receive_until(room, "board.unreadable")
    assert event["photo_id"] == lost.pk
    assert (await stored(waiting)).status == UPLOADED
    assert await room.receive_nothing(timeout=0.2)


async def test_a_reading_started_again_in_time_is_left_alone(clock, fake_reader, monkeypatch):
    room, code = await a_room()
    long_ago = clock.now - stuck.READING_FOR_AT_MOST.total_seconds() - 1
    photo = await left_behind(code, status=READING, reading_started_at=at(long_ago))
    # An attempt starts again between the sweep's query and its look at the locked row.
    fail_reading = reading.fail_reading

    def restarted_first(photo_id, still_stuck):
        BoardPhoto.objects.filter(pk=photo_id).update(reading_started_at=at(clock.now))
        return fail_reading(photo_id, still_stuck)

    monkeypatch.setattr(reading, "fail_reading", restarted_first)
    assert await sweep() == 0
    assert (await stored(photo)).status == READING
    assert await room.receive_nothing(timeout=0.2)


async def test_a_reading_retried_after_its_worker_died_is_read_and_announced_once(fake_reader):
    room, code = await a_room()
    started = datetime.now(UTC) - timedelta(seconds=5)
    photo = await left_behind(code, status=READING, reading_started_at=started, read_attempts=1)

    assert await read_task(photo.pk) is True  # the message, given back to the queue
    await receive_until(room, "board.reading", photo_id=photo.pk)
    read = await receive_until(room, "board.read", photo_id=photo.pk)
    assert read["board"] == "cats qiex dogz went"
    again = await stored(photo)
    assert (again.status, again.read_attempts) == (BoardPhoto.Status.READ, 2)
    assert again.reading_started_at is not None and again.reading_started_at > started

    assert await read_task(photo.pk) is False  # delivered once more: nothing
    assert len(fake_reader.calls) == 1
    assert await room.receive_nothing(timeout=0.2)


async def test_a_photo_whose_readings_keep_dying_is_failed_not_read(fake_reader):
    room, code = await a_room()
    photo = await left_behind(
        code,
        status=READING,
        reading_started_at=datetime.now(UTC),
        read_attempts=reading.MAX_READ_ATTEMPTS,
    )
    assert await read_task(photo.pk) is False
    event = await receive_until(room, "board.unreadable", photo_id=photo.pk)
    assert event["code"] == "failed"
    assert fake_reader.calls == []  # not read a third time: it may be what kills them
    assert (await stored(photo)).status == BoardPhoto.Status.FAILED


async def test_the_hourly_housekeeping_sweeps_too(clock, fake_reader):
    """Where no beat runs (the embedded default), the web processes' hourly housekeeping."""
    from games import housekeeping

    room, code = await a_room()
    long_ago = clock.now - stuck.READING_FOR_AT_MOST.total_seconds() - 1
    await left_behind(code, status=READING, reading_started_at=at(long_ago))
    counts = await sync_to_async(housekeeping.delete_unused_files)()
    assert counts["stuck_photo_readings"] == 1
    await receive_until(room, "board.unreadable")
