"""The board stays on the server until its round starts (issue 48, hole 7): a round that is
preparing or waits in a ready check shows its size but not its letters, in every event
(``round.preparing``, ``round.ready_check``), every state (the players' sockets, the table
screen's, ``GET /api/rooms/<code>`` with or without a session, the room and table pages);
``round.started`` hands it to everyone at once."""

from __future__ import annotations

import re

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from games import rounds
from games.models import Round
from tests.games.test_table_spectators import watch
from tests.games.ws_helpers import BOARD, ask, post_json, receive_until, two_players

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]

# What a page needs to draw the dice face down, and nothing that says a letter.
HIDDEN = {"board": None, "grid": None, "rows": 4, "cols": 4}


def board_fields(round_: dict) -> dict:
    return {key: round_[key] for key in HIDDEN}


def no_letters_of(text: str) -> bool:
    """Whether ``text`` (a page, a JSON body) holds none of BOARD's rows."""
    return not any(row in text for row in BOARD.split())


async def test_a_ready_check_shows_no_letter_until_the_round_starts():
    ann, bob = await two_players(ready_check=True)
    spectator, _state = await watch(ann.code)
    assert (await ask(ann.comm, "set_board", board=BOARD))["type"] == "ok"
    assert (await ask(ann.comm, "start_round"))["type"] == "ok"
    for comm in (ann.comm, bob.comm, spectator):
        preparing = await receive_until(comm, "round.preparing")
        assert board_fields(preparing["round"]) == HIDDEN
        waiting = await receive_until(comm, "round.ready_check")
        assert board_fields(waiting["round"]) == HIDDEN
        assert waiting["round"]["ready_check"]["waiting"] == [ann.id, bob.id]
    number = waiting["round"]["number"]

    # While the room waits: every state, however asked for.
    assert board_fields((await ask(bob.comm, "sync"))["state"]["round"]) == HIDDEN
    assert board_fields((await ask(spectator, "sync"))["state"]["round"]) == HIDDEN
    anonymous = await sync_to_async(Client().get)(f"/api/rooms/{ann.code}")
    assert anonymous.status_code == 200
    assert board_fields(anonymous.json()["room"]["round"]) == HIDDEN
    assert no_letters_of(anonymous.content.decode())
    with_session = await sync_to_async(bob.client.get)(f"/api/rooms/{ann.code}")
    assert board_fields(with_session.json()["room"]["round"]) == HIDDEN
    for page in (f"/r/{ann.code}/", f"/r/{ann.code}/table/"):
        response = await sync_to_async(bob.client.get)(page)
        assert response.status_code == 200, page
        assert no_letters_of(response.content.decode()), page
    stored = await sync_to_async(Round.objects.get)(room__code=ann.code, number=number)
    assert stored.status == Round.Status.PREPARING and stored.board == BOARD

    # The round starts: everyone gets the board in the same event.
    assert (await ask(ann.comm, "force_start", round_number=number))["type"] == "ok"
    for comm in (ann.comm, bob.comm, spectator):
        started = await receive_until(comm, "round.started")
        assert started["round"]["board"] == BOARD
        assert started["round"]["grid"][0] == ["c", "a", "t", "s"]
    assert (await ask(bob.comm, "sync"))["state"]["round"]["board"] == BOARD
    anonymous = await sync_to_async(Client().get)(f"/api/rooms/{ann.code}")
    assert anonymous.json()["room"]["round"]["board"] == BOARD


async def test_without_a_ready_check_the_preparing_round_hides_its_board_too():
    ann, bob = await two_players()
    assert (await ask(ann.comm, "set_board", board=BOARD))["type"] == "ok"
    assert (await ask(ann.comm, "start_round"))["type"] == "ok"
    preparing = await receive_until(bob.comm, "round.preparing")
    assert board_fields(preparing["round"]) == HIDDEN
    started = await receive_until(bob.comm, "round.started")
    assert started["round"]["board"] == BOARD


async def test_a_daily_attempt_answers_with_no_letter_before_its_round_starts(monkeypatch):
    """``POST /api/daily`` creates the solo room on today's board and starts its round at
    once: with the solving left to a worker (production), the answer holds the round
    preparing, and neither it nor the settings (``next_board``, the board the round took)
    may show the board."""
    monkeypatch.setattr(rounds, "_enqueue_prepare", lambda round_id: None)  # a worker's job
    response = await post_json(Client(), "/api/daily", {"nickname": "Ann"})
    assert response.status_code == 201, response.content
    room = response.json()["room"]
    assert room["round"]["status"] == "preparing"
    assert board_fields(room["round"])["board"] is None and room["round"]["grid"] is None
    assert room["settings"]["next_board"] is None
    stored = await sync_to_async(Round.objects.get)(room__code=room["code"], number=1)
    # A row as a word of its own (the board's notation, any case): inside other words ("ntry"
    # in "entry") it is the day's chance, not a leak.
    content = response.content.decode()
    leaked = [row for row in stored.board.split() if re.search(rf"\b{row}\b", content, re.I)]
    assert not leaked, (leaked, content)
