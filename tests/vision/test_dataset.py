"""The split of the labelled photos is by board: no board is on both sides."""

from __future__ import annotations

from collections import Counter

from vision import dataset


def test_no_board_in_both_splits(validation_photos) -> None:
    """No validation photo shares most of its faces with a training photo."""
    training, validation = dataset.split_by_board(dataset.load_photos())
    assert {p.path for p in validation} == {p.path for p in validation_photos}
    assert {p.side for p in validation} == {4, 5, 6}
    for held_out in validation:
        faces = Counter(die.face for die in held_out.dice)
        for seen in training:
            shared = sum((faces & Counter(die.face for die in seen.dice)).values())
            most = max(len(held_out.dice), len(seen.dice))
            assert shared < dataset.SAME_BOARD_OVERLAP * most, (held_out.path, seen.path)
