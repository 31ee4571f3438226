"""One player in two tabs: what one tab enters, the other lists (``my_word``), while the
verdict with its ``request_id`` goes only to the socket that asked."""

from __future__ import annotations

import pytest

from tests.games.ws_helpers import (
    NOT_ON_BOARD,
    collect,
    open_socket,
    receive,
    receive_until,
    start_round,
    submit,
    two_players,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]


async def test_a_word_entered_in_one_tab_reaches_the_players_other_tab():
    """Ann's second tab gets ``my_word`` for each entry of her first (accepted or refused,
    with its verdict and client_id, no request_id); the first tab gets only its verdict;
    Bob gets neither."""
    ann, bob = await two_players(round_seconds=60)
    second_tab = await open_socket(ann.code, ann.token)
    assert (await receive(second_tab))["type"] == "state"
    await start_round(ann, bob)
    await receive_until(second_tab, "round.started")

    accepted = await submit(ann.comm, "cats", client_id="t1")
    refused = await submit(ann.comm, NOT_ON_BOARD, client_id="t2")
    assert accepted["verdict"] == "accepted" and refused["verdict"] == "not_on_board"

    seen = [m for m in await collect(second_tab) if m["type"] in ("my_word", "verdict")]
    assert [(m["type"], m["word"], m["client_id"], m["verdict"]) for m in seen] == [
        ("my_word", "cats", "t1", "accepted"),
        ("my_word", NOT_ON_BOARD, "t2", "not_on_board"),
    ]
    assert all("request_id" not in m for m in seen)
    assert seen[1]["accepted"] is False and seen[1]["reason"] == "not on the board"
    assert [m for m in await collect(ann.comm) if m["type"] in ("my_word", "verdict")] == []
    assert [m for m in await collect(bob.comm) if m["type"] in ("my_word", "verdict")] == []

    # And the other way round: the second tab's entry shows in the first.
    other = await submit(second_tab, "dog", client_id="t3")
    assert other["verdict"] == "accepted"
    mine = await receive_until(ann.comm, "my_word")
    assert (mine["word"], mine["client_id"], mine["accepted"]) == ("dog", "t3", True)


async def test_hidden_verdicts_stay_hidden_in_the_other_tab():
    """With ``instant_verdicts`` off the other tab learns only that the word was received."""
    ann, bob = await two_players(round_seconds=60, instant_verdicts=False)
    second_tab = await open_socket(ann.code, ann.token)
    assert (await receive(second_tab))["type"] == "state"
    await start_round(ann, bob)
    await submit(ann.comm, NOT_ON_BOARD, client_id="h1")
    mine = await receive_until(second_tab, "my_word")
    assert (mine["verdict"], mine["accepted"], mine["reason"]) == ("received", None, None)
