"""Helpers of the daily board's tests: the API as a browser calls it, and a round run
through the engine (the prepare task and the countdown done by hand)."""

from __future__ import annotations

import json
import random
from datetime import date, timedelta
from typing import Any

from django.test import Client
from django.utils import timezone

from games import room_dictionaries, rounds
from games.models import Player, Round, Submission
from solver import parse_board, solve
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
    enter_at_times(round_, player, entries, [(i + 1) * seconds_apart for i in range(len(entries))])


def enter_at_times(round_: Round, player: Player, entries: list[str], times: list[float]) -> None:
    """Enter ``entries`` through the engine, then date the n-th ``times[n]`` seconds after
    the round's start (when it reached the server, and when its row was written)."""
    for entry in entries:
        submit_word(player, entry)
    round_.refresh_from_db()
    starts_at = round_.starts_at
    assert starts_at is not None, "the round has not started"
    mine = Submission.objects.filter(round=round_, player=player).order_by("id")
    for seconds, submission_id in zip(times, mine.values_list("id", flat=True), strict=True):
        at = starts_at + timedelta(seconds=seconds)
        Submission.objects.filter(pk=submission_id).update(created_at=at, received_at=at)


def solve_like_the_script(round_: Round) -> list[str]:
    """Issue 48's script: the board as ``round.started`` carries it, solved with the
    project's own solver and the room's word list; every word, in the solver's order."""
    round_.refresh_from_db()
    word_list = room_dictionaries.word_list_for_round(round_)
    return [found.word for found in solve(parse_board(round_.board), word_list).words]


def paced_script_times(count: int, seed: int = 48) -> list[float]:
    """When issue 48's script enters ``count`` words: irregular, human-looking gaps of 0.75
    to 4 s, never more than 14 words within 10 s (0.75 s apart at the fastest)."""
    rng = random.Random(seed)
    times, now = [], 1.5
    for _ in range(count):
        now += rng.choice([0.75, 0.8, 0.9, 1.2, 1.6, 2.4, 4.0]) * rng.uniform(1.0, 1.05)
        times.append(round(now, 3))
    return times


def strong_human_words(solution: list[list], share: float = 0.35, seed: int = 5) -> list[str]:
    """What a strong player finds on a board (a round's ``solution``: ``[word, points, path,
    common]`` entries): common words, shortest first with some shuffling, and a rare word
    now and then later on, until ``share`` of the board's maximum points."""
    rng = random.Random(seed)
    maximum = sum(entry[1] for entry in solution)
    common = sorted(
        (entry for entry in solution if entry[3]), key=lambda e: len(e[0]) + rng.uniform(0, 2.5)
    )
    rare = [entry for entry in solution if not entry[3] and len(entry[0]) <= 5]
    found: list[str] = []
    points = 0
    for index, entry in enumerate(common):
        if points + entry[1] > share * maximum:
            break
        found.append(entry[0])
        points += entry[1]
        if index >= 8 and index % 6 == 0 and rare:  # a rare word of few letters, now and then
            extra = rare.pop(rng.randrange(len(rare)))
            if points + extra[1] <= share * maximum:
                found.append(extra[0])
                points += extra[1]
    return found
