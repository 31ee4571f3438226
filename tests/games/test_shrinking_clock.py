"""The shrinking clock (solver.clocks, docs/api.md "Shrinking clock"): each round of a game
is shorter than the one before, down to a floor; the settings say how long the next round
is; a new game starts again from the full length; untimed rounds never shrink."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.games.ws_helpers import (
    BOARD,
    ask,
    post_json,
    receive_until,
    two_players,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]


async def play_round(ann, bob) -> tuple[dict, dict]:
    """Start a round, end it; returns the round as round.started showed it, and the
    settings the start sent (the next round's length)."""
    assert (await ask(ann.comm, "set_board", board=BOARD))["type"] == "ok"
    assert (await ask(ann.comm, "start_round"))["type"] == "ok"
    await receive_until(bob.comm, "round.preparing")
    settings = (await receive_until(bob.comm, "settings.changed"))["settings"]
    started = (await receive_until(bob.comm, "round.started"))["round"]
    assert (await ask(ann.comm, "end_round"))["type"] == "ok"
    await receive_until(bob.comm, "round.ended")
    return started, settings


async def test_each_round_is_shorter_down_to_the_floor_and_a_new_game_starts_full() -> None:
    ann, bob = await two_players(round_seconds=180, shrink_seconds=30, shrink_floor=120)
    lobby = (await ask(bob.comm, "sync"))["state"]["settings"]
    assert (lobby["shrink_seconds"], lobby["shrink_floor"], lobby["next_round_seconds"]) == (
        30,
        120,
        180,
    )
    lengths, announced = [], []
    for _ in range(4):
        started, settings = await play_round(ann, bob)
        # The round copies its length: its deadline follows it.
        assert started["ends_at"] - started["starts_at"] == started["round_seconds"] * 1000
        lengths.append(started["round_seconds"])
        announced.append(settings["next_round_seconds"])
    assert lengths == [180, 150, 120, 120]
    assert announced == [150, 120, 120, 120]
    assert settings["round_seconds"] == 180  # the room's own length never changes

    assert (await ask(ann.comm, "end_game"))["type"] == "ok"
    assert (await ask(ann.comm, "new_game"))["type"] == "ok"
    restarted = await receive_until(bob.comm, "settings.changed")
    assert restarted["settings"]["next_round_seconds"] == 180
    started, settings = await play_round(ann, bob)
    assert (started["number"], started["number_in_game"]) == (5, 1)
    assert (started["round_seconds"], settings["next_round_seconds"]) == (180, 150)


async def test_changing_the_clock_between_rounds_counts_the_rounds_played() -> None:
    ann, bob = await two_players(round_seconds=120)
    started, _ = await play_round(ann, bob)
    assert started["round_seconds"] == 120
    reply = await ask(ann.comm, "update_settings", settings={"shrink_seconds": 45})
    assert reply["type"] == "ok"
    # The second round of the game: one step shorter; a floor above it stops it there.
    assert reply["settings"]["next_round_seconds"] == 75
    reply = await ask(ann.comm, "update_settings", settings={"shrink_floor": 90})
    assert reply["settings"]["next_round_seconds"] == 90
    started, _ = await play_round(ann, bob)
    assert started["round_seconds"] == 90


async def test_untimed_rounds_never_shrink() -> None:
    ann, bob = await two_players(round_seconds=None, shrink_seconds=30)
    for _ in range(2):
        assert (await ask(ann.comm, "set_board", board=BOARD))["type"] == "ok"
        assert (await ask(ann.comm, "start_round"))["type"] == "ok"
        started = (await receive_until(bob.comm, "round.started"))["round"]
        assert (started["round_seconds"], started["ends_at"]) == (None, None)
        assert (await ask(ann.comm, "end_round"))["type"] == "ok"
        await receive_until(bob.comm, "round.ended")
    assert (await ask(bob.comm, "sync"))["state"]["settings"]["next_round_seconds"] is None


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"shrink_seconds": 4}, "shrink_seconds is 0 (off) or 5 to 600"),
        ({"shrink_seconds": 601}, "shrink_seconds is 0 (off) or 5 to 600"),
        ({"shrink_seconds": "30"}, "shrink_seconds is 0 (off) or 5 to 600"),
        ({"shrink_seconds": True}, "shrink_seconds is 0 (off) or 5 to 600"),
        ({"shrink_floor": 29}, "shrink_floor is 30 to 1800 seconds"),
        ({"shrink_floor": None}, "shrink_floor is 30 to 1800 seconds"),
    ],
)
async def test_clock_settings_are_checked(settings: dict, message: str) -> None:
    body = {"nickname": "Ann", "settings": settings}
    response = await post_json(Client(), "/api/rooms", body)
    assert response.status_code == 400
    assert response.json()["error"] == {"code": "invalid", "message": message}
