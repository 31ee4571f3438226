"""HTTP API for board photos (docs/api.md, "Board from a photo").

``POST /api/rooms/<code>/photos`` stores a player's photo and queues
``photos.tasks.read_board_photo``; the room hears ``board.reading`` then ``board.read`` or
``board.unreadable``. ``GET /api/rooms/<code>/photos/<id>`` returns a photo's state.
"""

from __future__ import annotations

import logging
import threading
import warnings
from datetime import timedelta

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.db import close_old_connections, transaction
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods
from PIL import Image, UnidentifiedImageError

from games import checks, throttle
from games.api import json_api, viewer
from games.exceptions import GameError, InvalidInput, NotAPlayer, RateLimited
from games.models import Player, Room, Round
from photos.models import BoardPhoto
from vision.errors import ImageTooLargeError, NotAnImageError
from vision.loading import (
    MAX_PIXELS,
    MIN_SIDE,
    UnsupportedImageError,
    check_format,
    check_pixels,
)

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
# A photo waiting longer than this was lost (a worker died): it stops counting.
PENDING_FOR_AT_MOST = timedelta(minutes=5)
# Photos kept per room, newest first; older ones (and their files) are deleted on upload.
KEEP_PER_ROOM = 3
EXTENSIONS = {"JPEG": "jpg", "PNG": "png", "WEBP": "webp"}


class PhotoTooLarge(GameError):
    code = "too_large"


class UnsupportedImage(GameError):
    code = "unsupported_image"


def _error(error: GameError) -> JsonResponse:
    status = {"too_large": 413, "rate_limited": 429, "unsupported_image": 415}.get(error.code)
    if status is None:
        raise error  # json_api answers the games codes with their usual statuses
    return JsonResponse({"error": error.to_dict()}, status=status)


def photo_dict(photo: BoardPhoto) -> dict:
    return {
        "id": photo.pk,
        "status": photo.status,
        "uploaded_by": photo.uploaded_by_id,
        "result": photo.result or None,
        "error": photo.error or None,
        "created_at": int(photo.created_at.timestamp() * 1000),
    }


def pending_photo(room: Room, current: Round | None) -> BoardPhoto | None:
    """The room's latest photo while it still matters: uploaded since the latest round
    started (or before any round), and, once read, not yet used as the next board."""
    photo = room.photos.order_by("-created_at", "-pk").first()
    if photo is None:
        return None
    if (
        current is not None
        and current.starts_at is not None
        and photo.created_at < current.starts_at
    ):
        return None  # a photo of a board already played
    board = (photo.result or {}).get("board")
    if photo.status == BoardPhoto.Status.READ and board and board == room.next_board:
        return None  # the host used it
    return photo


def photo_state(room: Room, current: Round | None) -> dict:
    """The room state's ``photo``: a reload or a reconnect shows the photo being read, or
    read and not yet used, again (games.state.add_state_part)."""
    photo = pending_photo(room, current)
    return {"photo": None if photo is None else photo_dict(photo)}


def _player(request: HttpRequest, room: Room) -> Player:
    player = viewer(request, room)
    if player is None:
        raise NotAPlayer(_("join the room to send a photo of its board"))
    return player


def check_photo(upload: UploadedFile | None) -> str:
    """Refuse what is not a usable picture, from its header only; returns the extension."""
    if upload is None:
        raise InvalidInput(_("send the photo as the multipart/form-data field 'photo'"))
    if upload.size > MAX_UPLOAD_BYTES:
        raise PhotoTooLarge(
            _("the file is %(size)s MB; the limit is %(limit)s MB")
            % {"size": f"{upload.size / 1e6:.1f}", "limit": f"{MAX_UPLOAD_BYTES / 1e6:.0f}"}
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
    try:
        check_pixels(width, height, image_format)
    except ImageTooLargeError as error:
        raise PhotoTooLarge(str(error)) from None
    if min(width, height) < MIN_SIDE:
        raise InvalidInput(
            _(
                "the image is %(width)sx%(height)s pixels; a board photo needs at least %(min)s pixels a side"
            )
            % {"width": width, "height": height, "min": MIN_SIDE}
        )
    return EXTENSIONS[image_format]


def client_address(request: HttpRequest) -> str | None:
    """The uploader's address, by the site's one rule (``games.throttle``: Daphne's client,
    or the address the trusted proxy saw)."""
    return throttle.client_address(request) or None


def check_pending(room: Room, address: str | None) -> None:
    """Refuse (429) a photo beyond the room's, the address's or the site's waiting bound."""
    pending = BoardPhoto.objects.filter(
        status__in=(BoardPhoto.Status.UPLOADED, BoardPhoto.Status.READING),
        created_at__gte=timezone.now() - PENDING_FOR_AT_MOST,
    )
    if pending.filter(room=room).count() >= MAX_PENDING_PER_ROOM:
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
    room = checks.check_room(code)
    player = _player(request, room)
    try:
        # A body over the limit never gets here: boggle_site.body_limit refuses it (413)
        # before it is read; check_photo refuses a file over the limit in a smaller body.
        upload = request.FILES.get("photo")
        extension = check_photo(upload)
        address = client_address(request)
        check_pending(room, address)
    except (PhotoTooLarge, RateLimited, UnsupportedImage) as error:
        return _error(error)
    with transaction.atomic():
        photo = BoardPhoto(room=room, uploaded_by=player, client_address=address)
        photo.image.save(f"board.{extension}", upload, save=False)
        photo.save()
        drop_old_photos(room)
        transaction.on_commit(lambda: enqueue_read(photo.pk))
    return JsonResponse({"photo": photo_dict(photo)}, status=202)


@json_api
@require_http_methods(["GET"])
def photo_detail(request: HttpRequest, code: str, photo_id: int) -> JsonResponse:
    room = checks.check_room(code)
    _player(request, room)
    photo = BoardPhoto.objects.filter(room=room, pk=photo_id).first()
    if photo is None:
        return JsonResponse(
            {"error": {"code": "photo_not_found", "message": "no such photo in this room"}},
            status=404,
        )
    return JsonResponse({"photo": photo_dict(photo)})


def enqueue_read(photo_id: int) -> None:
    """Queue the reading. Without a broker (eager Celery, development) it runs in a thread
    so that the upload answers at once; ``PHOTOS_READ_IN_THREAD = False`` runs it inline."""
    from photos import tasks

    in_thread = getattr(settings, "PHOTOS_READ_IN_THREAD", settings.CELERY_TASK_ALWAYS_EAGER)
    if not in_thread:
        tasks.read_board_photo.delay(photo_id)
        return

    def run() -> None:
        try:
            tasks.read_board_photo.delay(photo_id)
        except Exception:
            logger.exception("reading board photo %s failed", photo_id)
        finally:
            close_old_connections()

    threading.Thread(target=run, name=f"read-photo-{photo_id}", daemon=True).start()
