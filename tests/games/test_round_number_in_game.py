"""A round's number within its game (``number_in_game``): after ``new_game`` the pages say
"Round 1" again, while ``number`` runs on across the room's games and stays in addresses."""

from __future__ import annotations

import pytest
from django.test import Client

from games import rooms, standings
from games.models import Player
from tests.games.test_rematch import play

pytestmark = pytest.mark.django_db


def api(path: str, player: Player) -> dict:
    response = Client().get(path, HTTP_AUTHORIZATION=f"Bearer {player.token}")
    assert response.status_code == 200, response.content
    return response.json()


def test_a_new_games_rounds_count_from_one_in_the_state_results_and_history() -> None:
    room, ann = rooms.do_create_room("Ann")
    bob = rooms.do_join_room(room, "Bob")
    play(ann, {ann: ["cats"]})
    play(ann, {bob: ["quiet"]})
    standings.do_end_game(ann)
    standings.do_new_game(ann)
    third = play(ann, {ann: ["quit"]})
    base = f"/api/rooms/{room.code}"

    current = api(base, bob)["room"]["round"]
    assert (current["number"], current["game"], current["number_in_game"]) == (3, 2, 1)
    # The results stay at the room-wide number's address.
    results = api(f"{base}/rounds/{third.number}", bob)["results"]
    assert (results["round"]["number"], results["round"]["number_in_game"]) == (3, 1)
    earlier = api(f"{base}/rounds/2", bob)["results"]["round"]
    assert (earlier["game"], earlier["number_in_game"]) == (1, 2)
    listed = api(f"{base}/rounds", bob)["rounds"]
    assert [(r["number"], r["game"], r["number_in_game"]) for r in listed] == [
        (3, 2, 1),
        (2, 1, 2),
        (1, 1, 1),
    ]
    # The next round of game 2 is its round 2 (round 4 of the room).
    fourth = play(ann, {})
    assert api(base, ann)["room"]["round"]["number_in_game"] == 2
    assert fourth.number == 4
