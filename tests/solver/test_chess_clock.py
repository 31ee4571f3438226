"""The chess clock (solver.chess_clock): turns in order, a word stops the clock and passes
the turn, a flag puts its player out, the last one left wins, the host's skip."""

from __future__ import annotations

import pytest

from solver.chess_clock import ChessClock

ANN, BOB, CY = 1, 2, 3


def test_the_first_players_clock_runs_from_the_start():
    clock = ChessClock.start([ANN, BOB, CY], 60, now_ms=1000)
    assert clock.current == ANN and not clock.over
    assert clock.flag_falls_at() == 61_000
    assert clock.left(ANN, 11_000) == 50_000 and clock.left(BOB, 11_000) == 60_000


def test_a_word_stops_the_clock_and_passes_the_turn_in_order():
    clock = ChessClock.start([ANN, BOB, CY], 60, now_ms=0).play(10_000)
    assert clock.current == BOB and clock.left(ANN, 99_000) == 50_000
    assert clock.flag_falls_at() == 70_000
    clock = clock.play(15_000).play(16_000)
    assert clock.current == ANN
    assert [clock.left(p, 16_000) for p in (ANN, BOB, CY)] == [50_000, 55_000, 59_000]


def test_a_word_after_the_flag_fell_is_too_late():
    clock = ChessClock.start([ANN, BOB], 20, now_ms=0)
    with pytest.raises(ValueError):
        clock.play(20_000)


def test_a_flag_puts_its_player_out_and_the_next_clock_starts_when_it_fell():
    clock = ChessClock.start([ANN, BOB, CY], 20, now_ms=0)
    assert clock.flag(19_999) is clock  # not yet
    clock = clock.flag(20_500)  # noticed a little late: Bob's clock started at 20 s
    assert clock.out == (ANN,) and clock.current == BOB and clock.turn_started_ms == 20_000
    assert clock.left(ANN, 30_000) == 0
    clock = clock.play(25_000)  # Bob: Cy's turn; Ann is skipped in the order
    assert clock.current == CY
    clock = clock.play(26_000)
    assert clock.current == BOB


def test_the_last_one_left_wins_and_with_two_the_first_to_zero_loses():
    clock = ChessClock.start([ANN, BOB], 20, now_ms=0).play(5_000)
    clock = clock.flag(clock.flag_falls_at())
    assert clock.over and clock.winner == ANN and clock.out == (BOB,)
    assert clock.flag_falls_at() is None
    with pytest.raises(ValueError):
        clock.play(99_000)


def test_the_host_skips_a_player_who_left():
    clock = ChessClock.start([ANN, BOB, CY], 60, now_ms=0)
    clock = clock.skip(ANN, 3_000)  # Ann's turn: Bob's starts now
    assert clock.out == (ANN,) and clock.current == BOB and clock.turn_started_ms == 3_000
    assert clock.skip(ANN, 4_000) is clock  # already out
    clock = clock.skip(CY, 5_000)  # not Cy's turn, and only Bob is left: he wins
    assert clock.over and clock.winner == BOB and clock.left(BOB, 9_000) == 58_000


def test_fewer_than_two_players_is_over_at_once():
    assert ChessClock.start([ANN], 60, 0).over
    assert ChessClock.start([], 60, 0).winner is None


def test_it_is_kept_as_json():
    clock = ChessClock.start([ANN, BOB, CY], 60, 0).play(1_000).flag(61_000)
    assert ChessClock.from_dict(clock.to_dict()) == clock
