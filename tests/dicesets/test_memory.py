"""Dice sets and their exemplars: the installation's set, the bound per face, learning from
a real confirmed photo (crops cut by vision.memory.board_crops), consent at home and on a
public installation, and the memory the reader gets (cached per process, fresh after a
confirmation)."""

from __future__ import annotations

import numpy as np
import pytest
from django.db import transaction
from django.db.models import ProtectedError
from django.utils import timezone

from dicesets import choices, services
from dicesets.models import CROP_BYTES, DiceSet, Exemplar, RoomDiceSet
from games import rooms
from games.models import Room
from vision.memory import MAX_PER_FACE, SetMemory, board_crops

pytestmark = pytest.mark.django_db


def a_room(**settings) -> Room:
    room, _host = rooms.do_create_room("Ann", settings or None)
    return room


def crops(count: int, value: int = 0) -> np.ndarray:
    """``count`` crops, each of one grey level (value, value + 1, ...), to tell them apart."""
    return np.stack([np.full((32, 32), (value + i) % 256, np.uint8) for i in range(count)])


def learn_flat(dice_set: DiceSet, faces: list[str], value: int = 0) -> int:
    return services.store_exemplars(dice_set, crops(len(faces), value), faces)


# ------------------------------------------------------------------ models and bounds


def test_the_installation_set_exists_and_is_the_default():
    """The data migration made it; a room with no choice uses it."""
    installation = DiceSet.objects.get(installation=True)
    room = a_room()
    assert services.dice_set_for_room(room) == installation
    assert not RoomDiceSet.objects.filter(room=room).exists()


def test_the_installation_set_cannot_be_deleted_only_emptied():
    installation = choices.installation_set()
    learn_flat(installation, ["a", "b"])
    with pytest.raises(ProtectedError), transaction.atomic():
        installation.delete()
    with pytest.raises(ProtectedError), transaction.atomic():
        DiceSet.objects.filter(installation=True).delete()
    Exemplar.objects.filter(dice_set=installation).delete()
    assert DiceSet.objects.filter(installation=True).count() == 1


def test_a_set_keeps_the_newest_exemplars_of_each_face():
    """Beyond MAX_PER_FACE of a face the oldest go, in the same transaction; other faces
    are untouched."""
    dice_set = DiceSet.objects.create(name="Grandma's French set")
    learn_flat(dice_set, ["e"] * 5 + ["a"], value=0)
    learn_flat(dice_set, ["e"] * 6, value=100)
    kept = list(dice_set.exemplars.filter(face="e").order_by("id").values_list("crop", flat=True))
    assert len(kept) == MAX_PER_FACE
    levels = [bytes(crop)[0] for crop in kept]
    assert levels == [3, 4, 100, 101, 102, 103, 104, 105]  # the two oldest went
    assert dice_set.exemplars.filter(face="a").count() == 1
    assert all(len(bytes(crop)) == CROP_BYTES for crop in kept)


def test_one_board_with_more_of_a_face_than_the_bound_keeps_the_bound():
    dice_set = DiceSet.objects.create(name="Big set")
    learn_flat(dice_set, ["e"] * (MAX_PER_FACE + 3))
    assert dice_set.exemplars.count() == MAX_PER_FACE


def test_a_deleted_room_leaves_its_set_and_a_deleted_set_its_exemplars_go():
    room = a_room(new_photo_set="Camping set")
    dice_set = services.dice_set_for_room(room)
    learn_flat(dice_set, ["a", "b"])
    room.delete()
    dice_set.refresh_from_db()
    assert dice_set.started_in is None
    dice_set.delete()
    assert not Exemplar.objects.exists()


# ------------------------------------------------------------------ a real confirmed photo


def test_a_confirmed_photo_teaches_the_rooms_set_at_home(embedded, real_board):
    """Every die of the board is kept with its confirmed face and exactly the crop
    vision.memory.board_crops cuts, tagged with the room and the photo."""
    room = a_room(new_photo_set="Grandma's French set")
    added = services.remember_board(
        room,
        real_board.path.read_bytes(),
        real_board.corners,
        real_board.rows,
        real_board.cols,
        real_board.faces,
        photo_id=41,
    )
    assert added == 16
    dice_set = services.dice_set_for_room(room)
    rows = list(dice_set.exemplars.order_by("id"))
    assert [row.face for row in rows] == [face for row in real_board.faces for face in row]
    expected = board_crops(
        str(real_board.path), np.asarray(real_board.corners), real_board.rows, real_board.cols
    )
    assert [bytes(row.crop) for row in rows] == [crop.tobytes() for crop in expected]
    assert {(row.room_code, row.photo_id) for row in rows} == {(room.code, 41)}
    memory = services.memory_for_room(room)
    assert isinstance(memory, SetMemory)
    assert len(memory) == 16
    assert memory.faces == tuple(face for row in real_board.faces for face in row)
    np.testing.assert_array_equal(memory.crops, expected)


def test_the_same_photo_confirmed_again_replaces_its_dice(embedded, real_board):
    """A retried task, or the host correcting and confirming again: the photo's dice are
    kept once, as last confirmed."""
    room = a_room()
    data = real_board.path.read_bytes()
    args = (real_board.corners, real_board.rows, real_board.cols)
    services.remember_board(room, data, *args, real_board.faces, photo_id=7)
    corrected = [row[:] for row in real_board.faces]
    corrected[0][0] = "v"
    services.remember_board(room, data, *args, corrected, photo_id=7)
    dice_set = services.dice_set_for_room(room)
    assert dice_set.exemplars.count() == 16
    assert dice_set.exemplars.order_by("id").first().face == "v"


def test_photos_of_one_set_stay_within_the_bound(embedded, real_board):
    room = a_room()
    data = real_board.path.read_bytes()
    for photo_id in range(1, 5):
        services.remember_board(
            room,
            data,
            real_board.corners,
            real_board.rows,
            real_board.cols,
            real_board.faces,
            photo_id=photo_id,
        )
    dice_set = services.dice_set_for_room(room)
    per_face = {face: dice_set.exemplars.filter(face=face).count() for face in "iogk"}
    # "i" and "o" are on the board twice: 8 kept of 4 photos x 2; the others once each.
    assert per_face == {"i": MAX_PER_FACE, "o": MAX_PER_FACE, "g": 4, "k": 4}
    assert {row for row in dice_set.exemplars.values_list("photo_id", flat=True)} == {1, 2, 3, 4}


def test_without_consent_nothing_is_kept(embedded, real_board):
    room = a_room(learn_photo_set=False)
    added = services.remember_board(
        room,
        str(real_board.path),
        real_board.corners,
        real_board.rows,
        real_board.cols,
        real_board.faces,
    )
    assert added == 0
    assert not Exemplar.objects.exists()


def test_on_a_public_installation_nothing_is_kept_until_the_host_says_yes(public, real_board):
    room = a_room()
    args = (
        str(real_board.path),
        real_board.corners,
        real_board.rows,
        real_board.cols,
        real_board.faces,
    )
    assert services.remember_board(room, *args) == 0
    host = room.players.get()
    rooms.do_update_settings(host, {"learn_photo_set": True})
    assert services.remember_board(room, *args) == 16
    # Into a set of the room's own, never the installation's (issue 48).
    own = services.dice_set_for_room(room)
    assert not own.installation and own.started_in == room and own.started_for_learning
    assert not Exemplar.objects.filter(dice_set__installation=True).exists()


def test_at_home_the_default_is_to_learn(embedded, real_board):
    room = a_room()
    assert choices.learns(choices.room_choice(room))
    assert services.remember_board(
        room,
        str(real_board.path),
        real_board.corners,
        real_board.rows,
        real_board.cols,
        real_board.faces,
    )


def test_faces_that_do_not_fit_the_board_are_refused(embedded, real_board):
    room = a_room()
    args = (str(real_board.path), real_board.corners, real_board.rows, real_board.cols)
    with pytest.raises(ValueError, match="rows"):
        services.remember_board(room, *args, real_board.faces[:3])
    with pytest.raises(ValueError, match="unknown faces"):
        services.remember_board(room, *args, [["<", "a", "b", "c"], *real_board.faces[1:]])
    assert not Exemplar.objects.exists()


# ------------------------------------------------------------------ the reader's memory


def test_a_set_with_nothing_learnt_gives_no_memory():
    assert services.memory_for_room(a_room()) is None


def test_the_memory_is_cached_until_the_set_changes(django_assert_num_queries):
    """One aggregate query (and the room's set) while nothing changed; a new confirmation
    or a deleted exemplar is seen at the next call."""
    room = a_room(new_photo_set="Grandma's French set")
    dice_set = services.dice_set_for_room(room)
    learn_flat(dice_set, ["a", "b", "c"])
    first = services.memory_for_room(room)
    assert first is not None and first.faces == ("a", "b", "c")
    with django_assert_num_queries(2):  # the room's choice (with its set), the key
        assert services.memory_for_room(room) is first
    learn_flat(dice_set, ["qu"], value=9)
    second = services.memory_for_room(room)
    assert second is not first and second.faces == ("a", "b", "c", "qu")
    Exemplar.objects.filter(dice_set=dice_set, face="a").delete()
    assert services.memory_for_room(room).faces == ("b", "c", "qu")


def test_the_installation_set_is_read_with_what_staff_approved_only():
    """Its dice kept before issue 48 (any room could have taught them) wait for staff; an
    approval is seen at the next reading."""
    room = a_room()
    installation = services.dice_set_for_room(room)
    learn_flat(installation, ["a", "b"])
    assert services.memory_for_room(room) is None
    services.approve_for_installation(Exemplar.objects.filter(face="b"), approved_by="root")
    assert services.memory_for_room(room).faces == ("b",)
    assert choices.photo_set_dict(room)["exemplars"] == 1


def test_rooms_on_other_sets_get_their_own_memory():
    home = a_room(new_photo_set="Grandma's French set")
    other = a_room()
    learn_flat(services.dice_set_for_room(home), ["qu"])
    learn_flat(services.dice_set_for_room(other), ["a", "b"])
    Exemplar.objects.filter(dice_set__installation=True).update(approved_at=timezone.now())
    assert services.memory_for_room(home).faces == ("qu",)
    assert services.memory_for_room(other).faces == ("a", "b")


def test_the_process_keeps_a_bounded_number_of_memories():
    for index in range(services.MAX_CACHED_SETS + 5):
        dice_set = DiceSet.objects.create(name=f"set {index}")
        learn_flat(dice_set, ["a"])
        room = a_room(photo_set=dice_set.pk)
        services.memory_for_room(room)
    assert len(services._memories) == services.MAX_CACHED_SETS


# ------------------------------------------------------------------ reading with it


def test_a_photo_of_the_room_is_read_with_its_sets_memory(monkeypatch, embedded, real_board):
    """The photos app reads each room's photos with what the room's set learnt: nothing
    before a confirmed board, the confirmed dice after it."""
    from django.core.files.base import ContentFile

    from photos import reading
    from photos.models import BoardPhoto
    from tests.photos.helpers import FakeReader

    fake = FakeReader()
    monkeypatch.setattr(reading, "_reader", fake)
    room = a_room()

    def read_a_photo() -> None:
        photo = BoardPhoto(room=room)
        photo.image.save("board.jpg", ContentFile(real_board.path.read_bytes()), save=False)
        photo.save()
        assert reading.do_read_photo(photo.pk)

    read_a_photo()
    assert fake.calls[-1]["memory"] is None
    services.remember_board(
        room,
        real_board.path,
        real_board.corners,
        real_board.rows,
        real_board.cols,
        real_board.faces,
    )
    read_a_photo()
    memory = fake.calls[-1]["memory"]
    assert isinstance(memory, SetMemory) and len(memory) == 16


def test_a_confirmed_board_readies_the_memory_for_the_next_photo(
    monkeypatch, embedded, real_board
) -> None:
    """Its exemplars' features are computed on the reading thread right after it is kept
    (when the process has its reader), not while the next photo waits."""
    from types import SimpleNamespace

    from django.core.files.base import ContentFile

    from photos import reading
    from photos.models import BoardPhoto

    prepared: list[SetMemory] = []
    classifier = SimpleNamespace(exemplar_features=prepared.append)
    monkeypatch.setattr(reading, "_reader", SimpleNamespace(classifier=classifier))
    room = a_room()
    photo = BoardPhoto(room=room, status=BoardPhoto.Status.READ)
    photo.image.save("board.jpg", ContentFile(real_board.path.read_bytes()), save=False)
    photo.result = {"rows": 4, "cols": 4, "corners": real_board.corners}
    photo.save()
    assert services.remember_photo(photo.pk, real_board.faces) == 16
    reading._reading_threads.submit(lambda: None).result()  # the reading thread is done
    assert len(prepared) == 1 and len(prepared[0]) == 16
    assert prepared[0] is services.memory_for_room(room)  # the very memory photos read with


# ------------------------------------------------------------------ learning apart (issue 48)


def test_turning_learning_on_gives_the_room_a_set_of_its_own(public):
    """On the installation's set, learning on starts the room's own set (once), which
    starts with the dice staff approved for the installation's set; it is not one of the
    five sets a host may start."""
    installation = choices.installation_set()
    learn_flat(installation, ["a", "b"])
    services.approve_for_installation(Exemplar.objects.filter(face="a"), approved_by="root")
    room = a_room()
    host = room.players.get()
    rooms.do_update_settings(host, {"learn_photo_set": True})
    own = services.dice_set_for_room(room)
    assert not own.installation and own.started_in == room and own.started_for_learning
    assert services.memory_for_room(room).faces == ("a",)
    assert choices.started_count(room) == 0
    rooms.do_update_settings(host, {"learn_photo_set": False})
    rooms.do_update_settings(host, {"photo_set": None})
    rooms.do_update_settings(host, {"learn_photo_set": True})
    assert services.dice_set_for_room(room) == own
    assert DiceSet.objects.filter(started_in=room).count() == 1


def test_learning_by_default_at_home_goes_into_the_rooms_own_set(embedded, real_board):
    room = a_room()
    assert services.dice_set_for_room(room).installation
    args = (str(real_board.path), real_board.corners, real_board.rows, real_board.cols)
    assert services.remember_board(room, *args, real_board.faces) == 16
    own = services.dice_set_for_room(room)
    assert own.started_for_learning and own.exemplars.count() == 16
    assert not Exemplar.objects.filter(dice_set__installation=True).exists()
    # Without the reader's own reading of the dice, none vouches for itself.
    assert own.exemplars.filter(contested=True).count() == 16


def test_a_die_is_contested_when_it_contradicts_the_readers_confident_reading(embedded, real_board):
    room = a_room(new_photo_set="Grandma's French set")
    args = (str(real_board.path), real_board.corners, real_board.rows, real_board.cols)
    alone = [face for row in real_board.faces for face in row]
    confidence = [0.99] * 15 + [0.5]
    unaided = services.Unaided(alone, confidence)
    lies = [row[:] for row in real_board.faces]
    lies[0][0] = "e"  # against a confident "y"
    lies[3][3] = "e"  # against an unsure "o"
    services.remember_board(room, *args, lies, photo_id=3, unaided=unaided)
    rows = list(services.dice_set_for_room(room).exemplars.order_by("id"))
    assert [row.contested for row in rows] == [True] + [False] * 15
    assert (rows[0].unaided_face, rows[0].unaided_confidence) == ("y", 0.99)


def test_the_readers_own_reading_comes_from_the_stored_result():
    letters = [["a", "b"], ["c", "d"]]
    confidence = [[0.9, 0.8], [0.7, 0.6]]
    unaided = {"letters": [["x", "b"], ["c", "d"]], "confidence": [[0.99, 0.8], [0.7, 0.6]]}
    result = {"letters": letters, "confidence": confidence, "unaided": unaided}
    assert services.unaided_reading(result) == services.Unaided(
        ["x", "b", "c", "d"], [0.99, 0.8, 0.7, 0.6]
    )
    # A reading stored before it had one: its letters.
    assert services.unaided_reading({"letters": letters, "confidence": confidence}).faces == [
        "a",
        "b",
        "c",
        "d",
    ]
    assert services.unaided_reading({"letters": "abcd"}) is None
