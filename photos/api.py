"""HTTP API for board photos (docs/api.md, "Board from a photo").

``POST /api/rooms/<code>/photos`` stores a player's photo and queues
``photos.tasks.read_board_photo``; the room hears ``board.reading`` then ``board.read`` or
``board.unreadable``. ``GET /api/rooms/<code>/photos/<id>`` returns a photo's state, and
``…/image`` the picture itself, upright, for the page to show. ``POST …/corners`` reads the
photo again inside four corners a player placed by hand.
"""

from __future__ import annotations

import io
import logging
import math
import threading
import warnings
from collections.abc import Awaitable, Callable
from typing import Any, BinaryIO, cast

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import UploadedFile
from django.db import close_old_connections, transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods
from PIL import Image, ImageOps, UnidentifiedImageError

from games import checks
from games.access import find_room, viewer
from games.exceptions import NotAPlayer
from games.models import Player, Room, Round
from games.state_parts import StateView
from photos import budget, metadata
from photos.exceptions import (
    BadCorners,
    PhotoBusy,
    PhotoError,
    PhotoNotFound,
    PhotoOutdated,
    PhotoTooLarge,
    UnsupportedImage,
)
from photos.models import PENDING_FOR_AT_MOST, BoardPhoto
from vision.errors import ImageTooLargeError, NotAnImageError
from vision.loading import (
    MAX_PIXELS,
    MIN_SIDE,
    UnsupportedImageError,
    check_coefficients,
    check_format,
    check_pixels,
)
from web import throttle
from web.errors import ClientError, InvalidInput, RateLimited
from web.json_api import error_response, json_api, read_json
from web.threads import in_thread

logger = logging.getLogger(__name__)

# Largest photo accepted, in bytes (a phone's full-resolution JPEG is 2 to 8 MB).
MAX_UPLOAD_BYTES = 15_000_000
# Photos waiting to be read (uploaded or reading); more get 429 until some are done. Each
# photo may take hundreds of MB to decode and read, so the bounds are per room, per client
# address (one phone cannot fill the queue from several rooms) and for the whole site (a
# normal photo never waits behind a long queue). 429 rather than a longer queue: the phone
# is told at once and retries, instead of waiting silently.
MAX_PENDING_PER_ROOM = 3
MAX_PENDING_PER_ADDRESS = 2
MAX_PENDING_TOTAL = 4
# Photos kept per room, newest first; older ones (and their files) are deleted on upload.
KEEP_PER_ROOM = 3
EXTENSIONS = {"JPEG": "jpg", "PNG": "png", "WEBP": "webp"}
# Board sides a reading by hand may frame (solver.board's square boards).
SIDES = (4, 5, 6)
# Corners placed by hand must give each die at least this many pixels across on average
# (vision.recognize.MIN_DIE_PIXELS: smaller dice cannot be read reliably).
MIN_DIE_PIXELS = 12.0
# The picture ``…/image`` sends: upright, its longer side at most this (pixels), as JPEG of
# this quality. Enough for a phone's screen at 3 device pixels a CSS pixel, and a laptop's.
PREVIEW_SIDE = 1600
PREVIEW_QUALITY = 85
# Previews drawn per address: a page asks once per photo (and keeps it); each costs a
# decode of up to a few hundred milliseconds, which a script asking in a loop would repeat.
PREVIEW = throttle.Limit(
    "photo_preview", 30, 10, gettext_lazy("too many photo previews asked for from your address")
)
# EXIF orientations that turn the picture a quarter (its width and height swap).
QUARTER_TURNS = {5, 6, 7, 8}
EXIF_ORIENTATION = 0x0112


def photo_dict(photo: BoardPhoto) -> dict:
    return {
        "id": photo.pk,
        "status": photo.status,
        "uploaded_by": photo.uploaded_by_id,
        "result": photo.result or None,
        "error": photo.error or None,
        "failure": photo.failure,
        "created_at": int(photo.created_at.timestamp() * 1000),
        "width": photo.width,
        "height": photo.height,
        "corners": photo.corners,
        "size": photo.side,
        "reader_progress": photo.reader_progress,
    }


def latest_photo(room: Room, current: Round | None) -> BoardPhoto | None:
    """The room's latest photo if it was uploaded since the latest round started (or
    before any round): a photo of a board not played yet."""
    photo = room.photos.order_by("-created_at", "-pk").first()
    if photo is None:
        return None
    if (
        current is not None
        and current.starts_at is not None
        and photo.created_at < current.starts_at
    ):
        return None  # a photo of a board already played
    return photo


def pending_photo(room: Room, current: Round | None) -> BoardPhoto | None:
    """The room's latest photo while it still matters (``latest_photo``), and, once read,
    not yet used: the host set no board since it was read (``photos.boards``), and its
    board is not already the next board."""
    photo = latest_photo(room, current)
    if photo is None or photo.status != BoardPhoto.Status.READ:
        return photo
    board = (photo.result or {}).get("board")
    if photo.used_at is not None or (board and board == room.next_board):
        return None  # the host used it
    return photo


def photo_state(view: StateView) -> dict:
    """The room state's ``photo``: a reload or a reconnect shows the photo being read, or
    read and not yet used, again (games.state_parts)."""
    photo = pending_photo(view.room, view.current)
    return {"photo": None if photo is None else photo_dict(photo)}


def _player(request: HttpRequest, room: Room) -> Player:
    player = viewer(request, room)
    if player is None:
        raise NotAPlayer(_("join the room to send a photo of its board"))
    return player


def check_photo(upload: UploadedFile | None) -> tuple[str, int, int]:
    """Refuse what is not a usable picture, from its header only; returns the extension
    and the width and height after EXIF orientation (as the reader and the page see it)."""
    if upload is None:
        raise InvalidInput(_("send the photo as the multipart/form-data field 'photo'"))
    size = cast(int, upload.size)  # Django's upload handlers always set it
    if size > MAX_UPLOAD_BYTES:
        raise PhotoTooLarge(
            _("the file is %(size)s MB; the limit is %(limit)s MB")
            % {"size": f"{size / 1e6:.1f}", "limit": f"{MAX_UPLOAD_BYTES / 1e6:.0f}"}
        )
    # The format comes from the first bytes, never the name or Content-Type, and only its
    # own Pillow plugin may open it (EPS would run Ghostscript).
    try:
        image_format = check_format(upload.read(16))
    except UnsupportedImageError as error:
        raise UnsupportedImage(str(error)) from None
    except NotAnImageError:
        raise InvalidInput(_("the file is not an image (JPEG, PNG, WebP, ...)")) from None
    finally:
        upload.seek(0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(upload, formats=[image_format]) as image:
                width, height = image.size
                check_pixels(width, height, image_format)
                # A large progressive JPEG, which libjpeg holds whole while decoding: told
                # at upload, not after the wait for the reader.
                check_coefficients(image)
                turned = _turns_a_quarter(image)
    except ImageTooLargeError as error:
        raise PhotoTooLarge(str(error)) from None
    except UnidentifiedImageError:
        raise InvalidInput(_("the file is not an image (JPEG, PNG, WebP, ...)")) from None
    except Image.DecompressionBombError:
        raise PhotoTooLarge(
            _("the image has too many pixels (limit %(limit)s)") % {"limit": f"{MAX_PIXELS:,}"}
        ) from None
    except Exception:  # Pillow fails on damaged headers in many ways
        raise InvalidInput(_("the image is damaged and cannot be decoded")) from None
    finally:
        upload.seek(0)
    if min(width, height) < MIN_SIDE:
        raise InvalidInput(
            _(
                "the image is %(width)sx%(height)s pixels; a board photo needs at least %(min)s pixels a side"
            )
            % {"width": width, "height": height, "min": MIN_SIDE}
        )
    if turned:
        width, height = height, width
    return EXTENSIONS[image_format], width, height


def _turns_a_quarter(image: Image.Image) -> bool:
    """Whether the picture's EXIF orientation turns it a quarter, from the EXIF block read
    with the header: never ``getexif()``, which decodes a whole PNG to look for one."""
    raw = image.info.get("exif")
    if not isinstance(raw, bytes) or not raw:
        return False
    try:
        exif = Image.Exif()
        exif.load(raw)
        return exif.get(EXIF_ORIENTATION) in QUARTER_TURNS
    except Exception:  # a damaged EXIF block: Pillow's exif_transpose ignores it too
        return False


def oriented_size(handle: BinaryIO) -> tuple[int, int]:
    """A stored photo's width and height after EXIF orientation, from its header."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        with Image.open(handle, formats=list(EXTENSIONS)) as image:
            width, height = image.size
            return (height, width) if _turns_a_quarter(image) else (width, height)


def client_address(request: HttpRequest) -> str | None:
    """The uploader's address, by the site's one rule (``web.throttle``: Daphne's client,
    or the address the trusted proxy saw)."""
    return throttle.client_address(request) or None


def check_pending(room: Room | None, address: str | None) -> None:
    """Refuse (429) a photo beyond the room's (a room's photo), the address's or the site's
    waiting bound: the Solve page's photos wait in the same queue as the rooms'."""
    pending = BoardPhoto.objects.filter(
        status__in=(BoardPhoto.Status.UPLOADED, BoardPhoto.Status.READING),
        queued_at__gte=timezone.now() - PENDING_FOR_AT_MOST,
    )
    if room is not None and pending.filter(room=room).count() >= MAX_PENDING_PER_ROOM:
        raise RateLimited(_("photos are still being read; wait for them and try again"))
    if address and pending.filter(client_address=address).count() >= MAX_PENDING_PER_ADDRESS:
        raise RateLimited(_("your photos are still being read; wait for them and try again"))
    if pending.count() >= MAX_PENDING_TOTAL:
        raise RateLimited(_("the photo reader is busy; try again in a few seconds"))


def drop_old_photos(room: Room) -> None:
    """Keep the room's KEEP_PER_ROOM newest photos, and any still waiting to be read (at
    most MAX_PENDING_PER_ROOM) so that the room still hears how they read."""
    keep = room.photos.order_by("-created_at", "-pk").values_list("pk", flat=True)
    old = room.photos.exclude(pk__in=list(keep[:KEEP_PER_ROOM])).exclude(
        status__in=(BoardPhoto.Status.UPLOADED, BoardPhoto.Status.READING)
    )
    old.delete()  # one by one, so post_delete removes each file


@json_api
@require_http_methods(["POST"])
def upload_photo(request: HttpRequest, code: str) -> JsonResponse:
    room = find_room(request, code)
    player = _player(request, room)
    try:
        photo = store_upload(request, room, uploaded_by=player)
    except (PhotoError, RateLimited) as error:
        return error_response(error)
    return JsonResponse({"photo": photo_dict(photo)}, status=202)


def store_upload(request: HttpRequest, room: Room | None, **fields: Any) -> BoardPhoto:
    """The request's photo checked (``check_photo``: its header only) against the disk's
    floor, the waiting bounds and the hourly byte budgets (``photos.budget``), stored
    without its metadata (``photos.metadata``: no GPS position) for ``room`` (None: the
    Solve page's) with ``fields`` (who sent it, a key's hash), the room's oldest photos
    dropped, and its reading queued after commit. PhotoError or RateLimited say why not."""
    # A body over the limit never gets here: web.body_limit refuses it (413) before it is
    # read; check_photo refuses a file over the limit in a smaller body.
    upload = request.FILES.get("photo")
    extension, width, height = check_photo(upload)
    stored = _without_metadata(cast(UploadedFile, upload), extension)
    size = len(stored)
    budget.check_free_space(size)
    address = client_address(request)
    check_pending(room, address)
    # Counted before storing, so that parallel uploads cannot all pass; given back when
    # storing fails after all.
    reservation = budget.reserve(address, room.code if room is not None else None, size)
    try:
        with transaction.atomic():
            photo = BoardPhoto(
                room=room, client_address=address, width=width, height=height, **fields
            )
            photo.image.save(f"board.{extension}", ContentFile(stored), save=False)
            photo.save()
            if room is not None:
                drop_old_photos(room)
            photo_id = photo.pk
            transaction.on_commit(lambda: enqueue_read(photo_id))
    except BaseException:
        budget.release(reservation)
        raise
    return photo


def _without_metadata(upload: UploadedFile, extension: str) -> bytes:
    """The photo's bytes as stored: its picture and EXIF orientation only, never where it
    was taken (``photos.metadata``)."""
    image_format = next(name for name, ext in EXTENSIONS.items() if ext == extension)
    try:
        return metadata.without_metadata(upload.read(), image_format)
    except metadata.DamagedImage:
        raise InvalidInput(_("the image is damaged and cannot be decoded")) from None
    finally:
        upload.seek(0)


def _photo_of(room: Room, photo_id: int) -> BoardPhoto:
    photo = BoardPhoto.objects.filter(room=room, pk=photo_id).first()
    if photo is None:
        raise PhotoNotFound(_("no such photo in this room"))
    return photo


@json_api
@require_http_methods(["GET"])
def photo_detail(request: HttpRequest, code: str, photo_id: int) -> JsonResponse:
    room = find_room(request, code)
    _player(request, room)
    try:
        photo = _photo_of(room, photo_id)
    except PhotoError as error:
        return error_response(error)
    return JsonResponse({"photo": photo_dict(photo)})


@require_http_methods(["GET"])
async def photo_image(request: HttpRequest, code: str, photo_id: int) -> HttpResponse:
    """The photo for the page to show under corners placed by hand (``preview_jpeg``)."""
    return await preview_image_response(in_thread(_room_photo_shown), request, code, photo_id)


def _room_photo_shown(request: HttpRequest, code: str, photo_id: int) -> BoardPhoto:
    room = find_room(request, code)
    _player(request, room)
    photo = _photo_of(room, photo_id)
    throttle.take(PREVIEW, throttle.client_address(request))
    return photo


async def preview_image_response(
    find: Callable[..., Awaitable[BoardPhoto]], *args: Any
) -> HttpResponse:
    """The photo ``find(*args)`` gives (it checks who asks, and counts the preview), upright
    (EXIF orientation applied, so its pixels are the coordinates of ``corners`` and
    ``centers``, scaled), at most ``PREVIEW_SIDE`` on its longer side, as a JPEG without
    metadata.

    Decoding a 12-megapixel photo takes a few hundred milliseconds: on a thread of its own,
    never the one thread that runs the site's other views."""
    try:
        photo = await find(*args)
        data = await in_thread(_preview_of)(photo)
    except ClientError as error:
        return error_response(error)
    response = HttpResponse(data, content_type="image/jpeg")
    # A photo's pixels never change: the page may keep it while the photo lasts.
    response["Cache-Control"] = "private, max-age=86400"
    return response


def _preview_of(photo: BoardPhoto) -> bytes:
    try:
        with photo.image.open("rb") as handle:
            return preview_jpeg(handle)
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError):
        logger.warning("board photo %s: the stored file cannot be shown", photo.pk)
        raise PhotoNotFound(_("the photo was lost on the server; please upload it again")) from None


def preview_jpeg(handle: BinaryIO, side: int = PREVIEW_SIDE) -> bytes:
    """The picture in ``handle`` upright and shrunk to ``side`` (JPEG decodes at a reduced
    scale, never the full size), as JPEG bytes with no EXIF left to turn it again."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        with Image.open(handle, formats=list(EXTENSIONS)) as image:
            if image.format == "JPEG":
                image.draft("RGB", (side, side))
            upright = ImageOps.exif_transpose(image)
            picture = upright.convert("RGB")
    picture.thumbnail((side, side), Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    picture.save(buffer, format="JPEG", quality=PREVIEW_QUALITY, optimize=True)
    return buffer.getvalue()


def check_corners(data: dict[str, Any], width: int, height: int) -> tuple[list[list[float]], int]:
    """The ``corners`` and ``size`` of a reading by hand, checked: four [x, y] of finite
    numbers inside the photo (``width`` x ``height``, after EXIF orientation), clockwise
    from the board's top left without crossing, enclosing room for ``size`` x ``size`` dice
    of ``MIN_DIE_PIXELS``; ``size`` 4, 5 or 6. InvalidInput or BadCorners otherwise."""
    size = data.get("size")
    if isinstance(size, bool) or not isinstance(size, int) or size not in SIDES:
        raise InvalidInput(_("size is the board's side: 4, 5 or 6"))
    corners = data.get("corners")
    shape = _("corners are four [x, y] points in the photo's pixels")
    if not isinstance(corners, list) or len(corners) != 4:
        raise InvalidInput(shape)
    points: list[list[float]] = []
    for point in corners:
        if not isinstance(point, list) or len(point) != 2:
            raise InvalidInput(shape)
        if any(isinstance(v, bool) or not isinstance(v, int | float) for v in point):
            raise InvalidInput(shape)
        if any(isinstance(v, float) and not math.isfinite(v) for v in point):
            raise InvalidInput(shape)
        # Compared as sent: JSON's integers have any number of digits, and one past a
        # float's range cannot become a float (OverflowError); inside the photo, it can.
        if not (0 <= point[0] <= width and 0 <= point[1] <= height):
            raise InvalidInput(
                _(
                    "each corner must be inside the photo: x from 0 to %(width)s, y from 0 to %(height)s"
                )
                % {"width": width, "height": height}
            )
        points.append([float(point[0]), float(point[1])])
    # y grows downwards: going round clockwise on screen, every turn is a positive cross
    # product; one that is not means corners in another order, crossing or in a line.
    for index in range(4):
        (ax, ay), (bx, by), (cx, cy) = (points[(index + k) % 4] for k in range(3))
        if (bx - ax) * (cy - by) - (by - ay) * (cx - bx) <= 0:
            raise BadCorners(
                _(
                    "the corners must go round the board clockwise from its top left, without crossing"
                )
            )
    area = 0.5 * abs(
        sum(
            points[i][0] * points[(i + 1) % 4][1] - points[(i + 1) % 4][0] * points[i][1]
            for i in range(4)
        )
    )
    if area / (size * size) < MIN_DIE_PIXELS**2:
        raise BadCorners(_("the corners enclose too little of the photo to hold a board"))
    return points, size


def check_not_busy(photo: BoardPhoto) -> None:
    """Refuse a reading by hand of a photo still being read."""
    waiting = photo.status in (BoardPhoto.Status.UPLOADED, BoardPhoto.Status.READING)
    if waiting and photo.queued_at >= timezone.now() - PENDING_FOR_AT_MOST:
        raise PhotoBusy(_("the photo is still being read; wait for it, then place the corners"))


def _check_rereadable(room: Room, photo: BoardPhoto) -> None:
    """Refuse a reading by hand of a photo being read, or no longer the room's photo."""
    check_not_busy(photo)
    if pending_photo(room, checks.current_round(room.pk)) != photo:
        raise PhotoOutdated(
            _("this photo is no longer the room's: a newer one was sent, or its board was used")
        )


@json_api
@require_http_methods(["POST"])
def read_with_corners(request: HttpRequest, code: str, photo_id: int) -> JsonResponse:
    """Queue a new reading of the room's photo inside corners a player placed by hand."""
    room = find_room(request, code)
    _player(request, room)
    data = read_json(request)
    try:
        photo = _photo_of(room, photo_id)
        photo = read_again_inside(
            photo, data, client_address(request), lambda locked: _check_rereadable(room, locked)
        )
    except (PhotoError, RateLimited) as error:
        return error_response(error)
    return JsonResponse({"photo": photo_dict(photo)}, status=202)


def read_again_inside(
    photo: BoardPhoto,
    data: dict[str, Any],
    address: str | None,
    check_rereadable: Callable[[BoardPhoto], None],
) -> BoardPhoto:
    """Queue a new reading of ``photo`` inside the corners and size of ``data`` (a room's
    photo or the Solve page's); ``check_rereadable`` refuses it, the row locked, when it
    may not be read again. Returns the photo as queued; PhotoError or RateLimited say why
    not."""
    try:
        width, height = photo.width, photo.height
        if width is None or height is None:  # stored before sizes were kept
            with photo.image.open("rb") as handle:
                width, height = oriented_size(handle)
        corners, size = check_corners(data, width, height)
        with transaction.atomic():
            photo = BoardPhoto.objects.select_for_update().get(pk=photo.pk)
            check_rereadable(photo)
            check_pending(photo.room, address)
            photo.status, photo.result, photo.error = BoardPhoto.Status.UPLOADED, {}, ""
            photo.failure, photo.corners, photo.side, photo.used_at = None, corners, size, None
            photo.width, photo.height, photo.reader_progress = width, height, None
            photo.queued_at, photo.client_address = timezone.now(), address
            photo.read_attempts = 0  # a new reading, with attempts of its own
            photo.save()
            photo_id = photo.pk
            transaction.on_commit(lambda: enqueue_read(photo_id))
    except BoardPhoto.DoesNotExist:
        raise PhotoNotFound(_("no such photo in this room")) from None
    except OSError:
        logger.warning("board photo %s: the stored file cannot be read", photo.pk)
        raise PhotoNotFound(_("the photo was lost on the server; please upload it again")) from None
    return photo


def enqueue_read(photo_id: int) -> None:
    """Queue the reading. Without a broker (eager Celery, development) it runs in a thread
    so that the upload answers at once; ``PHOTOS_READ_IN_THREAD = False`` runs it inline."""
    from photos import reading, tasks

    in_thread = getattr(settings, "PHOTOS_READ_IN_THREAD", settings.CELERY_TASK_ALWAYS_EAGER)
    if not in_thread:
        tasks.read_board_photo.delay(photo_id)
        return

    def run() -> None:
        try:
            # The task's body, not an eager .delay(): Celery's eager run flips a flag of
            # the whole process, and two at once in threads can leave it set.
            reading.do_read_photo(photo_id)
        except Exception:
            logger.exception("reading board photo %s failed", photo_id)
        finally:
            close_old_connections()

    threading.Thread(target=run, name=f"read-photo-{photo_id}", daemon=True).start()
