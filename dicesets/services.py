"""What the site remembers of a room's dice set, for the photo reader (``vision.memory``).

``memory_for_room`` gives the reader the room's set as a ``SetMemory`` (cached per process):
the exemplars the reader reads (``dicesets.models.read_by_the_reader``: the installation's
set only those staff approved). ``remember_board`` keeps the dice of a board a host
confirmed, when the room's host consents (``dicesets.choices.learns``), in the set the room
learns into (``dicesets.choices.learning_set``: never the installation's), each marked
contested when it contradicts what the reader alone read confidently on it
(``vision.memory.contradicts``). Staff approve dice for the installation's set
(``approve_for_installation``) and undo what a room or a photo taught
(``forget_taught_by``). Pure logic stays in ``vision``: this module only moves exemplars
between the database and ``SetMemory``.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import numpy as np
from django.db import transaction
from django.db.models import Count, Max, Q, QuerySet
from django.utils import timezone

from dicesets import choices, fits
from dicesets.exemplars import copy_exemplars, trim
from dicesets.models import CROP_BYTES, DiceSet, Exemplar, RoomDiceSet, read_by_the_reader
from games.models import Room
from photos import reading
from photos.models import BoardPhoto
from vision.errors import VisionError
from vision.faces import FACE_INDEX
from vision.loading import ImageSource
from vision.memory import SetMemory, board_crops, contradicts
from vision.nets import CLASSIFIER_INPUT

logger = logging.getLogger(__name__)

# Memories kept per process: one per dice set read lately, each at most
# MAX_PER_FACE x 32 faces x 1 KB (some 260 KB), so a few MB at most.
MAX_CACHED_SETS = 16
# A set read with is marked used at most this often (one UPDATE, not one per photo).
USE_MARKED_EVERY = timedelta(hours=1)

# set id -> ((latest exemplar id, exemplar count), memory); least recently used first.
_memories: OrderedDict[int, tuple[tuple[int, int], SetMemory]] = OrderedDict()
_memories_lock = threading.Lock()


def dice_set_for_room(room: Room) -> DiceSet:
    """The set the room's photos show: the host's choice, else the installation's."""
    return choices.chosen_set(choices.room_choice(room))


def memory_for_room(room: Room) -> SetMemory | None:
    """What the reader knows of the room's dice set, or None when it has no exemplars yet
    (the installation's: none approved yet).

    Cached per process, keyed by the set and its latest exemplar id and count, so a board
    confirmed (or an exemplar deleted or approved) since is seen at the next reading: one
    aggregate query when the cache is current. Reading with a set counts as using it.
    """
    dice_set = dice_set_for_room(room)
    _mark_used(dice_set)
    rows = read_exemplars(dice_set).aggregate(latest=Max("id"), count=Count("id"))
    if not rows["count"]:
        return None
    key = (rows["latest"], rows["count"])
    with _memories_lock:
        cached = _memories.get(dice_set.pk)
        if cached is not None and cached[0] == key:
            _memories.move_to_end(dice_set.pk)
            return cached[1]
    memory = load_memory(dice_set)
    with _memories_lock:
        _memories[dice_set.pk] = (key, memory)
        _memories.move_to_end(dice_set.pk)
        while len(_memories) > MAX_CACHED_SETS:
            _memories.popitem(last=False)
    return memory


def dice_for_room(room: Room) -> list[tuple[tuple[str, ...], ...]]:
    """The dice of the official sets the room's set could be (``dicesets.fits``), which
    its photos are checked against; empty: not checked."""
    return fits.candidate_dice(dice_set_for_room(room))


def read_exemplars(dice_set: DiceSet) -> QuerySet[Exemplar]:
    """The set's exemplars the reader reads (``dicesets.models.read_by_the_reader``)."""
    return Exemplar.objects.filter(read_by_the_reader(), dice_set=dice_set)


def load_memory(dice_set: DiceSet) -> SetMemory:
    """The set's exemplars the reader reads as a ``SetMemory``, oldest first
    (``SetMemory.added`` keeps the newest: the same order as the rows' ids)."""
    crops: list[np.ndarray] = []
    faces: list[str] = []
    contested: list[bool] = []
    for face, crop, disputed in (
        read_exemplars(dice_set).order_by("id").values_list("face", "crop", "contested")
    ):
        data = bytes(crop)
        if face not in FACE_INDEX or len(data) != CROP_BYTES:
            logger.warning(
                "dice set %s: skipping an exemplar that is not a %r crop", dice_set.pk, face
            )
            continue
        crops.append(np.frombuffer(data, np.uint8).reshape(CLASSIFIER_INPUT, CLASSIFIER_INPUT))
        faces.append(face)
        contested.append(disputed)
    if not crops:
        return SetMemory()
    memory = SetMemory(np.stack(crops), tuple(faces), tuple(contested))
    memory.crops.flags.writeable = False  # shared by every reading of this process
    return memory


def forget_cached_memories() -> None:
    """Drop this process's cached memories (tests)."""
    with _memories_lock:
        _memories.clear()


def remember_board(
    room: Room,
    photo: ImageSource,
    corners: Sequence[Sequence[float]],
    rows: int,
    cols: int,
    faces: Sequence[Sequence[str]],
    photo_id: int | None = None,
    unaided: Unaided | None = None,
) -> int:
    """Keep the dice of a confirmed board in the set the room learns into, if its host
    consents (``dicesets.choices.learning_set``: never the installation's).

    ``photo``: the photo file's bytes or path; ``corners``: the board's outer corners as
    the reading reported them (``result["corners"]``); ``faces``: the confirmed faces, row
    by row (``rows`` x ``cols``, faces of ``vision.faces.FACES``); ``unaided``: what the
    reader alone read on each die (``unaided_reading``), against which each die is
    contested or not (unknown: every die contested). Cuts the crops
    (``vision.memory.board_crops``: OpenCV, some 50-150 ms, outside any transaction), then
    in one transaction adds them and drops the set's oldest exemplars beyond
    ``MAX_PER_FACE`` per face, and tells the room (``photo_set.changed``). Returns how many
    dice were added (before the bound dropped the oldest): 0 without consent. Raises
    ValueError for faces that do not fit the board, and ``vision.errors.VisionError`` for a
    photo or corners it cannot cut.
    """
    flat = check_faces(faces, rows, cols)
    if unaided is not None and (
        len(unaided.faces) != len(flat) or len(unaided.confidence) != len(flat)
    ):
        raise ValueError("the reading does not fit the board")
    if not choices.learns(choices.room_choice(room)):
        return 0
    crops = board_crops(photo, np.asarray(corners, np.float64), rows, cols)
    if crops.shape != (rows * cols, CLASSIFIER_INPUT, CLASSIFIER_INPUT):
        raise ValueError(f"expected {rows * cols} crops, got {crops.shape}")
    with transaction.atomic():
        locked = Room.objects.select_for_update().filter(pk=room.pk).first()
        if locked is None:
            return 0  # the room was deleted meanwhile
        choice = RoomDiceSet.objects.select_related("dice_set").filter(room=locked).first()
        if not choices.learns(choice):
            return 0  # the host said no meanwhile
        dice_set = choices.learning_set(locked, choice)
        added = store_exemplars(
            dice_set, crops, flat, room_code=locked.code, photo_id=photo_id, unaided=unaided
        )
        choices.emit_changed(locked)
    return added


@dataclass(frozen=True)
class Unaided:
    """What the reader alone (no set's memory) read on each die of a board, row by row
    flattened: its ``faces`` and their ``confidence``."""

    faces: list[str]
    confidence: list[float]


def unaided_reading(result: dict[str, Any]) -> Unaided | None:
    """From a stored reading (``BoardPhoto.result``): the reader's own reading of each die,
    its ``unaided`` part, or its letters for a reading stored before it had one; None when
    neither is a board of faces and confidences."""
    source = result.get("unaided")
    if not isinstance(source, dict):
        source = result
    letters, confidence = source.get("letters"), source.get("confidence")
    if not isinstance(letters, list) or not isinstance(confidence, list):
        return None
    faces = [face for row in letters if isinstance(row, list) for face in row]
    values = [value for row in confidence if isinstance(row, list) for value in row]
    if not all(isinstance(face, str) for face in faces) or not all(
        isinstance(value, int | float) and not isinstance(value, bool) for value in values
    ):
        return None
    return Unaided(faces, [float(value) for value in values])


def check_faces(faces: Sequence[Sequence[str]], rows: int, cols: int) -> list[str]:
    """The confirmed faces row by row as one list; ValueError when they are not a
    ``rows`` x ``cols`` board of known faces."""
    if not isinstance(faces, list | tuple) or len(faces) != rows:
        raise ValueError(f"faces must be {rows} rows")
    flat: list[str] = []
    for row in faces:
        if not isinstance(row, list | tuple) or len(row) != cols:
            raise ValueError(f"each row of faces must have {cols} faces")
        flat.extend(row)
    unknown = sorted({str(face) for face in flat if face not in FACE_INDEX})
    if unknown:
        raise ValueError(f"unknown faces {unknown}")
    return flat


def store_exemplars(
    dice_set: DiceSet,
    crops: np.ndarray,
    faces: Sequence[str],
    room_code: str | None = None,
    photo_id: int | None = None,
    unaided: Unaided | None = None,
) -> int:
    """Add exemplars to a set and keep its newest ``MAX_PER_FACE`` per face, contested and
    not apart (``vision.memory.kept``). Each is contested when its face contradicts the
    reader's own confident reading (``unaided``; unknown: contested).

    A photo's dice are kept once, as last confirmed: those of an earlier confirmation of
    the same ``photo_id`` in this set (a retried task, a board corrected again) are replaced.

    Precondition: in a transaction holding the set's row lock (``select_for_update``), so
    confirmations of one set are added and trimmed one after the other.
    """
    crops = np.asarray(crops, np.uint8)
    already_taught = False
    if photo_id is not None:
        deleted, _ = Exemplar.objects.filter(
            dice_set=dice_set, photo_id=photo_id, room_code=room_code
        ).delete()
        already_taught = deleted > 0
    Exemplar.objects.bulk_create(
        Exemplar(
            dice_set=dice_set,
            face=face,
            crop=crop.tobytes(),
            room_code=room_code,
            photo_id=photo_id,
            unaided_face=unaided.faces[index] if unaided else "",
            unaided_confidence=unaided.confidence[index] if unaided else None,
            contested=unaided is None
            or contradicts(face, unaided.faces[index], unaided.confidence[index]),
        )
        for index, (crop, face) in enumerate(zip(crops, faces, strict=True))
    )
    trim(dice_set)
    if photo_id is None or not already_taught:  # a photo confirmed again is not a new board
        fits.record_board(dice_set, faces)
    DiceSet.objects.filter(pk=dice_set.pk).update(last_used_at=timezone.now())
    return len(faces)


def approve_for_installation(exemplars: QuerySet[Exemplar], approved_by: str) -> int:
    """Staff approve dice for the installation's set, which reads nothing else: its own
    dice waiting for approval (kept before issue 48) are approved; other sets' are copied
    into it, approved. A contested die stays contested (it still never makes a die
    confident on its own). Returns how many dice the installation's set gained."""
    now = timezone.now()
    with transaction.atomic():
        installation = DiceSet.objects.select_for_update().get(pk=choices.installation_set().pk)
        approved = exemplars.filter(dice_set=installation, approved_at__isnull=True).update(
            approved_at=now, approved_by=approved_by
        )
        others = exemplars.exclude(dice_set=installation).order_by("id")
        copied = copy_exemplars(others, installation, approved_at=now, approved_by=approved_by)
    return approved + copied


def forget_taught_by(room_codes: Iterable[str] = (), photo_ids: Iterable[int] = ()) -> int:
    """Staff undo what rooms or photos taught: every exemplar they gave, in every set (the
    copies staff approved for the installation's set and those a room's own set started
    with included). Returns how many dice were forgotten."""
    codes = {code for code in room_codes if code}
    photos = {photo for photo in photo_ids if photo is not None}
    if not codes and not photos:
        return 0
    deleted, _ = Exemplar.objects.filter(Q(room_code__in=codes) | Q(photo_id__in=photos)).delete()
    return deleted


def _mark_used(dice_set: DiceSet) -> None:
    now = timezone.now()
    if dice_set.last_used_at < now - USE_MARKED_EVERY:
        DiceSet.objects.filter(pk=dice_set.pk).update(last_used_at=now)


def remember_photo(photo_id: int, faces: list[list[str]]) -> int:
    """Keep a confirmed photo's dice; 0 when the photo is gone, was not read, cannot be cut,
    or the room's host does not consent."""
    photo = BoardPhoto.objects.select_related("room").filter(pk=photo_id).first()
    if photo is None:
        return 0  # deleted meanwhile (a room keeps its latest photos only)
    room = photo.room
    if room is None:
        return 0  # the Solve page's: no room, no set to teach
    result = photo.result or {}
    corners, rows, cols = result.get("corners"), result.get("rows"), result.get("cols")
    if not corners or not isinstance(rows, int) or not isinstance(cols, int):
        logger.warning("board photo %s has no reading with corners; nothing kept", photo_id)
        return 0
    try:
        with photo.image.open("rb") as handle:
            data = handle.read()
    except OSError:
        logger.warning("board photo %s: the stored file cannot be read; nothing kept", photo_id)
        return 0
    try:
        added = remember_board(
            room,
            data,
            corners,
            rows,
            cols,
            faces,
            photo_id=photo.pk,
            unaided=unaided_reading(result),
        )
    except (ValueError, VisionError) as error:
        logger.warning("board photo %s: its dice cannot be kept: %s", photo_id, error)
        return 0
    if added:
        # The room's next photo is read with these dice: ready their features now.
        reading.prepare_memory(room)
    return added
