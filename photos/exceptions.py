"""Errors of the photo API beyond the games ones (``games.exceptions``); each has its
``code`` for clients and the HTTP ``status`` it is answered with (docs/api.md, "Board
from a photo").

ClientError
 ├── PhotoTooLarge      413 the file, or the picture's pixels, over the limit
 ├── UnsupportedImage   415 an image format other than JPEG, PNG or WebP
 ├── PhotoNotFound      404 no such photo in this room (or deleted: a room keeps 3)
 ├── PhotoBusy          409 the photo is still being read: wait for board.read/unreadable
 ├── PhotoOutdated      409 not the room's photo any more (a newer one, a round started,
 │                          its board used)
 ├── BadCorners         400 corners that frame no board (crossing, anticlockwise, tiny)
 └── StorageFull        507 the media disk is below its floor of free space
"""

from __future__ import annotations

from web.errors import ClientError


class PhotoError(ClientError):
    """Any error of the photo API."""


class PhotoTooLarge(PhotoError):
    code = "too_large"
    status = 413


class UnsupportedImage(PhotoError):
    code = "unsupported_image"
    status = 415


class PhotoNotFound(PhotoError):
    code = "photo_not_found"
    status = 404


class PhotoBusy(PhotoError):
    code = "photo_busy"
    status = 409


class PhotoOutdated(PhotoError):
    code = "photo_outdated"
    status = 409


class BadCorners(PhotoError):
    code = "bad_corners"
    status = 400


class StorageFull(PhotoError):
    """The media disk is below its floor of free space (photos.budget): no photo is stored."""

    code = "storage_full"
    status = 507
