"""Awards at the end of a game (games.awards, docs/api.md "The end of the game"): the rule
on plain data, and the awards a real game's standing and stats carry."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from games.awards import Accepted, decide
from tests.games.ws_helpers import ask, receive_until, start_round, submit, two_players

ZIPF = {"cats": 4.9, "dogs": 5.0, "quiet": 5.2, "wen": 3.4}


def zipf(word: str) -> float:
    return ZIPF.get(word, 0.0)


def entry(round_number, player, word, points=1, counted=True, seconds=5.0) -> Accepted:
    return Accepted(round_number, player, word, points, counted, seconds)


def by_name(awards: list[dict]) -> dict[str, list[dict]]:
    return {award["award"]: award["winners"] for award in awards}


def test_each_award_goes_to_whoever_did_best_at_it():
    awards = by_name(
        decide(
            [
                entry(1, 1, "quiet", 2, seconds=9.0),
                entry(1, 1, "cats", seconds=12.0),
                entry(1, 2, "cats", seconds=2.5),  # Bob first, but Ann found it too
                entry(1, 2, "wen", seconds=3.0),
                entry(2, 2, "dogs", seconds=20.0),
                entry(2, 3, "zoea", seconds=30.0),  # rare: no frequency
            ],
            round_points={1: [3, 0], 2: [2, 5], 3: [1]},
            zipf=zipf,
        )
    )
    assert awards["longest_word"] == [{"id": 1, "word": "quiet", "round": 1}]
    # Words nobody else found in that round: Ann quiet; Bob wen and dogs; Cid zoea.
    assert awards["most_unique"] == [{"id": 2, "count": 2}]
    assert awards["best_find"] == [{"id": 3, "word": "zoea", "round": 2}]
    assert awards["fastest_first_word"] == [{"id": 2, "word": "cats", "round": 1, "seconds": 2.5}]
    assert awards["most_improved"] == [{"id": 2, "from": 2, "to": 5}]


def test_ties_share_an_award_and_a_cancelled_word_does_not_count():
    awards = by_name(
        decide(
            [
                entry(1, 1, "quiet", counted=False),  # a duplicate: cancelled for both
                entry(1, 2, "quiet", counted=False),
                entry(1, 1, "cats"),
                entry(1, 2, "dogs"),
            ],
            round_points={1: [1], 2: [1]},
            zipf=zipf,
        )
    )
    assert awards["longest_word"] == [
        {"id": 1, "word": "cats", "round": 1},
        {"id": 2, "word": "dogs", "round": 1},
    ]
    assert "most_improved" not in awards  # one round: nobody improved


def test_a_game_without_a_scoring_word_has_no_awards():
    assert decide([], round_points={1: [0]}, zipf=zipf) == []


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_sockets")
async def test_the_standing_and_the_stats_carry_the_awards():
    ann, bob = await two_players()
    await start_round(ann, bob)
    assert (await submit(ann.comm, "quiet"))["verdict"] == "accepted"
    assert (await submit(bob.comm, "cats"))["verdict"] == "accepted"
    assert (await ask(ann.comm, "end_round"))["type"] == "ok"
    await receive_until(bob.comm, "round.ended")
    reply = await ask(ann.comm, "end_game")
    assert reply["type"] == "ok", reply
    awards = by_name(reply["standing"]["awards"])
    assert awards["longest_word"] == [
        {"id": ann.id, "nickname": "Ann", "word": "quiet", "round": 1}
    ]
    assert {winner["id"] for winner in awards["most_unique"]} == {ann.id, bob.id}
    ended = await receive_until(bob.comm, "game.ended")
    assert ended["standing"]["awards"] == reply["standing"]["awards"]
    response = await sync_to_async(ann.client.get)(f"/api/rooms/{ann.code}/stats")
    stats = response.json()["stats"]
    assert stats["awards"] == reply["standing"]["awards"]
