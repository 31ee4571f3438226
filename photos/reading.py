"""Reading a stored board photo with ``vision`` and telling the room what it says.

The ``BoardReader`` (TensorFlow models) is loaded once per process under a lock: when a
process that reads photos starts (``preload_reader``), else on first use; web processes that
only accept uploads never load it. A photo that comes while the reader loads waits for the
load only (the warm-up that follows a preload goes behind it), and the room hears how far
the load is (``board.reading`` with ``reader_progress``).

A reading survives the death of the process reading it: its task goes back to the queue
(``photos.tasks``) and the next attempt reads the photo again, one attempt at a time (on
PostgreSQL an advisory lock that dies with its process: ``_reading_lock``), at most
``MAX_READ_ATTEMPTS`` times; a reading that outlives ``READ_HARD_LIMIT_SECONDS`` is failed
by ``photos.stuck``. The room hears one outcome, ``board.read`` or ``board.unreadable``.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import gc
import importlib
import logging
import math
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from games import events
from games.models import Room
from photos import metrics as photo_metrics
from photos.models import BoardPhoto
from vision.confidence import DOUBTFUL_BELOW
from vision.errors import (
    BoardNotFoundError,
    ClutteredPhotoError,
    CornersError,
    CorruptImageError,
    DiceCountError,
    DiceTooSmallError,
    GridNotFoundError,
    ImageTooLargeError,
    ImageTooSmallError,
    ModelError,
    NotAnImageError,
    VisionError,
)
from vision.memory import SetMemory
from web import health

logger = logging.getLogger(__name__)

# One dice set's dice, each die its six faces (``solver.dice.DiceSet.dice``).
Dice = tuple[tuple[str, ...], ...]

# How long one attempt at reading a photo may take in a worker (seconds; photos.tasks): at
# the soft limit the room hears board.unreadable, at the hard one the worker kills the
# process. A reading takes 0.1 to 2 s, the reader's load 2.5 s of CPU (longer on a busy
# machine); the room's page gives up waiting after 120 s (static/js/room/photo.js).
READ_SOFT_LIMIT_SECONDS = 60
READ_HARD_LIMIT_SECONDS = 75
# Attempts at one reading: a worker that died mid-read gives the photo back to the queue,
# and the next attempt reads it again; the photo of a reading that already took this many
# is failed instead of read, as it may be what kills the workers (memory, a crash).
MAX_READ_ATTEMPTS = 2
# The PostgreSQL advisory locks of photo readings: (this number, the photo's id).
READING_LOCK_SPACE = 0x50484F54  # "PHOT"
# What the room hears of a reading that failed for no fault of the photo's that we know of.
FAILED_MESSAGE = "the photo could not be read; please try another"

# Readings run at a lower CPU priority than the rest of the process (the TensorFlow threads
# they start inherit it): in a web process, answering players' words comes first.
READER_NICENESS = 10

_reader = None
_reader_lock = threading.Lock()


def _no_memory(room: Room) -> SetMemory | None:
    return None


# What the reader knows of a room's dice set (its confirmed dice): the dice-sets app sets
# this at start (``set_memory_source``); photos does not import the apps above it.
_memory_source: Callable[[Room], SetMemory | None] = _no_memory


def set_memory_source(source: Callable[[Room], SetMemory | None]) -> None:
    """Read each room's photos with ``source(room)``'s memory (``vision.memory``)."""
    global _memory_source
    _memory_source = source


def _no_dice(room: Room) -> list[Dice]:
    return []


# The dice of the sets a room's set could be (the dice-sets app sets this at start): its
# photos are checked against them (``vision.dice_check``).
_dice_source: Callable[[Room], list[Dice]] = _no_dice


def set_dice_source(source: Callable[[Room], list[Dice]]) -> None:
    """Check each room's photos against the dice of ``source(room)``'s sets."""
    global _dice_source
    _dice_source = source


def prepare_memory(room: Room) -> None:
    """Compare-ready the room's memory now (its exemplars' features, some 100 ms for a full
    set), on the reading thread, when this process has its reader loaded: called after a
    board was confirmed, so that the next photo does not wait for it."""
    memory = _memory_source(room)
    if memory is None or _reader is None:
        return
    reader = _reader

    def prepare() -> None:
        try:
            reader.classifier.exemplar_features(memory)
        except Exception:
            logger.exception("preparing a dice set's memory failed; the next photo will")

    _reading_threads.submit(prepare)


# The reader's load, step by step: (name, share of the progress figure, usual seconds on a
# 2-core machine, idle: importing TensorFlow 1.9 s, both models 0.4 s). Within a step the
# figure creeps towards the step's end as time passes and only reaches it when the step is
# done: a slower machine shows a slower figure, never a false "done".
LOAD_STEPS = (("tensorflow", 0.8, 2.0), ("models", 0.2, 0.5))
# While a photo waits for the load, the room hears the figure every so often (seconds),
# when it moved at least this much (percentage points).
PROGRESS_EVERY_SECONDS = 0.5
PROGRESS_STEP = 5


class LoadProgress:
    """How far this process's reader load is, for the photos waiting for it (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._step: int | None = None
        self._step_started = 0.0

    def start_step(self, name: str) -> None:
        with self._lock:
            self._step = [step[0] for step in LOAD_STEPS].index(name)
            self._step_started = time.monotonic()

    def stop(self) -> None:
        """The load failed: back to not started."""
        with self._lock:
            self._step = None

    def percent(self) -> int:
        """0 to 99: the share of the load done (0 before it starts)."""
        with self._lock:
            if self._step is None:
                return 0
            done = sum(share for _, share, _ in LOAD_STEPS[: self._step])
            _, share, usual = LOAD_STEPS[self._step]
            elapsed = time.monotonic() - self._step_started
        figure = int(100 * (done + share * (1 - math.exp(-elapsed / usual))))
        return min(figure, round(100 * (done + share)) - 1, 99)


_load_progress = LoadProgress()
# Photos read since the reader was loaded: a preload's warm-up is for a reader that has
# read none yet (a photo that came during the load already warmed it up).
_reads_since_load = 0
# Photos this process has taken in hand (from the moment the room hears "reading") and not
# finished: the preload's warm-up also gives way to these, since one may not have reached
# the reading thread's queue yet when the load ends.
_photos_in_hand = 0
_photos_in_hand_lock = threading.Lock()


@contextlib.contextmanager
def _photo_in_hand():
    global _photos_in_hand
    with _photos_in_hand_lock:
        _photos_in_hand += 1
    try:
        yield
    finally:
        with _photos_in_hand_lock:
            _photos_in_hand -= 1


def _lower_priority() -> None:
    with contextlib.suppress(AttributeError, OSError):  # not on every platform
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), READER_NICENESS)


# The threads that decode and read photos in this process (each reading takes up to some
# 70 MB, see vision.loading); more photos wait their turn. Always the same threads: the C
# allocator keeps memory per thread, so readings on ever new threads (a web process reads
# in threads when there is no broker) each left their memory behind. Two at once are no
# faster on a small machine: TensorFlow already spreads one reading over the cores.
_reading_threads = ThreadPoolExecutor(
    max_workers=getattr(settings, "PHOTOS_READS_AT_ONCE", 1),
    thread_name_prefix="board-reader",
    initializer=_lower_priority,
)


def on_reading_thread(work: Callable[..., Any], *args: Any) -> Future[Any]:
    """Run ``work(*args)`` on the reading thread, in turn with the photos being read."""
    return _reading_threads.submit(work, *args)


def _load_libc() -> Any:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc if hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


# glibc's allocator, for malloc_trim (see release_free_memory); None elsewhere.
_libc = _load_libc()


def get_reader():
    """The process's ``BoardReader``, loaded on first call (thread-safe)."""
    global _reader
    if _reader is None:
        with _reader_lock:
            if _reader is None:
                _reader = _load_reader()
    return _reader


def _load_reader() -> Any:
    """A new ``BoardReader``, saying how far the load is in ``_load_progress``."""
    global _reads_since_load
    try:
        # Importing TensorFlow (under Keras) is most of the load: on its own first, so that
        # the progress can tell it from the models. Quiet, as vision.runtime keeps it.
        _load_progress.start_step("tensorflow")
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        importlib.import_module("keras")
        _load_progress.start_step("models")
        from vision.recognize import BoardReader

        reader = BoardReader()
    except BaseException:
        _load_progress.stop()  # the next photo starts the load again, from 0
        raise
    # Loaded: the figure stays where it is (never back to 0) until _reader is set.
    _reads_since_load = 0
    return reader


def import_reader_libraries() -> None:
    """Import TensorFlow (under Keras) and the reader's code, without loading the models:
    in a Celery worker's main process before it forks its pool, so that the children share
    these pages instead of each importing its own (some 150 MB less per child, and a load
    of 1.2 s instead of 4). The models must load in each child: TensorFlow's threads do
    not survive a fork, and a reader loaded before it hangs on its first photo."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    importlib.import_module("keras")
    importlib.import_module("vision.recognize")
    # Out of the collector's sight: a child's collection would otherwise write to every
    # object it walks, and copy the pages it meant to share (Python's gc.freeze advice).
    gc.freeze()
    release_free_memory()


def reader_progress() -> int | None:
    """None when this process's reader is loaded; else how much of its load is done (0-99,
    0 when it has not started: the next reading loads it)."""
    return None if _reader is not None else _load_progress.percent()


def _reader_loaded() -> None:
    if _reader is None:
        raise health.NotReady("loading")


def preload_reader(on_ready: Callable[[], None] | None = None) -> None:
    """Load the reader on the reading thread, unless ``PHOTOS_PRELOAD_READER`` is off, then
    warm it up and call ``on_ready``. The warm-up is queued after the load, behind any photo
    that came meanwhile: a photo never waits for more than the load that remains (and once
    a photo was read, or while one is in hand, there is nothing left to warm up). A failure
    is logged: photos then load the reader on first use."""
    if not getattr(settings, "PHOTOS_PRELOAD_READER", True):
        return
    health.add_check("reader", _reader_loaded)  # /readyz: ready once loaded

    def load() -> None:
        try:
            get_reader()
        except Exception:
            logger.exception("preloading the board reader failed; the first photo will load it")
            return
        _reading_threads.submit(warm_up)

    def warm_up() -> None:
        if _reads_since_load == 0 and _photos_in_hand == 0:
            try:
                get_reader().warm_up()
            except Exception:
                logger.exception("warming the board reader up failed")
        release_free_memory()
        logger.info("board reader loaded")
        if on_ready is not None:
            on_ready()

    _reading_threads.submit(load)


def release_free_memory() -> None:
    """Hand the memory a reading freed back to the system (glibc keeps it otherwise, and
    the process's size would stay at its peak); nothing where there is no glibc."""
    if _libc is not None:
        _libc.malloc_trim(0)


def size_note(rows: int, cols: int, room_side: int) -> str:
    """A note for the page when the photo's board does not fit the room ("" when it does)."""
    if rows == cols == room_side:
        return ""
    return (
        f"the photo shows a {rows}x{cols} board but this room plays {room_side}x{room_side}: "
        f"the host can change the board size in the settings, then use it"
    )


def do_read_photo(photo_id: int) -> bool:
    """Read one photo and store the result. Idempotent: False if gone or already done."""
    with _photo_in_hand():
        return _read_photo(photo_id)


@contextlib.contextmanager
def _reading_lock(photo_id: int):
    """Yields whether this process may read the photo now: on PostgreSQL, whether it got
    the photo's advisory lock (held until the block ends, or released by the server when
    the process dies with its connection); elsewhere (SQLite: no workers, no redelivery)
    always."""
    if connection.vendor != "postgresql":
        yield True
        return
    key = (READING_LOCK_SPACE, photo_id % 2**31)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", key)
        locked = bool(cursor.fetchone()[0])
    try:
        yield locked
    finally:
        if locked:
            # A connection lost meanwhile took the lock with it.
            with contextlib.suppress(DatabaseError), connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s, %s)", key)


def _read_photo(photo_id: int) -> bool:
    with _reading_lock(photo_id) as ours:
        if not ours:  # another process reads it now (a task delivered twice)
            return False
        photo = _start_attempt(photo_id)
        if photo is None:
            return False
        return _read_started(photo)


def _start_attempt(photo_id: int) -> BoardPhoto | None:
    """Mark the photo as being read (the room hears ``board.reading``) and count the
    attempt; None if it is gone, done, or failed here for its attempts."""
    with transaction.atomic():
        photo = _locked_photo(photo_id)
        if photo is None or photo.status in (BoardPhoto.Status.READ, BoardPhoto.Status.FAILED):
            return None
        # Still "reading": an attempt died with its worker (no one holds the lock).
        photo.read_attempts += 1
        given_up = photo.read_attempts > MAX_READ_ATTEMPTS
        if given_up:
            logger.error(
                "board photo %s: %s attempts at reading it died; failing it",
                photo_id,
                MAX_READ_ATTEMPTS,
            )
            _store_outcome(photo, error=FAILED_MESSAGE, failure={"code": "failed"})
        else:
            photo.status, photo.reader_progress = BoardPhoto.Status.READING, reader_progress()
            photo.reading_started_at = timezone.now()
            photo.save(
                update_fields=["status", "reader_progress", "reading_started_at", "read_attempts"]
            )
            _tell_room(
                photo,
                "board.reading",
                {"photo_id": photo.pk, "reader_progress": photo.reader_progress},
            )
    if given_up:
        photo_metrics.reading_finished(photo)  # as _finish counts an outcome
        return None
    return photo


def _read_started(photo: BoardPhoto) -> bool:
    photo_id = photo.pk
    room = photo.room
    try:
        with photo.image.open("rb") as handle:
            data = handle.read()
        result = read_bytes(
            data,
            room.rows if room is not None else None,
            side=photo.side,
            corners=photo.corners,
            on_wait=lambda progress: _report_progress(photo_id, progress),
            told_progress=photo.reader_progress,
            # The Solve page's photos are read with what the reader knows of every set:
            # no room's dice set, so no room's corrections reach a stranger's board.
            memory=_memory_source(room) if room is not None else None,
            dice_sets=_dice_source(room) if room is not None else [],
        )
    except VisionError as error:
        return _finish(photo_id, error=_user_message(error), failure=failure_details(error))
    except SoftTimeLimitExceeded:
        logger.error(
            "board photo %s: not read within %s s; failing it", photo_id, READ_SOFT_LIMIT_SECONDS
        )
        return _finish(photo_id, error=FAILED_MESSAGE, failure={"code": "failed"})
    except OSError:
        logger.exception("board photo %s: the stored file cannot be read", photo_id)
        return _finish(
            photo_id,
            error="the photo was lost on the server; please upload it again",
            failure={"code": "lost"},
        )
    except Exception:  # a bug in reading must still answer the room
        logger.exception("board photo %s could not be read", photo_id)
        return _finish(photo_id, error=FAILED_MESSAGE, failure={"code": "failed"})
    return _finish(photo_id, result=result)


def read_bytes(
    data: bytes,
    room_side: int | None,
    side: int | None = None,
    corners: list[list[float]] | None = None,
    on_wait: Callable[[int | None], None] | None = None,
    memory: SetMemory | None = None,
    told_progress: int | None = None,
    dice_sets: Sequence[Dice] = (),
) -> dict[str, Any]:
    """The JSON-ready reading of a photo's bytes, with its board notation and a size note
    (none without a room: ``room_side`` None).

    ``corners`` (full-size photo pixels, clockwise from the board's top left) and ``side``
    read the dice inside them, without looking for the board. ``memory``: the dice set's
    confirmed dice, read with; ``dice_sets``: the dice of the sets the board may be from,
    checked against (``vision.dice_check``). While the reading waits for the reader's load,
    ``on_wait`` hears how far the load is (``reader_progress``) every
    ``PROGRESS_EVERY_SECONDS`` it moved, and None once the reader is ready;
    ``told_progress``: the figure the waiting room was last told (the reader's progress now
    if not given), which the next one must pass: the load moves on while this thread gets
    here.
    """
    ready = threading.Event()  # set on the reading thread once the reader is loaded
    future = _reading_threads.submit(_read, data, side, corners, ready, memory, dice_sets)
    reported = reader_progress() if told_progress is None else told_progress
    if on_wait is not None and reported is not None:
        while not ready.wait(PROGRESS_EVERY_SECONDS) and not future.done():
            progress = reader_progress()
            if progress is not None and progress - reported >= PROGRESS_STEP:
                on_wait(progress)
                reported = progress
        if ready.is_set():
            on_wait(None)  # ready: the photo is being read now (else the load failed)
    reading = future.result()
    result = reading.as_dict()
    result["board"] = reading.text()
    result["filled"] = reading.filled
    result["doubtful"] = [[value < DOUBTFUL_BELOW for value in row] for row in reading.confidence]
    result["note"] = "" if room_side is None else size_note(reading.rows, reading.cols, room_side)
    return result


def _read(
    data: bytes,
    side: int | None = None,
    corners: list[list[float]] | None = None,
    ready: threading.Event | None = None,
    memory: SetMemory | None = None,
    dice_sets: Sequence[Dice] = (),
) -> Any:
    global _reads_since_load
    reader = get_reader()
    if ready is not None:
        ready.set()
    try:
        if corners is None:
            return reader.read(data, memory=memory, dice_sets=dice_sets)
        return reader.read(data, size=side, corners=corners, memory=memory, dice_sets=dice_sets)
    finally:
        _reads_since_load += 1
        release_free_memory()


def _report_progress(photo_id: int, progress: int | None) -> None:
    """Tell the room how far the reader's load is while this photo waits for it."""
    with transaction.atomic():
        photo = _locked_photo(photo_id)
        if photo is None or photo.status != BoardPhoto.Status.READING:
            return
        if photo.reader_progress == progress:
            return
        photo.reader_progress = progress
        photo.save(update_fields=["reader_progress"])
        _tell_room(photo, "board.reading", {"photo_id": photo.pk, "reader_progress": progress})


def _user_message(error: VisionError) -> str:
    if isinstance(error, ModelError):
        logger.error("board reading unavailable: %s", error)
        return "reading boards from photos is not available on this server right now"
    message = str(error)
    if isinstance(error, BoardNotFoundError):  # no board in a valid picture: what to change
        message += f"; {error.advice}"
    return message


# Each kind of failure's code, most specific first: the room's pages say it in their own
# language (static/js/room/photo.js), as the English message goes to the whole room.
_FAILURE_CODES: tuple[tuple[type[VisionError], str], ...] = (
    (ModelError, "unavailable"),
    (CornersError, "corners"),
    (ClutteredPhotoError, "cluttered"),
    (GridNotFoundError, "no_grid"),
    (DiceTooSmallError, "dice_too_small"),
    (DiceCountError, "dice_count"),
    (BoardNotFoundError, "no_board"),
    (NotAnImageError, "not_an_image"),
    (CorruptImageError, "damaged"),
    (ImageTooLargeError, "too_large"),
    (ImageTooSmallError, "too_small"),
)


def failure_details(error: VisionError) -> dict[str, Any]:
    """The ``board.unreadable`` event's ``code`` for this failure, with its numbers."""
    code = next((code for kind, code in _FAILURE_CODES if isinstance(error, kind)), "unreadable")
    details: dict[str, Any] = {"code": code}
    if isinstance(error, DiceCountError):
        details.update(found=error.found, expected=list(error.expected))
    return details


def _locked_photo(photo_id: int) -> BoardPhoto | None:
    """The photo row, locked until the transaction ends; None if it was deleted."""
    # Only the photo's row: a Solve page photo has no room, and PostgreSQL refuses FOR
    # UPDATE on the nullable side of the outer join select_related makes.
    return (
        BoardPhoto.objects.select_for_update(of=("self",))
        .select_related("room")
        .filter(pk=photo_id)
        .first()
    )


def _being_read(photo: BoardPhoto) -> bool:
    return photo.status == BoardPhoto.Status.READING


def _finish(
    photo_id: int,
    result: dict | None = None,
    error: str = "",
    failure: dict | None = None,
    finishing: Callable[[BoardPhoto], bool] = _being_read,
) -> bool:
    """Store the reading's outcome and tell the room, if the photo (its row locked) is
    still ``finishing``: by default, being read. False if not (deleted meanwhile, or
    finished by another attempt or ``photos.stuck``): the room hears one outcome."""
    with transaction.atomic():
        photo = _locked_photo(photo_id)
        if photo is None or not finishing(photo):
            return False
        _store_outcome(photo, result, error, failure)
    photo_metrics.reading_finished(photo)  # /metrics: outcome and time, from any process
    return True


def fail_reading(photo_id: int, still_stuck: Callable[[BoardPhoto], bool]) -> bool:
    """Fail the photo's reading as an unreadable photo is failed (``board.unreadable``,
    code ``failed``: the room may try again) if ``still_stuck`` says so of its locked row;
    False when it does not (read or failed meanwhile, or an attempt started again)."""
    return _finish(
        photo_id, error=FAILED_MESSAGE, failure={"code": "failed"}, finishing=still_stuck
    )


def _store_outcome(
    photo: BoardPhoto, result: dict | None = None, error: str = "", failure: dict | None = None
) -> None:
    """Save the reading's outcome on the locked row and tell the room (after commit)."""
    photo.reader_progress = None
    if result is not None:
        photo.status, photo.result = BoardPhoto.Status.READ, result
        photo.save(update_fields=["status", "result", "reader_progress", "read_attempts"])
        _tell_room(photo, "board.read", {"photo_id": photo.pk, **result})
    else:
        failure = failure or {"code": "unreadable"}
        photo.status, photo.error, photo.failure = BoardPhoto.Status.FAILED, error, failure
        photo.save(update_fields=["status", "error", "failure", "reader_progress", "read_attempts"])
        _tell_room(photo, "board.unreadable", {"photo_id": photo.pk, "message": error, **failure})


def _tell_room(photo: BoardPhoto, event: str, payload: dict[str, Any]) -> None:
    """Send the photo's room an event (after commit); a Solve page photo has no room, and
    its page asks for the photo instead (``photos.solo_api``)."""
    if photo.room is not None:
        events.emit_to_room(photo.room, event, payload)
