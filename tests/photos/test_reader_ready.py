"""Getting the reader ready: a photo that comes while this process loads the reader's
models waits for the load only (never for the warm-up after it), and the room hears how far
the load is (``board.reading`` with ``reader_progress``, also in the state's photo)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from photos import reading
from tests.games.ws_helpers import ask, receive, tear_down, two_players
from tests.photos.helpers import FakeReader, png_bytes, upload
from vision.errors import ModelError

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
async def _close_sockets():
    yield
    await tear_down()


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    """Photos are read on a thread of their own, as without a broker: the upload answers
    at once while the reading waits for the load."""
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PHOTOS_READ_IN_THREAD = True
    settings.PHOTOS_PRELOAD_READER = True  # as bin/start (the tests' settings turn it off)


class SteppedProgress:
    """Stands for ``reading.LoadProgress``: the test says how far the load is."""

    def __init__(self) -> None:
        self.value = 0

    def percent(self) -> int:
        return self.value


class Load:
    """A reader load the test holds and releases (``_load_reader``), and the order of what
    the reading thread did: ``load``, ``read``, ``warm_up``."""

    def __init__(self, monkeypatch) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.progress = SteppedProgress()
        self.done: list[str] = []
        self.reader = FakeReader()
        original_read = self.reader.read

        def read(source, **kwargs):
            self.done.append("read")
            return original_read(source, **kwargs)

        monkeypatch.setattr(self.reader, "read", read)
        monkeypatch.setattr(self.reader, "warm_up", lambda: self.done.append("warm_up"))
        monkeypatch.setattr(reading, "_reader", None)
        monkeypatch.setattr(reading, "_load_progress", self.progress)
        monkeypatch.setattr(reading, "_load_reader", self.load)
        monkeypatch.setattr(reading, "PROGRESS_EVERY_SECONDS", 0.02)

    def load(self) -> FakeReader:
        self.started.set()
        assert self.release.wait(30), "the test never released the load"
        self.done.append("load")
        reading._reads_since_load = 0
        return self.reader


@pytest.fixture
def load(monkeypatch):
    held = Load(monkeypatch)
    yield held
    held.release.set()  # a failing test must not leave the reading thread waiting


async def next_board_event(comm) -> dict:
    while True:
        message = await receive(comm)
        if message["type"].startswith("board."):
            return message


async def wait_for(condition) -> None:
    for _ in range(400):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("never happened")


async def test_the_room_hears_the_reader_being_readied(load):
    ann, bob = await two_players()
    load.progress.value = 12
    response = await upload(bob.client, bob.code, png_bytes(), name="b.png")
    assert response.status_code == 202
    photo_id = response.json()["photo"]["id"]

    event = await next_board_event(ann.comm)
    assert event == {**event, "type": "board.reading", "photo_id": photo_id}
    assert event["reader_progress"] == 12
    state = (await ask(bob.comm, "sync"))["state"]  # a reload shows it too
    assert state["photo"]["status"] == "reading" and state["photo"]["reader_progress"] == 12

    load.progress.value = 14  # under PROGRESS_STEP: not worth an event
    load.progress.value = 60
    event = await next_board_event(ann.comm)
    assert (event["type"], event["reader_progress"]) == ("board.reading", 60)

    load.release.set()
    event = await next_board_event(ann.comm)
    assert (event["type"], event["reader_progress"]) == ("board.reading", None)  # reading now
    event = await next_board_event(ann.comm)
    assert event["type"] == "board.read" and event["photo_id"] == photo_id
    state = (await ask(bob.comm, "sync"))["state"]
    assert state["photo"]["status"] == "read" and state["photo"]["reader_progress"] is None


async def test_a_photo_during_the_preload_waits_for_the_load_only(load):
    """The preload's warm-up goes behind the photo that came during the load; once that
    photo is read there is nothing left to warm up."""
    ready = threading.Event()
    reading.preload_reader(on_ready=ready.set)
    assert await asyncio.to_thread(load.started.wait, 10)
    ann, _ = await two_players()
    response = await upload(ann.client, ann.code, png_bytes(), name="b.png")
    assert response.status_code == 202
    event = await next_board_event(ann.comm)
    assert event["type"] == "board.reading" and event["reader_progress"] == 0
    load.release.set()
    while event["type"] == "board.reading":
        event = await next_board_event(ann.comm)
    assert event["type"] == "board.read"
    assert await asyncio.to_thread(ready.wait, 10)
    assert load.done == ["load", "read"]  # no warm-up before (or after) the photo


async def test_a_photo_slow_to_reach_the_reading_queue_still_skips_the_warm_up(load, monkeypatch):
    """The room heard "reading" during the load, but the photo reaches the reading thread's
    queue only after the load ended: the warm-up still gives way to it."""
    ready = threading.Event()

    def memory_after_the_preload(room):
        assert ready.wait(10), "the preload never finished"  # the warm-up's turn came first
        return None

    monkeypatch.setattr(reading, "_memory_source", memory_after_the_preload)
    reading.preload_reader(on_ready=ready.set)
    assert await asyncio.to_thread(load.started.wait, 10)
    ann, _ = await two_players()
    response = await upload(ann.client, ann.code, png_bytes(), name="b.png")
    assert response.status_code == 202
    event = await next_board_event(ann.comm)
    assert event["type"] == "board.reading"
    load.release.set()
    while event["type"] == "board.reading":
        event = await next_board_event(ann.comm)
    assert event["type"] == "board.read"
    assert load.done == ["load", "read"]


async def test_without_photos_the_preload_warms_the_reader_up(load):
    ready = threading.Event()
    reading.preload_reader(on_ready=ready.set)
    load.release.set()
    assert await asyncio.to_thread(ready.wait, 10)
    assert load.done == ["load", "warm_up"]
    await wait_for(lambda: reading.reader_progress() is None)


def test_the_load_progress_creeps_within_a_step_and_never_goes_back(monkeypatch):
    """Each step's share is reached only when the step is done; a slow machine shows a
    slow figure, never 100 before the reader is loaded."""
    now = [1000.0]
    monkeypatch.setattr(reading.time, "monotonic", lambda: now[0])
    progress = reading.LoadProgress()
    assert progress.percent() == 0  # not started
    progress.start_step("tensorflow")
    seen = [progress.percent()]
    for seconds in (0.5, 1, 2, 4, 30, 600):
        now[0] = 1000.0 + seconds
        seen.append(progress.percent())
    assert seen == sorted(seen) and seen[0] == 0
    tensorflow_share = round(100 * reading.LOAD_STEPS[0][1])
    assert seen[-1] < tensorflow_share
    progress.start_step("models")
    assert progress.percent() == tensorflow_share
    now[0] += 600
    assert tensorflow_share < progress.percent() <= 99
    progress.stop()  # the load failed: the next photo starts it again
    assert progress.percent() == 0


async def test_a_load_that_fails_answers_the_room_and_the_next_photo_loads_again(load, monkeypatch):
    def broken() -> FakeReader:
        raise ModelError("model file missing: models/dice_detector.keras")

    monkeypatch.setattr(reading, "_load_reader", broken)
    ann, _ = await two_players()
    await upload(ann.client, ann.code, png_bytes(), name="b.png")
    event = await next_board_event(ann.comm)
    assert (event["type"], event["reader_progress"]) == ("board.reading", 0)
    event = await next_board_event(ann.comm)  # no "ready" in between: it never was
    assert (event["type"], event["code"]) == ("board.unreadable", "unavailable")

    monkeypatch.setattr(reading, "_load_reader", load.load)
    load.release.set()
    response = await upload(ann.client, ann.code, png_bytes(), name="b.png")
    photo_id = response.json()["photo"]["id"]
    event = await next_board_event(ann.comm)
    while event["type"] == "board.reading":
        event = await next_board_event(ann.comm)
    assert event["type"] == "board.read" and event["photo_id"] == photo_id
