"""Issue 48, hole 1: dice-set poisoning. A host who relabels dice of the photos it confirms
must not change how any other room reads its photos, and what a set learnt against the
reader's own confident reading never makes a die confident.

The attack as measured: a room with learning on confirms two photos with 8 dice relabelled
each; another room, which never touched dice sets, then reads a photo. These tests run the
real reader (the shipped models) on a labelled photo, through the same calls the site makes
(``photos.reading.read_bytes`` with ``dicesets.services.memory_for_room``, and
``dicesets.services.remember_photo`` for a confirmed board).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.base import ContentFile

from dicesets import services
from dicesets.models import DiceSet, Exemplar
from games import rooms
from games.models import Room
from photos import reading
from photos.models import BoardPhoto
from vision.confidence import DOUBTFUL_BELOW
from vision.faces import FACES

pytestmark = pytest.mark.django_db

# Dice relabelled per confirmed photo, as in the attack measured.
RELABELLED = 8


def a_room(**settings: Any) -> Room:
    room, _host = rooms.do_create_room("Ann", settings or None)
    return room


def read(room: Room | None, data: bytes) -> dict[str, Any]:
    """The photo read as the site reads a room's photo (the real models)."""
    memory = services.memory_for_room(room) if room is not None else None
    return reading.read_bytes(data, 4, memory=memory)


def relabelled(faces: list[list[str]]) -> list[list[str]]:
    """The board with its first RELABELLED dice given another face (the next in FACES that
    is a letter), as a host typing wrong letters on purpose would."""
    flat = [face for row in faces for face in row]
    for index in range(RELABELLED):
        position = FACES.index(flat[index])
        flat[index] = next(
            FACES[(position + step) % len(FACES)]
            for step in range(1, len(FACES))
            if FACES[(position + step) % len(FACES)].isalpha()
        )
    side = len(faces)
    return [flat[row * side : (row + 1) * side] for row in range(side)]


def confirm(room: Room, data: bytes, faces: list[list[str]]) -> int:
    """A photo of the room, read by the site, confirmed by its host with ``faces``."""
    photo = BoardPhoto(room=room, status=BoardPhoto.Status.READ)
    photo.image.save("board.jpg", ContentFile(data), save=False)
    photo.result = read(room, data)
    photo.save()
    return services.remember_photo(photo.pk, faces)


def flat(rows: list[list[Any]]) -> list[Any]:
    return [value for row in rows for value in row]


@pytest.fixture
def attacked(public, real_board) -> tuple[Room, bytes, dict[str, Any]]:
    """Room A's host turned learning on and confirmed two photos, 8 dice relabelled in each.
    Returns room A, the photo's bytes and the reading of the reader alone (no memory)."""
    data = real_board.path.read_bytes()
    unaided = read(None, data)
    assert unaided["board"] == "ygkh auox mrlz isio"  # the precondition: the reader alone is right
    attacker = a_room()
    rooms.do_update_settings(attacker.players.get(), {"learn_photo_set": True})
    lies = relabelled(real_board.faces)
    assert sum(a != b for a, b in zip(flat(lies), flat(real_board.faces), strict=True)) == 8
    for _ in range(2):
        assert confirm(attacker, data, lies) == 16
    return attacker, data, unaided


def test_a_room_that_never_touched_dice_sets_reads_as_the_reader_alone(attacked):
    """Room B reads the photo exactly as the reader does without any memory: the same
    letters, the same confidences, nothing read wrong and confident."""
    _attacker, data, unaided = attacked
    victim = a_room()
    seen = read(victim, data)
    wrong = [
        (got, right, confidence)
        for got, right, confidence in zip(
            flat(seen["letters"]), flat(unaided["letters"]), flat(seen["confidence"]), strict=True
        )
        if got != right
    ]
    assert wrong == [], f"room B read {len(wrong)} dice differently: {wrong}"
    assert seen["confidence"] == unaided["confidence"]
    assert services.dice_set_for_room(victim).installation
    # The installation's set learnt nothing from room A: no staff approved anything.
    installation = DiceSet.objects.get(installation=True)
    assert not Exemplar.objects.filter(dice_set=installation).exists()


def test_the_attacker_learns_into_its_own_set_only(attacked):
    attacker, _data, _unaided = attacked
    own = services.dice_set_for_room(attacker)
    assert not own.installation and own.started_in == attacker
    assert set(Exemplar.objects.values_list("dice_set", flat=True)) == {own.pk}


def test_the_relabelled_dice_are_contested_and_never_make_a_die_confident(attacked):
    """In room A itself (its own set, poisoned by its own host): the dice its host
    relabelled against a confident reading are kept apart (contested); a die the memory
    reads otherwise than the reader alone is doubtful, never confident."""
    attacker, data, unaided = attacked
    contested = Exemplar.objects.filter(contested=True)
    assert contested.count() == 2 * RELABELLED
    assert (
        not Exemplar.objects.filter(contested=False)
        .exclude(face__in=flat(unaided["letters"]))
        .exists()
    )
    seen = read(attacker, data)
    for got, alone, confidence, doubtful, remembered in zip(
        flat(seen["letters"]),
        flat(unaided["letters"]),
        flat(seen["confidence"]),
        flat(seen["doubtful"]),
        flat(seen["remembered"]),
        strict=True,
    ):
        if got != alone:
            assert remembered and doubtful and confidence < DOUBTFUL_BELOW, (got, alone)
        else:
            assert not remembered
    assert seen["unaided"]["letters"] == unaided["letters"]
