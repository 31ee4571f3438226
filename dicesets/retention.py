"""Deleting dice sets nobody uses any more (hourly: ``games.signals.housekeeping``).

A set a room started is deleted, with its exemplars, once no room uses it and it has not
been used (chosen, read with, taught by a confirmed board) for ``IDLE_SET_LIFETIME``. On a
public installation a set can only be chosen in the room that started it
(``dicesets.choices.visible_sets``), so once that room is deleted (a day idle) and no room
uses the set, nobody can use it again: it is deleted at the next clean-up. The
installation's set is never deleted (staff can empty it).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from dicesets import choices
from dicesets.models import DiceSet, RoomDiceSet

# A set no room uses is deleted this long after its last use.
IDLE_SET_LIFETIME = timedelta(days=90)


def delete_idle_sets() -> int:
    """Delete the sets nobody uses or can use any more; returns how many."""
    idle = Q(last_used_at__lt=timezone.now() - IDLE_SET_LIFETIME)
    if choices.is_public():
        idle |= Q(started_in__isnull=True)
    in_use = RoomDiceSet.objects.filter(dice_set=OuterRef("pk"))
    count = 0
    for dice_set in DiceSet.objects.filter(idle, installation=False).exclude(Exists(in_use)):
        dice_set.delete()  # one by one: its exemplars with it
        count += 1
    return count


def on_housekeeping(sender: Any, **kwargs: Any) -> dict[str, int]:
    """games.signals.housekeeping receiver."""
    return {"dice_sets": delete_idle_sets()}
