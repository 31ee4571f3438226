"""The host using a photo's board: once the host sets a board after the room's photo was
read, the photo is used (it leaves the room's state, so a reload shows the board the host
confirmed, not the photo's grid), and ``photos.signals.board_confirmed`` tells other apps
which faces the host confirmed for it.

Connected to ``games.signals.next_board_set`` (``PhotosConfig.ready``): games sends, never
imports this app.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction
from django.utils import timezone

from games.checks import current_round
from games.models import Room
from photos.api import latest_photo
from photos.models import BoardPhoto
from photos.signals import board_confirmed
from solver.board import Board

logger = logging.getLogger(__name__)


def on_next_board_set(
    sender: Any, room: Room | None = None, board: Board | None = None, **kwargs: Any
) -> None:
    """Mark the room's pending read photo used, and send ``board_confirmed`` when the
    board has the reading's shape. Precondition: inside the host's ``set_board``
    transaction, the room's row locked (``games.rooms.do_set_next_board``)."""
    if room is None or board is None:  # the host cleared the next board: nothing used
        return
    # The latest photo, read and not used yet (pending_photo would already count it used
    # when the host set exactly the board read: that is now the next board).
    photo = latest_photo(room, current_round(room.pk))
    if photo is None or photo.status != BoardPhoto.Status.READ or photo.used_at is not None:
        return
    with transaction.atomic():
        used = BoardPhoto.objects.filter(pk=photo.pk, status=BoardPhoto.Status.READ).update(
            used_at=timezone.now()
        )
    if not used:
        return  # read again meanwhile (corners placed by hand): that reading is not used
    result = photo.result or {}
    if (board.rows, board.cols) != (result.get("rows"), result.get("cols")):
        return
    faces = board.grid()
    if not corrects(result.get("letters"), faces):
        return  # another board typed in: its letters say nothing of the photo's dice
    for receiver, outcome in board_confirmed.send_robust(
        sender=BoardPhoto, photo=photo, faces=faces
    ):
        if isinstance(outcome, Exception):
            logger.error("board_confirmed receiver %r failed: %r", receiver, outcome)


# A board the host sets counts as the photo's, corrected, when at least this share of its
# dice are the ones read (a correction changes a few dice, not most of them).
CONFIRMED_SHARE = 0.5


def corrects(letters: Any, faces: list[list[str]]) -> bool:
    """Whether ``faces`` (rows) is the reading ``letters`` (rows) with some dice changed,
    rather than another board of the same size."""
    if not isinstance(letters, list) or len(letters) != len(faces):
        return False
    read = [face for row in letters if isinstance(row, list) for face in row]
    confirmed = [face for row in faces for face in row]
    if len(read) != len(confirmed):
        return False
    same = sum(a == b for a, b in zip(read, confirmed, strict=True))
    return same >= CONFIRMED_SHARE * len(confirmed)
