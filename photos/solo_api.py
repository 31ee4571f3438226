"""Photos of the Solve page (docs/api.md, "A photo on the Solve page"): read by the same
reader, in the same queue and under the same bounds as a room's, for whoever uploaded them,
with no room and no nickname.

``POST /api/solve/photos`` stores the photo and answers its ``key``, a secret that the other
calls take as ``Authorization: Bearer <key>`` (never in an address): ``GET …/<id>`` (with
``?wait=`` seconds, the answer waits until the photo is read), ``…/<id>/image`` and
``POST …/<id>/corners``. A photo of another key, or of a room, is no photo of the caller's:
404, as one that never existed. Only a hash of the key is stored. The photos and their
files are deleted ``KEEP_FOR`` after their upload (``photos.retention``).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
import time

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from photos.api import (
    PREVIEW,
    check_not_busy,
    client_address,
    photo_dict,
    preview_image_response,
    read_again_inside,
    store_upload,
)
from photos.exceptions import PhotoError, PhotoNotFound
from photos.models import BoardPhoto
from web import text, throttle
from web.errors import ClientError, InvalidInput, RateLimited
from web.json_api import bearer_token, error_response, json_api, rate_limited, read_json
from web.threads import in_thread

# Photos an address may send a minute: a family photographing a few boards, never a
# stream (each photo is decoded and read: some 150 ms of both cores, and 4-15 MB of disk).
UPLOAD = throttle.Limit("solve_photo", 6, 6, gettext_lazy("too many photos sent from your address"))
# The longest ``?wait=`` (seconds) an answer is held for.
MAX_WAIT_SECONDS = 10.0
# How often a held answer looks at the photo again (seconds).
POLL_SECONDS = 0.05
# The key's bytes of randomness (its text is some 43 characters).
KEY_BYTES = 32


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def _own_photo(request: HttpRequest, photo_id: int) -> BoardPhoto:
    """The Solve page photo ``photo_id`` if the request's Bearer key is its key; else
    PhotoNotFound, the same for a wrong key, no key and no such photo."""
    key = bearer_token(request)
    photo = None
    if key and text.is_clean(key, 200):
        photo = BoardPhoto.objects.filter(pk=photo_id, room__isnull=True).first()
    if photo is None or not hmac.compare_digest(photo.key_hash, key_hash(key or "")):
        raise PhotoNotFound(_("no such photo; send it again"))
    return photo


@json_api
@require_http_methods(["POST"])
@rate_limited(UPLOAD)
def upload_photo(request: HttpRequest) -> JsonResponse:
    """Store a photo for the Solve page and queue its reading; answer its key."""
    key = secrets.token_urlsafe(KEY_BYTES)
    try:
        photo = store_upload(request, None, key_hash=key_hash(key))
    except (PhotoError, RateLimited) as error:
        return error_response(error)
    return JsonResponse({"photo": photo_dict(photo), "key": key}, status=202)


def _wait_param(request: HttpRequest) -> float:
    value = request.GET.get("wait", "0")
    try:
        seconds = float(value) if value.isascii() and len(value) <= 8 else -1.0
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= MAX_WAIT_SECONDS:
        raise InvalidInput(
            _("wait is a number of seconds from 0 to %(max)s") % {"max": int(MAX_WAIT_SECONDS)}
        )
    return seconds


@require_http_methods(["GET"])
async def photo_detail(request: HttpRequest, photo_id: int) -> HttpResponse:
    """The photo as it stands; with ``?wait=<seconds>``, as soon as it changes (its status,
    or how far the reader's load is while it waits for it) or the wait is over, whichever
    comes first: a page asks again until the photo is read or failed. Held on the event
    loop: a waiting answer costs a look at one row every ``POLL_SECONDS``, never a
    thread."""
    try:
        wait = _wait_param(request)
        deadline = time.monotonic() + wait
        photo = await in_thread(_own_photo)(request, photo_id)
        asked_about = (photo.status, photo.reader_progress)
        while photo.status not in (BoardPhoto.Status.READ, BoardPhoto.Status.FAILED):
            if time.monotonic() >= deadline:
                break
            await asyncio.sleep(POLL_SECONDS)
            photo = await in_thread(_own_photo)(request, photo_id)
            if (photo.status, photo.reader_progress) != asked_about:
                break
    except ClientError as error:
        return error_response(error)
    return JsonResponse({"photo": photo_dict(photo)})


@require_http_methods(["GET"])
async def photo_image(request: HttpRequest, photo_id: int) -> HttpResponse:
    """The photo upright, as the reader sees it (``photos.api.photo_image``)."""

    def preview(request: HttpRequest, photo_id: int) -> BoardPhoto:
        photo = _own_photo(request, photo_id)
        throttle.take(PREVIEW, throttle.client_address(request))
        return photo

    return await preview_image_response(in_thread(preview), request, photo_id)


@json_api
@require_http_methods(["POST"])
def read_with_corners(request: HttpRequest, photo_id: int) -> JsonResponse:
    """Queue a new reading of the photo inside corners placed by hand."""
    data = read_json(request)
    try:
        photo = _own_photo(request, photo_id)
        photo = read_again_inside(photo, data, client_address(request), check_not_busy)
    except (PhotoError, RateLimited) as error:
        return error_response(error)
    return JsonResponse({"photo": photo_dict(photo)}, status=202)
