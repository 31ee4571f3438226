"""A photo of a real board, uploaded by a player of a room, or by anyone on the Solve page
(no room: ``photos.solo_api``), and read by ``photos.tasks``."""

from __future__ import annotations

import uuid
from datetime import timedelta

from django.db import models
from django.db.models.signals import post_delete
from django.dispatch import receiver
from django.utils import timezone

from games.models import Player, Room

# A photo waiting longer than this to be read was lost (a worker died): it stops counting
# against the pending limits (photos.api), and the sweep fails it (photos.stuck).
PENDING_FOR_AT_MOST = timedelta(minutes=5)

# Photos are stored under this folder of the media storage, one folder per room, and the
# Solve page's in one of their own (no room code has an underscore).
PHOTO_FOLDER = "photos"
SOLO_FOLDER = "_solve"


def photo_path(photo: BoardPhoto, filename: str) -> str:
    """``photos/<room code>/<random>.<ext>`` (``photos/_solve/…`` without a room): never
    the uploader's file name."""
    extension = filename.rsplit(".", 1)[-1].lower() if "." in filename else "img"
    folder = photo.room.code if photo.room is not None else SOLO_FOLDER
    return f"{PHOTO_FOLDER}/{folder}/{uuid.uuid4().hex}.{extension[:5]}"


class BoardPhoto(models.Model):
    class Status(models.TextChoices):
        UPLOADED = "uploaded"
        READING = "reading"
        READ = "read"
        FAILED = "failed"

    room = models.ForeignKey(
        Room,
        on_delete=models.CASCADE,
        related_name="photos",
        null=True,
        blank=True,
        help_text="Empty for a photo of the Solve page, read for whoever holds its key.",
    )
    # The Solve page's photos: a SHA-256 of the key its uploader got (``photos.solo_api``),
    # never the key itself; empty for a room's photo. A database default too: releases before it
    # insert photos without it (docs/operations.md, "Upgrading").
    key_hash = models.CharField(max_length=64, blank=True, default="", db_default="")
    uploaded_by = models.ForeignKey(
        Player, on_delete=models.SET_NULL, null=True, blank=True, related_name="photos"
    )
    # The uploader's address, to bound the photos one phone has waiting (photos.api).
    client_address = models.GenericIPAddressField(null=True, blank=True)
    image = models.FileField(upload_to=photo_path)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.UPLOADED)
    # BoardReading.as_dict() plus "board" (notation), "filled" and "note"; {} until read.
    result = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    # Why it failed, for pages to say in their language: board.unreadable's ``code`` and its
    # numbers (photos.reading.failure_details); null unless it failed.
    failure = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # When its latest reading was queued: the upload, or corners placed by hand (a photo
    # waiting since long before PENDING_FOR_AT_MOST was lost and stops counting).
    queued_at = models.DateTimeField(default=timezone.now)
    # The photo's size in pixels after EXIF orientation (the reader's and the page's
    # coordinates); null for photos stored before it was kept.
    width = models.PositiveIntegerField(null=True, blank=True)
    height = models.PositiveIntegerField(null=True, blank=True)
    # The corners a player placed by hand for the latest reading (four [x, y], clockwise
    # from the board's top left, in those pixels) and the board side they frame; null when
    # the reader found the board itself.
    corners = models.JSONField(null=True, blank=True)
    side = models.PositiveSmallIntegerField(null=True, blank=True)
    # How much of the reader's load was done (0-99) while this photo waited for it; null
    # when it did not wait, or the reader is ready.
    reader_progress = models.PositiveSmallIntegerField(null=True, blank=True)
    # When the latest attempt at reading it started, and how many attempts the latest
    # reading has taken: a worker that died mid-read gives the photo back to the queue, at
    # most MAX_READ_ATTEMPTS times (photos.reading); a reading past its time limit is failed
    # (photos.stuck). A database default: releases before it insert photos without it.
    reading_started_at = models.DateTimeField(null=True, blank=True)
    read_attempts = models.PositiveSmallIntegerField(default=0, db_default=0)
    # When the host set a board after this photo was read (photos.boards): used, it leaves
    # the room's state.
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        where = f"room {self.room_id}" if self.room_id is not None else "the Solve page"
        return f"photo {self.pk} of {where} ({self.status})"


@receiver(post_delete, sender=BoardPhoto)
def delete_photo_file(sender: type[BoardPhoto], instance: BoardPhoto, **kwargs: object) -> None:
    """Remove the file with its row (rooms idle for a day are deleted, photos with them)."""
    if instance.image:
        instance.image.delete(save=False)
