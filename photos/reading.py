"""Reading a stored board photo with ``vision`` and telling the room what it says.

The ``BoardReader`` (TensorFlow models) is loaded once per process under a lock: when a
process that reads photos starts (``preload_reader``), else on first use; web processes that
only accept uploads never load it.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.conf import settings
from django.db import transaction

from games import events
from photos.models import BoardPhoto
from vision.confidence import DOUBTFUL_BELOW
from vision.errors import (
    BoardNotFoundError,
    ClutteredPhotoError,
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

logger = logging.getLogger(__name__)

# Readings run at a lower CPU priority than the rest of the process (the TensorFlow threads
# they start inherit it): in a web process, answering players' words comes first.
READER_NICENESS = 10

_reader = None
_reader_lock = threading.Lock()


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
                from vision.recognize import BoardReader

                _reader = BoardReader()
    return _reader


def preload_reader(on_ready: Callable[[], None] | None = None) -> None:
    """Load and warm up the reader in a background thread, unless ``PHOTOS_PRELOAD_READER``
    is off; then call ``on_ready``. A failure is logged: photos then load it on first use."""
    if not getattr(settings, "PHOTOS_PRELOAD_READER", True):
        return

    def load() -> None:
        try:
            get_reader().warm_up()
        except Exception:
            logger.exception("preloading the board reader failed; the first photo will load it")
            return
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
    with transaction.atomic():
        photo = _locked_photo(photo_id)
        if photo is None or photo.status in (BoardPhoto.Status.READ, BoardPhoto.Status.FAILED):
            return False
        photo.status = BoardPhoto.Status.READING
        photo.save(update_fields=["status"])
        events.emit_to_room(photo.room, "board.reading", {"photo_id": photo.pk})
    try:
        with photo.image.open("rb") as handle:
            data = handle.read()
        result = read_bytes(data, photo.room.rows)
    except VisionError as error:
        return _finish(photo_id, error=_user_message(error), failure=failure_details(error))
    except OSError:
        logger.exception("board photo %s: the stored file cannot be read", photo_id)
        return _finish(
            photo_id,
            error="the photo was lost on the server; please upload it again",
            failure={"code": "lost"},
        )
    except Exception:  # a bug in reading must still answer the room
        logger.exception("board photo %s could not be read", photo_id)
        return _finish(
            photo_id,
            error="the photo could not be read; please try another",
            failure={"code": "failed"},
        )
    return _finish(photo_id, result=result)


def read_bytes(data: bytes, room_side: int) -> dict[str, Any]:
    """The JSON-ready reading of a photo's bytes, with its board notation and a size note."""
    reading = _reading_threads.submit(_read, data).result()
    result = reading.as_dict()
    result["board"] = reading.text()
    result["filled"] = reading.filled
    result["doubtful"] = [[value < DOUBTFUL_BELOW for value in row] for row in reading.confidence]
    result["note"] = size_note(reading.rows, reading.cols, room_side)
    return result


def _read(data: bytes) -> Any:
    try:
        return get_reader().read(data)
    finally:
        release_free_memory()


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
    return BoardPhoto.objects.select_for_update().select_related("room").filter(pk=photo_id).first()


def _finish(
    photo_id: int, result: dict | None = None, error: str = "", failure: dict | None = None
) -> bool:
    with transaction.atomic():
        photo = _locked_photo(photo_id)
        if photo is None or photo.status != BoardPhoto.Status.READING:
            return False  # deleted meanwhile, or another worker finished it
        if result is not None:
            photo.status, photo.result = BoardPhoto.Status.READ, result
            photo.save(update_fields=["status", "result"])
            events.emit_to_room(photo.room, "board.read", {"photo_id": photo.pk, **result})
        else:
            photo.status, photo.error = BoardPhoto.Status.FAILED, error
            photo.save(update_fields=["status", "error"])
            events.emit_to_room(
                photo.room,
                "board.unreadable",
                {"photo_id": photo.pk, "message": error, **(failure or {"code": "unreadable"})},
            )
    return True
