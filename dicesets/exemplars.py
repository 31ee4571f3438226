"""Keeping a set's exemplars within its bound, and copying exemplars between sets (a room's
own set seeded with the installation's approved dice, dice staff approve for the
installation's set). Used by ``dicesets.services`` and ``dicesets.choices``, which both
store exemplars; kept apart so that neither imports the other for it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dicesets.models import DiceSet, Exemplar
from vision.memory import kept


def trim(dice_set: DiceSet) -> None:
    """Drop the set's exemplars beyond the bound (``vision.memory.kept``), oldest first.
    Precondition: the set's row lock, as ``store_exemplars``."""
    rows = list(
        Exemplar.objects.filter(dice_set=dice_set)
        .order_by("id")
        .values_list("id", "face", "contested")
    )
    keep = set(kept([face for _, face, _ in rows], [flag for _, _, flag in rows]))
    old = [pk for index, (pk, _, _) in enumerate(rows) if index not in keep]
    if old:
        Exemplar.objects.filter(pk__in=old).delete()


# Fields of an exemplar copied with it (into the installation's set, or a room's own set).
_COPIED_FIELDS = (
    "face",
    "crop",
    "room_code",
    "photo_id",
    "unaided_face",
    "unaided_confidence",
    "contested",
)


def copy_exemplars(exemplars: Iterable[Exemplar], into: DiceSet, **extra: Any) -> int:
    """Copy exemplars into another set, where it has no die of the same face and picture
    yet (``extra``: fields to set on the copies), then keep that set within its bound.
    Precondition: ``into``'s row lock, as ``store_exemplars``."""
    present = set(Exemplar.objects.filter(dice_set=into).values_list("face", "crop"))
    present = {(face, bytes(crop)) for face, crop in present}
    copies = []
    for exemplar in exemplars:
        key = (exemplar.face, bytes(exemplar.crop))
        if key in present:
            continue
        present.add(key)
        fields = {name: getattr(exemplar, name) for name in _COPIED_FIELDS}
        copies.append(Exemplar(dice_set=into, **fields, **extra))
    Exemplar.objects.bulk_create(copies)
    trim(into)
    return len(copies)
