"""Which official sets could have rolled a board (the photo reader's check against a set's
own dice, vision.dice_check, uses the sets a room's confirmed boards fit)."""

from __future__ import annotations

from solver.dice import DICE_SETS, could_roll, roll, sets_that_could_roll


def test_every_roll_of_a_set_fits_that_set() -> None:
    for name, dice_set in DICE_SETS.items():
        for seed in range(30):
            board = roll(name, seed=seed)
            assert could_roll(dice_set.dice, board.faces)
            assert name in sets_that_could_roll(board.faces)


def test_a_second_face_that_only_one_die_shows_does_not_fit() -> None:
    classic = DICE_SETS["classic"]
    board = list(roll("classic", seed=1).faces)
    # Classic 1992 has one die with an x (DEILRX) and one with a z (HLNNRZ).
    board[0], board[1] = "x", "x"
    assert not could_roll(classic.dice, board)
    board[1] = "z"
    assert could_roll(classic.dice, board) == could_roll(classic.dice, sorted(board))


def test_a_board_of_another_size_or_with_a_face_no_set_has_fits_none() -> None:
    assert not could_roll(DICE_SETS["classic"].dice, ["a"] * 25)
    assert sets_that_could_roll(["#"] * 16) == []
