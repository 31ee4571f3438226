"""Where the board is in a camera's preview (docs/api.md, "The camera's preview"): the camera
view of the room's and the Solve page's photo button (static/js/lib/camera.js) sends a small
JPEG of what the camera sees about once a second, and draws the outline answered over the
video, or says what to change; with the board found and the picture steady it takes the
photo itself, which then goes the usual way (``photos.api``, ``photos.solo_api``).

``POST /api/photos/preview`` needs no room (the Solve page has none) and stores nothing. Only
the reader's detector runs (``BoardReader.find_grid``: the grid of dice, never the
dice's letters), on the thread that reads the photos (``photos.reading``), so a preview
neither holds up the event loop nor the one thread of the site's other views, and waits its
turn behind the photos being read. It is no open tap on the CPU: a body of at most
``MAX_PREVIEW_BYTES`` and a picture of at most ``MAX_PREVIEW_PIXELS`` (a page sends some
640x480, 20-60 kB: 30 ms of the detector for a board it finds, up to 0.5 s on a busy table
where it finds none, on the reading thread's lower CPU priority), ``PREVIEW_RATE`` per
address, and at most ``PREVIEWS_AT_ONCE`` in this process, waiting or being looked at
(beyond: 429 at once).

It runs where the web process reads photos itself (the embedded default, ``bin/start``): a
site whose photos are read by Celery workers does not load the reader in its web processes
(some hundreds of MB each), and answers ``unavailable``; the camera view then guides from
what the page measures itself and the photographer takes the picture.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from photos import reading
from photos.api import check_photo
from photos.exceptions import PhotoTooLarge
from vision.errors import BoardNotFoundError, ModelError, VisionError
from vision.loading import load_photo
from web import throttle
from web.errors import ClientError, RateLimited
from web.json_api import error_response
from web.threads import in_thread

logger = logging.getLogger(__name__)

# Largest preview accepted, in bytes: a page sends its camera's picture at 640 pixels on the
# longer side as a JPEG of quality 0.7 (20-60 kB); a busy scene at that size stays well
# under. Declared to web.body_limit (photos.apps), which refuses a larger body from its
# headers before it is read.
MAX_PREVIEW_BYTES = 300_000
# Largest picture, in pixels (after the header is read, before any decoding): 1280x960.
# The detector's cost grows with the pixels it shrinks; a preview needs no more.
MAX_PREVIEW_PIXELS = 1280 * 960
# Previews per address: a camera view asks once a second; two phones behind one address
# (a family, each on the Solve page) fit, a script asking in a loop does not.
PREVIEW_RATE = throttle.Limit(
    "board_preview", 120, 4, gettext_lazy("too many camera previews sent from your address")
)
# Previews in this process at once, waiting for the reading thread or being looked at: a
# preview holds up the photos being read 30 ms to 0.5 s each, never a queue of them.
PREVIEWS_AT_ONCE = 2

_in_flight = 0
_in_flight_lock = threading.Lock()
# Whether this process already asked its reading thread to load the reader for a preview.
_load_asked = False


def previews_here() -> bool:
    """Whether this process reads photos itself, so may look at previews: where Celery
    workers read them (production), its web processes do not load the reader for this."""
    return bool(settings.CELERY_TASK_ALWAYS_EAGER)


@csrf_exempt
@require_http_methods(["POST"])
async def board_preview(request: HttpRequest) -> JsonResponse:
    """Whether and where the camera's preview (the multipart field ``photo``) shows a board:
    ``{"found": true, "rows", "cols", "corners", "width", "height"}`` (corners in the
    preview's pixels, clockwise from the board's top left) or ``{"found": false, "code",
    "message", ...}``. Errors as the JSON API's (``web.json_api``)."""
    try:
        data = await in_thread(_checked_preview)(request)
        if not previews_here():
            return JsonResponse(_not_found("unavailable", _unavailable()))
        progress = reading.reader_progress()
        if progress is not None:  # the reader is not loaded: ask for it, answer at once
            _ask_for_the_reader()
            return JsonResponse(
                {
                    **_not_found("reader_loading", _("the photo reader is getting ready")),
                    "reader_progress": progress,
                }
            )
        answer = await _look(data)
    except ClientError as error:
        return error_response(error)
    return JsonResponse(answer)


def _checked_preview(request: HttpRequest) -> bytes:
    """The preview's bytes, counted against the address's rate and checked (size, format,
    pixels: from its header only, as a photo is); a ClientError says why not."""
    throttle.take(PREVIEW_RATE, throttle.client_address(request))
    upload = request.FILES.get("photo")
    if upload is not None and (upload.size or 0) > MAX_PREVIEW_BYTES:
        raise PhotoTooLarge(
            _("the preview is %(size)s kB; the limit is %(limit)s kB")
            % {"size": round((upload.size or 0) / 1000), "limit": MAX_PREVIEW_BYTES // 1000}
        )
    _extension, width, height = check_photo(upload)  # invalid, unsupported_image, too_large
    if width * height > MAX_PREVIEW_PIXELS:
        raise PhotoTooLarge(
            _("the preview is %(width)sx%(height)s pixels; send at most %(limit)s pixels")
            % {"width": width, "height": height, "limit": f"{MAX_PREVIEW_PIXELS:,}"}
        )
    assert upload is not None  # check_photo refuses a missing field
    return upload.read()


async def _look(data: bytes) -> dict[str, Any]:
    """The detector's answer on the reading thread, at most PREVIEWS_AT_ONCE at a time."""
    global _in_flight
    with _in_flight_lock:
        if _in_flight >= PREVIEWS_AT_ONCE:
            raise RateLimited(_("the photo reader is busy; the next preview will be looked at"))
        _in_flight += 1
    try:
        # The reading thread (photos.reading): one at a time, behind the photos being read.
        future = reading.on_reading_thread(_find_board, data)
        return await asyncio.wrap_future(future)
    finally:
        with _in_flight_lock:
            _in_flight -= 1


def _find_board(data: bytes) -> dict[str, Any]:
    """On the reading thread: the grid of dice in ``data``, or why none was found."""
    photo = None
    try:
        photo = load_photo(data, max_pixels=MAX_PREVIEW_PIXELS)
        height, width = photo.pixels.shape[:2]
        size = {"width": width, "height": height}
        # The reader's own search for the grid, dark copy and negative included, without
        # reading the dice: the first step of its readings, so a preview sees as they do.
        fit, _pixels = reading.get_reader().find_grid(photo.pixels)
        corners = photo.to_full(fit.grid.corners())
        return {
            "found": True,
            "rows": fit.grid.rows,
            "cols": fit.grid.cols,
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in corners],
            **size,
        }
    except ModelError as error:
        logger.error("board previews unavailable: %s", error)
        return _not_found("unavailable", _unavailable())
    except VisionError as error:
        details = reading.failure_details(error)
        message = str(error)
        if isinstance(error, BoardNotFoundError):
            message += f"; {error.advice}"
        answer = {**_not_found(details.pop("code"), message), **details}
        if photo is not None:
            answer.update(width=photo.pixels.shape[1], height=photo.pixels.shape[0])
        return answer
    except Exception:  # a bug here must still answer the page, which asks again
        logger.exception("a board preview could not be looked at")
        return _not_found("failed", "the preview could not be looked at")


def _not_found(code: str, message: str) -> dict[str, Any]:
    return {"found": False, "code": code, "message": message}


def _unavailable() -> str:
    return _("this server does not look at camera previews; take the picture yourself")


def _ask_for_the_reader() -> None:
    """Load the reader on the reading thread (once: a load that failed may be asked again),
    as a photo would: the camera's picture is coming."""
    global _load_asked
    with _in_flight_lock:
        if _load_asked:
            return
        _load_asked = True

    def loaded(future: Any) -> None:
        global _load_asked
        if future.exception() is not None:
            logger.error("loading the reader for previews failed: %s", future.exception())
            with _in_flight_lock:
                _load_asked = False

    reading.on_reading_thread(reading.get_reader).add_done_callback(loaded)
