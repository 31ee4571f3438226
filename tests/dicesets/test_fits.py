"""Which official sets a room's dice set could be (dicesets.fits): narrowed by each board
its host confirms, trusted from MIN_BOARDS boards of a size, and what the reader checks a
room's photos against (dicesets.services.dice_for_room)."""

from __future__ import annotations

import numpy as np
import pytest

from dicesets import fits, services
from dicesets.models import DiceSet, RoomDiceSet
from games import rooms
from solver.dice import DICE_SETS, could_roll, roll

pytestmark = pytest.mark.django_db


def crops(count: int) -> np.ndarray:
    return np.zeros((count, 32, 32), np.uint8)


def teach(dice_set: DiceSet, faces: list[str], photo_id: int | None = None) -> None:
    services.store_exemplars(dice_set, crops(len(faces)), faces, photo_id=photo_id)
    dice_set.refresh_from_db()


def boards_only(name: str, count: int) -> list[list[str]]:
    """Rolls of set ``name`` that no other official set of its size could have rolled."""
    found: list[list[str]] = []
    for seed in range(10_000):
        faces = list(roll(name, seed=seed).faces)
        others = [
            other
            for other_name, other in DICE_SETS.items()
            if other_name != name and could_roll(other.dice, faces)
        ]
        if not others:
            found.append(faces)
        if len(found) == count:
            return found
    raise AssertionError(f"fewer than {count} boards only {name} rolls")


def test_boards_narrow_the_sets_and_the_reader_checks_from_the_third() -> None:
    dice_set = DiceSet.objects.create(name="Ours")
    first, second, third = boards_only("classic", 3)
    teach(dice_set, first)
    assert dice_set.board_fits["16"] == {"boards": 1, "sets": ["classic"]}
    assert fits.candidate_dice(dice_set) == []  # one board is no evidence yet
    teach(dice_set, second)
    assert fits.candidate_dice(dice_set) == []
    teach(dice_set, third)
    assert dice_set.board_fits["16"]["boards"] == fits.MIN_BOARDS
    assert fits.candidate_dice(dice_set) == [DICE_SETS["classic"].dice]


def test_a_board_no_official_set_could_roll_turns_the_check_off_for_its_size() -> None:
    dice_set = DiceSet.objects.create(name="Home-made")
    for faces in boards_only("classic", 2):
        teach(dice_set, faces)
    teach(dice_set, ["x"] * 16)  # no official set has sixteen x dice
    teach(dice_set, boards_only("classic", 1)[0])
    assert dice_set.board_fits["16"] == {"boards": 4, "sets": []}
    assert fits.candidate_dice(dice_set) == []


def test_sizes_are_counted_apart_and_a_photo_confirmed_again_counts_once() -> None:
    dice_set = DiceSet.objects.create(name="Two sizes")
    big = list(roll("super-big", seed=1).faces)
    for _confirmation in range(3):
        teach(dice_set, big, photo_id=11)  # the same photo, confirmed three times
    assert dice_set.board_fits["36"]["boards"] == 1
    assert "super-big" in dice_set.board_fits["36"]["sets"]
    assert "16" not in dice_set.board_fits


def test_a_room_reads_against_the_sets_its_own_set_could_be() -> None:
    room, _host = rooms.do_create_room("Ann")
    assert services.dice_for_room(room) == []
    own = DiceSet.objects.create(name="Ann's dice", started_in=room)
    RoomDiceSet.objects.create(room=room, dice_set=own)
    for faces in boards_only("classic", fits.MIN_BOARDS):
        teach(own, faces)
    assert services.dice_for_room(room) == [DICE_SETS["classic"].dice]


def test_a_rooms_photo_is_read_against_its_sets_dice(real_board) -> None:
    """Through the photos app's hook (filled by dicesets at start): a board read right
    agrees with the set's dice, die for die."""
    from photos import reading

    room, _host = rooms.do_create_room("Ann")
    own = DiceSet.objects.create(name="Ann's dice", started_in=room)
    RoomDiceSet.objects.create(room=room, dice_set=own)
    for faces in boards_only("classic", fits.MIN_BOARDS):
        teach(own, faces)
    dice_sets = reading._dice_source(room)
    assert dice_sets == [DICE_SETS["classic"].dice]
    result = reading.read_bytes(real_board.path.read_bytes(), 4, dice_sets=dice_sets)
    assert result["letters"] == real_board.faces
    assert result["set_check"] == [[""] * 4] * 4
    unchecked = reading.read_bytes(real_board.path.read_bytes(), 4)
    assert unchecked["set_check"] == []


def test_the_room_sees_what_its_photos_are_checked_against() -> None:
    from dicesets import choices

    room, _host = rooms.do_create_room("Ann")
    own = DiceSet.objects.create(name="Ann's dice", started_in=room)
    RoomDiceSet.objects.create(room=room, dice_set=own)
    assert choices.photo_set_dict(room)["checked_against"] == []
    for faces in boards_only("classic", fits.MIN_BOARDS):
        teach(own, faces)
    assert choices.photo_set_dict(room)["checked_against"] == [
        {
            "dice": 16,
            "boards": fits.MIN_BOARDS,
            "sets": [{"name": "classic", "title": "Classic 4x4 (1992)"}],
        }
    ]
