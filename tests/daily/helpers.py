"""Helpers of the daily board's tests: the API as a browser calls it, and a round run
through the engine (the prepare task and the countdown done by hand)."""

from __future__ import annotations

import json
from datetime import date, timedelta
from typing import Any

from django.test import Client
from django.utils import timezone

from games import rounds
from games.models import Player, Round, Submission
from tests.games.words_helpers import submit_word

DAY = date(2026, 5, 1)


def post(client: Client, path: str, body: dict[str, Any]) -> tuple[int, dict]:
    response = client.post(path, json.dumps(body), content_type="application/json")
    return response.status_code, response.json()


def get(client: Client, path: str) -> dict:
    response = client.get(path)
    assert response.status_code == 200
    return response.json()


def start(client: Client, nickname: str) -> tuple[dict, Round, Player]:
    """POST /api/daily; the attempt's round (started at once, as the engine does) and player."""
    status, data = post(client, "/api/daily", {"nickname": nickname})
    assert status == 201, data
    round_ = Round.objects.get(room__code=data["room"]["code"], number=1)
    return data, round_, Player.objects.get(pk=data["player"]["id"])


def begin(round_: Round) -> None:
    """What the prepare task and the countdown do: solve the board, open the round."""
    assert rounds.do_prepare_round(round_.id)
    Round.objects.filter(pk=round_.pk).update(starts_at=timezone.now() - timedelta(seconds=1))


def play(round_: Round, player: Player, entries: list[str]) -> None:
    """Run the round through the engine: begin, the player's entries, end."""
    begin(round_)
    for entry in entries:
        submit_word(player, entry)
    assert rounds.do_end_round(round_.id)


def words_of(round_: Round, count: int) -> list[str]:
    """The best ``count`` words on the round's board (its solution, highest points first)."""
    round_.refresh_from_db()
    return [entry[0] for entry in round_.solution[:count]]


def enter_at_pace(round_: Round, player: Player, entries: list[str], seconds_apart: float) -> None:
    """Enter ``entries`` through the engine, then date them ``seconds_apart`` from the
    round's start: the pace the plausibility rules judge is the test's, not how fast this
    machine happened to run."""
    for entry in entries:
        submit_word(player, entry)
    round_.refresh_from_db()
    starts_at = round_.starts_at
    assert starts_at is not None, "the round has not started"
    mine = Submission.objects.filter(round=round_, player=player).order_by("id")
    for index, submission_id in enumerate(mine.values_list("id", flat=True)):
        at = starts_at + timedelta(seconds=(index + 1) * seconds_apart)
        Submission.objects.filter(pk=submission_id).update(created_at=at)
