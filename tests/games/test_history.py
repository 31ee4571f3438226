"""A room's history: the list of its ended rounds, each player's stats over the game
(games.history), their endpoints, and the read-only results page of a round."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from games import challenges, history, rooms, rounds, state
from games.models import Player, Room, Round
from tests.games.words_helpers import submit_word
from tests.games.ws_helpers import BOARD

pytestmark = pytest.mark.django_db

# On BOARD ("cats qiex dogz went") but in no English list: challenged, then accepted.
WEGO = "wego"


def create_room(nickname: str = "Ann") -> tuple[Room, Player]:
    response = Client().post(
        "/api/rooms", json.dumps({"nickname": nickname}), content_type="application/json"
    )
    assert response.status_code == 201, response.content
    player = Player.objects.get(pk=response.json()["player"]["id"])
    return player.room, player


def join(room: Room, nickname: str) -> Player:
    response = Client().post(
        f"/api/rooms/{room.code}/join",
        json.dumps({"nickname": nickname}),
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    return Player.objects.get(pk=response.json()["player"]["id"])


def running_round(host: Player, board: str = BOARD) -> Round:
    """Start and prepare a round on ``board`` with the countdown already over."""
    rooms.do_set_next_board(host, board)
    round_ = rounds.do_start_round(host)
    assert rounds.do_prepare_round(round_.id)
    Round.objects.filter(pk=round_.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    round_.refresh_from_db()
    return round_


def play(host: Player, entries: dict[Player, list[str]]) -> Round:
    """A round on BOARD in which each player enters their words; ended."""
    round_ = running_round(host)
    for player, typed in entries.items():
        for word in typed:
            submit_word(player, word)
    assert rounds.do_end_round(round_.id)
    round_.refresh_from_db()
    return round_


@pytest.fixture
def game() -> dict:
    """Two ended rounds and a running third one.

    Round 1 (Ann, Bob): Ann cats 1, dog (cancelled: Bob had it too); Bob dog (cancelled),
    quiet 2, wego (refused, then accepted on Bob's challenge: 1). Kim joins after it.
    Round 2 (Ann, Bob, Kim): Ann cats 1, quiet 2; Kim went 1; Bob nothing.
    Round 3 runs: Ann's word there counts nowhere yet."""
    room, ann = create_room("Ann")
    bob = join(room, "Bob")
    first = play(ann, {ann: ["cats", "dog"], bob: ["dog", "quiet", WEGO]})
    challenge = challenges.do_challenge(bob, WEGO, first.number)
    challenges.do_rule_challenge(ann, challenge.id, True)
    first.refresh_from_db()
    kim = join(room, "Kim")
    second = play(ann, {ann: ["cats", "quiet"], kim: ["went"]})
    third = running_round(ann)
    submit_word(ann, "went")
    room.refresh_from_db()
    return {"room": room, "ann": ann, "bob": bob, "kim": kim, "rounds": [first, second, third]}


def by_nickname(players: list[dict]) -> dict[str, dict]:
    return {entry["nickname"]: entry for entry in players}


# ---------------------------------------------------------------- the round list


def test_round_list_has_the_ended_rounds_newest_first(game) -> None:
    """Only ended rounds, newest first, each with its board, end time and winners."""
    first, second, _ = game["rounds"]
    listed = history.round_list(game["room"])
    assert [entry["number"] for entry in listed] == [2, 1]
    latest, earliest = listed
    assert latest["board"] == BOARD and latest["grid"][0] == ["c", "a", "t", "s"]
    assert latest["ended_at"] == int(second.ended_at.timestamp() * 1000)
    assert latest["max_points"] == second.max_points
    # Round 2: Ann 3 (cats, quiet) beats Kim 1.
    assert latest["top_points"] == 3
    assert [w["nickname"] for w in latest["winners"]] == ["Ann"]
    # Round 1 after the challenge: Bob 3 (quiet 2 + wego 1), Ann 1 (dog cancelled).
    assert earliest["top_points"] == 3
    assert [w["nickname"] for w in earliest["winners"]] == ["Bob"]
    assert earliest["max_points"] == first.max_points


def test_a_tie_lists_every_winner_and_nobody_wins_a_scoreless_round() -> None:
    room, ann = create_room("Ann")
    bob = join(room, "Bob")
    play(ann, {ann: ["cats"], bob: ["went"]})  # 1 point each
    play(ann, {})
    listed = history.round_list(room)
    assert listed[0]["winners"] == [] and listed[0]["top_points"] == 0
    assert [w["nickname"] for w in listed[1]["winners"]] == ["Ann", "Bob"]


# ---------------------------------------------------------------- game stats


def test_game_stats_over_the_ended_rounds(game) -> None:
    """Words and points count what scored: cancelled duplicates are left out (and counted
    apart), a word accepted on a challenge counts, the running round does not."""
    first, second, _ = game["rounds"]
    stats = history.game_stats(game["room"])
    assert stats["rounds"] == 2
    assert stats["max_points"] == first.max_points + second.max_points
    players = by_nickname(stats["players"])
    assert [entry["nickname"] for entry in stats["players"]] == ["Ann", "Bob", "Kim"]

    ann = players["Ann"]
    assert (ann["rounds"], ann["words"], ann["cancelled"], ann["points"]) == (2, 3, 1, 4)
    assert ann["best_word"] == {"word": "quiet", "points": 2, "round": 2}
    assert ann["longest_word"] == {"word": "quiet", "points": 2, "round": 2}
    assert ann["max_points"] == first.max_points + second.max_points
    assert ann["share_of_max"] == round(4 / (first.max_points + second.max_points), 4)

    bob = players["Bob"]
    assert (bob["rounds"], bob["words"], bob["cancelled"], bob["points"]) == (2, 2, 1, 3)
    assert bob["best_word"] == {"word": "quiet", "points": 2, "round": 1}

    # Kim joined after round 1: her share is of round 2's maximum only.
    kim = players["Kim"]
    assert (kim["rounds"], kim["words"], kim["points"]) == (1, 1, 1)
    assert kim["max_points"] == second.max_points
    assert kim["share_of_max"] == round(1 / second.max_points, 4)
    assert kim["best_word"] == kim["longest_word"] == {"word": "went", "points": 1, "round": 2}


def test_stats_agree_with_the_rounds_results(game) -> None:
    """Each player's points are the sum of their round points in the results."""
    stats = by_nickname(history.game_stats(game["room"])["players"])
    summed: dict[str, int] = {}
    for round_ in game["rounds"][:2]:
        for entry in state.results(round_)["players"]:
            summed[entry["nickname"]] = summed.get(entry["nickname"], 0) + entry["round_points"]
    assert {name: entry["points"] for name, entry in stats.items()} == summed


def test_best_word_ties_go_to_the_longer_then_the_alphabetically_first() -> None:
    """cats and dog are both worth 1: the best is the longer, cats; the longest, cats too.
    Among equals (went, cats: 4 letters, 1 point) the alphabetically first wins."""
    room, ann = create_room("Ann")
    play(ann, {ann: ["dog", "went", "cats"]})
    entry = history.game_stats(room)["players"][0]
    assert entry["best_word"]["word"] == "cats"
    assert entry["longest_word"]["word"] == "cats"


def test_a_player_without_words_has_no_best_word() -> None:
    room, ann = create_room("Ann")
    join(room, "Bob")
    play(ann, {ann: ["cats"]})
    bob = by_nickname(history.game_stats(room)["players"])["Bob"]
    assert bob["rounds"] == 1 and bob["words"] == 0 and bob["points"] == 0
    assert bob["best_word"] is None and bob["longest_word"] is None
    assert bob["share_of_max"] == 0.0


def test_no_rounds_no_stats() -> None:
    room, _ = create_room("Ann")
    assert history.game_stats(room) == {
        "game": 1,
        "rounds": 0,
        "max_points": 0,
        "players": [],
        "awards": [],
    }
    assert history.round_list(room) == []


def test_the_queries_do_not_grow_with_the_rounds(game, django_assert_num_queries) -> None:
    """Pinned: 3 queries for the list, 8 for the stats (4 of them the awards'), with two
    rounds or with four."""
    room = game["room"]
    with django_assert_num_queries(3):
        history.round_list(room)
    with django_assert_num_queries(8):
        history.game_stats(room)
    rounds.do_end_round(game["rounds"][2].id)
    play(game["ann"], {game["bob"]: ["cats", "went"], game["kim"]: ["cats"]})
    with django_assert_num_queries(3):
        assert len(history.round_list(room)) == 4
    with django_assert_num_queries(8):
        assert history.game_stats(room)["rounds"] == 4


# ---------------------------------------------------------------- endpoints


def test_the_endpoints(game) -> None:
    code = game["room"].code
    response = Client().get(f"/api/rooms/{code}/rounds")
    assert response.status_code == 200
    assert [entry["number"] for entry in response.json()["rounds"]] == [2, 1]
    response = Client().get(f"/api/rooms/{code}/stats")
    assert response.status_code == 200
    assert response.json()["stats"] == json.loads(json.dumps(history.game_stats(game["room"])))


@pytest.mark.parametrize("path", ["rounds", "stats", "rounds/1.png"])
def test_an_unknown_room_is_404(path: str) -> None:
    response = Client().get(f"/api/rooms/nosuchroom/{path}")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "room_not_found"


def test_a_round_that_has_not_ended_has_no_picture_nor_page(game) -> None:
    code = game["room"].code
    response = Client().get(f"/api/rooms/{code}/rounds/3.png")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "wrong_round_state"
    response = Client().get(f"/api/rooms/{code}/rounds/9.png")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "round_not_found"
    page = Client().get(f"/r/{code}/rounds/3/")
    assert page.status_code == 409
    assert b"still being played" in page.content
    assert b"round-results" not in page.content  # no results embedded
    assert Client().get(f"/r/{code}/rounds/9/").status_code == 404


# ---------------------------------------------------------------- the read-only page


def test_the_read_only_page_embeds_the_results_and_previews_as_the_picture(game) -> None:
    """Anyone (no session) reads it: the results embedded, a title, og:image at the PNG, a
    join link while the room is open; no player actions on the page."""
    code = game["room"].code
    page = Client().get(f"/r/{code}/rounds/1/")
    assert page.status_code == 200
    html = page.content.decode()
    assert f"<title>Boggle · round 1 results · room {code}</title>" in html
    assert (
        f'<meta property="og:image" content="http://testserver/api/rooms/{code}/rounds/1.png">'
        in html
    )
    assert f'href="/r/{code}/"' in html and "Join this room" in html
    embedded = html.split('<script id="round-results" type="application/json">')[1]
    results = json.loads(embedded.split("</script>")[0])
    assert results == json.loads(json.dumps(state.results(game["rounds"][0])))
    assert "room/main.js" not in html  # the room's script (which joins and plays) is not here


def test_no_join_link_once_the_game_has_ended(game) -> None:
    Room.objects.filter(pk=game["room"].pk).update(game_ended_at=timezone.now())
    html = Client().get(f"/r/{game['room'].code}/rounds/1/").content.decode()
    assert "Join this room" not in html
