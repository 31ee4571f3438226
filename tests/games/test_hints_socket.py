"""The ``hint`` socket message (games.hints, docs/api.md "Hints"): answered in a solo
practice room while the round plays, refused with ``hints_not_offered`` in a room with
friends and on the daily board."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.utils import timezone

from games.models import Round
from tests.games.ws_helpers import (
    Player,
    ask,
    connect,
    post_json,
    receive_until,
    set_round_times,
    start_round,
    two_players,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]


async def playing(path: str) -> tuple[Player, Round]:
    """POST ``path`` (/api/practice or /api/daily), connect, and skip the countdown."""
    response = await post_json(Client(), path, {"nickname": "Ann"})
    assert response.status_code == 201, response.content
    player = Player(response.json(), Client())
    await connect(player)
    assert player.comm is not None
    round_ = await sync_to_async(Round.objects.get)(room__code=player.code, number=1)
    if round_.status != Round.Status.RUNNING:
        await receive_until(player.comm, "round.started")
    await set_round_times(round_, starts_at=timezone.now())
    await sync_to_async(round_.refresh_from_db)()
    return player, round_


async def test_a_practice_room_answers_a_hint_with_a_prefix_of_an_unfound_word() -> None:
    ann, round_ = await playing("/api/practice")
    assert ann.comm is not None
    reply = await ask(ann.comm, "hint")
    assert reply["type"] == "hint", reply
    assert (reply["hints_used"], reply["cost"], reply["round"]) == (1, 1, 1)
    assert len(reply["letters"]) == 2
    assert any(
        entry[0].startswith(reply["letters"]) and len(entry[0]) == reply["word_length"]
        for entry in round_.solution
    )
    again = await ask(ann.comm, "hint")
    assert again["hints_used"] == 2 and len(again["letters"]) in (2, 3)


async def test_a_room_with_friends_refuses_hints() -> None:
    ann, bob = await two_players()
    await start_round(ann, bob)
    assert bob.comm is not None
    reply = await ask(bob.comm, "hint")
    assert (reply["type"], reply["code"], reply["request"]) == (
        "error",
        "hints_not_offered",
        "hint",
    )


async def test_the_daily_board_refuses_hints() -> None:
    ann, _ = await playing("/api/daily")
    assert ann.comm is not None
    reply = await ask(ann.comm, "hint")
    assert (reply["type"], reply["code"]) == ("error", "hints_not_offered")
