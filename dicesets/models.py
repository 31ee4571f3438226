"""Dice sets and what the photo reader remembers of them (``vision.memory``).

A ``DiceSet`` is a physical set of dice on somebody's table; its ``Exemplar`` rows are dice
cut from photos of it whose faces a host confirmed, at most ``vision.memory.MAX_PER_FACE``
per face, contested and not apart (the newest kept: ``dicesets.services.remember_board``).
Exactly one set is the installation's: made by the data migration, used by every room that
chose no other, never deleted (only emptied). A room's choice, and whether its photos' dice
may be kept, is a ``RoomDiceSet`` row (none: the installation's set and the installation's
default).

No room teaches the installation's set: a room learning while it uses it learns into a set
of its own (``started_for_learning``), and the installation's set reads only the exemplars
staff approved (``approved_at``: ``dicesets.admin``), so one host's corrections never reach
another room's photos.
"""

from __future__ import annotations

from django.db import models
from django.db.models import ProtectedError, Q
from django.db.models.signals import pre_delete
from django.dispatch import receiver
from django.utils import timezone

from games.models import Room
from vision.faces import FACES
from vision.nets import CLASSIFIER_INPUT

# Longest name of a set, in characters ("Grandma's French set" is 20).
NAME_MAX_LENGTH = 40
# The name the data migration gives the installation's set (staff may rename it).
INSTALLATION_SET_NAME = "The usual dice"
# One crop: CLASSIFIER_INPUT x CLASSIFIER_INPUT grayscale pixels, one byte each, row by row.
CROP_BYTES = CLASSIFIER_INPUT * CLASSIFIER_INPUT


class DiceSet(models.Model):
    """One physical set of dice, whose confirmed dice the photo reader learns from."""

    name = models.CharField(max_length=NAME_MAX_LENGTH)
    installation = models.BooleanField(
        default=False,
        help_text="The installation's set: rooms use it unless the host chooses another. "
        "Exactly one; it can be emptied, not deleted.",
    )
    started_in = models.ForeignKey(
        Room,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The room whose host started it (empty once that room is deleted).",
    )
    # db_default on the columns added since the first production release: the previous
    # release's code inserts rows without them (docs/operations.md, "Upgrading").
    started_for_learning = models.BooleanField(
        default=False,
        db_default=False,
        help_text="Started for its room when the room learnt from a photo while it used the "
        "installation's set: the room learns into this one instead (one per room).",
    )
    board_fits = models.JSONField(
        default=dict,
        db_default={},
        blank=True,
        help_text="Per board size (its number of dice): how many confirmed boards were taught "
        'and the official sets whose dice could have rolled every one ({"16": {"boards": 3, '
        '"sets": ["classic"]}}); the reader checks boards against those sets\' dice '
        "(dicesets.fits, vision.dice_check).",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(
        default=timezone.now,
        db_index=True,
        help_text="Last time a room chose it, a photo was read with it or a board taught it. "
        "A set no room uses is deleted after 90 days without use (dicesets.retention).",
    )

    class Meta:
        ordering = ["-installation", "name", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["installation"],
                condition=Q(installation=True),
                name="dicesets_one_installation_set",
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} (the installation's)" if self.installation else self.name


class Exemplar(models.Model):
    """One die of a confirmed board: its crop as the reader cuts it, and its face."""

    dice_set = models.ForeignKey(DiceSet, on_delete=models.CASCADE, related_name="exemplars")
    face = models.CharField(max_length=2, choices=[(face, face) for face in FACES])
    crop = models.BinaryField(
        help_text=f"{CLASSIFIER_INPUT}x{CLASSIFIER_INPUT} grayscale pixels, "
        f"{CROP_BYTES} bytes row by row (vision.memory)."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Where it came from, for staff; not foreign keys: rooms and photos are deleted long
    # before the exemplars they taught.
    room_code = models.CharField(max_length=16, null=True, blank=True)
    photo_id = models.PositiveBigIntegerField(null=True, blank=True)
    # What the reader alone read on this die (no set's memory) when the photo was read.
    # db_default: see DiceSet.started_for_learning.
    unaided_face = models.CharField(max_length=2, blank=True, default="", db_default="")
    unaided_confidence = models.FloatField(null=True, blank=True)
    contested = models.BooleanField(
        default=False,
        db_default=False,
        help_text="The confirmed face contradicts what the reader alone read confidently on "
        "this die (vision.memory.contradicts): kept apart, it never makes a die confident "
        "on its own.",
    )
    approved_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When staff approved it for the installation's set: that set reads only "
        "approved dice. Empty in other sets (their rooms' own).",
    )
    approved_by = models.CharField(max_length=150, blank=True, default="", db_default="")

    class Meta:
        ordering = ["dice_set", "face", "-id"]
        indexes = [models.Index(fields=["dice_set", "face", "id"])]

    def __str__(self) -> str:
        return f"{self.face!r} of {self.dice_set_id}"


def read_by_the_reader(from_set: bool = False) -> Q:
    """The exemplars the photo reader reads: every one of a room's set, and only those
    staff approved of the installation's. A filter on ``Exemplar``, or with ``from_set``
    on ``DiceSet``'s ``exemplars`` (to count them per set)."""
    if from_set:
        return Q(installation=False) | Q(exemplars__approved_at__isnull=False)
    return Q(dice_set__installation=False) | Q(approved_at__isnull=False)


class RoomDiceSet(models.Model):
    """A room's dice set for photos and its host's consent; no row: the defaults."""

    room = models.OneToOneField(
        Room, on_delete=models.CASCADE, primary_key=True, related_name="dice_set_choice"
    )
    dice_set = models.ForeignKey(
        DiceSet,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="rooms",
        help_text="Empty: the installation's set.",
    )
    learn = models.BooleanField(
        null=True,
        blank=True,
        help_text="Keep the dice of confirmed photos (the host's consent). Empty: the "
        "installation's default (on at home, off on a public installation).",
    )

    def __str__(self) -> str:
        return f"room {self.room_id}: set {self.dice_set_id}"


@receiver(pre_delete, sender=DiceSet)
def keep_installation_set(sender: type[DiceSet], instance: DiceSet, **kwargs: object) -> None:
    """The installation's set is never deleted (rooms fall back on it); empty it instead."""
    if instance.installation:
        raise ProtectedError(
            "the installation's dice set cannot be deleted; delete its exemplars instead",
            {instance},
        )
