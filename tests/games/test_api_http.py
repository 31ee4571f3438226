"""The HTTP JSON API: creating and joining rooms, room state, round results, dictionaries."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from games import rooms, rounds
from games.exceptions import NotHost
from games.models import ROOM_CODE_ALPHABET, ROOM_CODE_LENGTH, Player, Room, Round
from tests.games.words_helpers import submit_word
from tests.games.ws_helpers import BOARD
from web.errors import InvalidInput

pytestmark = pytest.mark.django_db


def post(client: Client, url: str, data) -> object:
    body = data if isinstance(data, str | bytes) else json.dumps(data)
    return client.post(url, body, content_type="application/json")


def create(client: Client | None = None, **body):
    """POST /api/rooms; returns the response."""
    return post(client or Client(), "/api/rooms", {"nickname": "Ann", **body})


def create_ok(client: Client | None = None, **body) -> dict:
    response = create(client, **body)
    assert response.status_code == 201, response.content
    return response.json()


def join(code: str, nickname, client: Client | None = None):
    return post(client or Client(), f"/api/rooms/{code}/join", {"nickname": nickname})


def assert_error(response, status: int, code: str, *words: str) -> str:
    """The response is a JSON error with this status and code; its message names ``words``."""
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["code"] == code
    assert error["message"]
    for word in words:
        assert word in error["message"], error["message"]
    return error["message"]


# ---------------------------------------------------------------- create


def test_create_room_with_defaults():
    """A nickname alone makes a classic room: 4x4, 3 minutes, min 3, English, classic rules."""
    data = create_ok()
    room, player = data["room"], data["player"]
    assert room["settings"] == {
        "board_size": "4x4",
        "dice_set": "classic",
        "round_seconds": 180,
        "shrink_seconds": 0,
        "shrink_floor": 30,
        "next_round_seconds": 180,
        "min_length": 3,
        "dictionary": "english",
        "theme": "none",
        "theme_letter": None,
        "theme_list": None,
        "cancel_duplicates": True,
        "instant_verdicts": True,
        "ready_check": False,
        "mode": "classic",
        "coop_goal": 50,
        "team_count": 2,
        "chess_seconds": 60,
        "paper": False,
        "next_board": None,
    }
    assert room["host_id"] == player["id"] == room["you"]
    assert [p["nickname"] for p in room["players"]] == ["Ann"]
    assert room["players"][0]["is_host"] is True
    assert room["round"] is None and room["results"] is None
    assert player["token"] and player["websocket_path"] == f"/ws/rooms/{room['code']}/"
    assert player["join_url"].endswith(f"/r/{room['code']}/")


def test_create_room_with_settings():
    """Settings given at creation apply to the room."""
    data = create_ok(
        settings={
            "board_size": "5x5",
            "round_seconds": None,
            "min_length": 5,
            "cancel_duplicates": False,
            "instant_verdicts": False,
        }
    )
    settings = data["room"]["settings"]
    assert settings["board_size"] == "5x5"
    assert settings["round_seconds"] is None
    assert settings["min_length"] == 5
    assert settings["cancel_duplicates"] is False
    assert settings["instant_verdicts"] is False
    assert settings["dice_set"] == "big"


def test_room_codes_are_eight_characters_from_the_alphabet_and_unique():
    """Codes are 8 characters without look-alikes, and no two rooms share one."""
    codes = [create_ok()["room"]["code"] for _ in range(40)]
    assert len(set(codes)) == len(codes)
    for code in codes:
        assert len(code) == ROOM_CODE_LENGTH
        assert set(code) <= set(ROOM_CODE_ALPHABET)
    assert not set("01ilo") & set(ROOM_CODE_ALPHABET)


def test_a_clashing_room_code_is_replaced(monkeypatch):
    """If a new room's code is taken, the room gets a fresh one instead of failing."""
    taken = create_ok()["room"]["code"]
    field = Room._meta.get_field("code")
    codes = iter([taken, taken, "fresh234"])
    # A new Room() takes its code through the field's cached default; retries call default().
    monkeypatch.setattr(field, "_get_default", lambda: next(codes))
    monkeypatch.setattr(field, "default", lambda: next(codes))
    data = create_ok()
    assert data["room"]["code"] == "fresh234"
    assert Room.objects.count() == 2


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({"board_size": "7x7"}, "board_size"),
        ({"round_seconds": 5}, "round_seconds"),
        ({"round_seconds": 100_000}, "round_seconds"),
        ({"round_seconds": "60"}, "round_seconds"),
        ({"round_seconds": True}, "round_seconds"),
        ({"min_length": 9}, "min_length"),
        ({"min_length": 2}, "min_length is 3 to 8"),
        ({"min_length": 1.5}, "min_length"),
        ({"dictionary": "klingon"}, "dictionary"),
        ({"cancel_duplicates": "yes"}, "cancel_duplicates"),
        ({"instant_verdicts": 1}, "instant_verdicts"),
        ({"dice_set": "big"}, "dice_set"),  # a 5x5 set on a 4x4 board
        ({"dice_set": "nonsense"}, "dice_set"),
        ({"dice_set": ["classic"]}, "dice_set"),
        ({"dice_set": {"name": "classic"}}, "dice_set"),
        ({"dictionary": ["english"]}, "dictionary"),
        ({"board_size": ["4x4"]}, "board_size"),
        ({"colour": "red"}, "colour"),
        ("fast please", "settings"),
    ],
)
def test_invalid_settings_are_refused_with_a_clear_message(settings, named):
    """A bad setting: 400, code "invalid", a message naming the setting; no room is made."""
    assert_error(create(settings=settings), 400, "invalid", named)
    assert Room.objects.count() == 0


def test_malformed_json_is_refused():
    """A body that is not JSON is a 400 "invalid"."""
    assert_error(post(Client(), "/api/rooms", "{nickname: Ann"), 400, "invalid", "JSON")


def test_a_json_body_that_is_not_an_object_is_refused():
    """A JSON list or string is not a request."""
    assert_error(post(Client(), "/api/rooms", ["Ann"]), 400, "invalid", "object")


def test_an_oversize_body_is_refused():
    """Bodies over 16 KiB are refused before parsing."""
    body = {"nickname": "Ann", "padding": "x" * 20_000}
    assert_error(post(Client(), "/api/rooms", body), 400, "invalid", "bytes")
    assert Room.objects.count() == 0


@pytest.mark.parametrize("body", [{}, {"nickname": ""}, {"nickname": "   "}, {"nickname": 7}])
def test_a_nickname_is_required(body):
    """No nickname (or an empty one, or a number): 400 asking for one."""
    response = post(Client(), "/api/rooms", body)
    assert_error(response, 400, "invalid", "nickname")


def test_a_nickname_has_at_most_24_characters():
    """Long nicknames are refused; spaces inside are collapsed."""
    assert_error(create(nickname="x" * 25), 400, "invalid", "24")
    assert create_ok(nickname="  Ann   Marie ")["player"]["nickname"] == "Ann Marie"


def test_create_accepts_only_post():
    """GET /api/rooms is not allowed."""
    assert Client().get("/api/rooms").status_code == 405


# ---------------------------------------------------------------- join


def test_join_a_room():
    """A second browser joins with a nickname and gets its own credentials."""
    code = create_ok()["room"]["code"]
    response = join(code, "Bob")
    assert response.status_code == 201
    data = response.json()
    assert data["player"]["nickname"] == "Bob"
    assert data["room"]["you"] == data["player"]["id"]
    assert [p["nickname"] for p in data["room"]["players"]] == ["Ann", "Bob"]


@pytest.mark.parametrize("nickname", ["Ann", "ann", "ANN", " ann "])
def test_a_taken_nickname_is_a_conflict_whatever_the_case(nickname):
    """Nicknames are unique per room, ignoring case and outer spaces: 409."""
    code = create_ok()["room"]["code"]
    assert_error(join(code, nickname), 409, "nickname_taken", "taken")
    assert Player.objects.count() == 1


def test_a_nickname_is_free_again_after_its_player_left():
    """Leaving frees the nickname for someone else."""
    code = create_ok()["room"]["code"]
    bob = join(code, "Bob").json()["player"]
    rooms.do_leave(Player.objects.get(pk=bob["id"]))
    assert join(code, "bob").status_code == 201


@pytest.mark.parametrize("nickname", ["Bo\x07b", "Bob\x00", "B\u200bob", "Bo\x1bb"])
def test_control_characters_in_a_nickname_are_refused(nickname):
    """Control and invisible format characters cannot hide in a nickname."""
    code = create_ok()["room"]["code"]
    assert_error(join(code, nickname), 400, "invalid", "control")


def test_joining_an_unknown_room_is_404():
    """A code that names no room: 404 room_not_found."""
    assert_error(join("zzzzzzzz", "Bob"), 404, "room_not_found", "zzzzzzzz")


def test_room_codes_are_case_insensitive():
    """A code read out loud and typed in capitals still finds the room."""
    code = create_ok()["room"]["code"]
    assert join(code.upper(), "Bob").status_code == 201


def test_rejoining_from_the_same_session_returns_the_same_player():
    """A browser that already plays in the room gets its player back, not a new one."""
    code = create_ok()["room"]["code"]
    browser = Client()
    first = join(code, "Bob", browser)
    assert first.status_code == 201
    again = join(code, "Robert", browser)
    assert again.status_code == 200
    assert again.json()["player"]["id"] == first.json()["player"]["id"]
    assert again.json()["player"]["nickname"] == "Bob"
    assert Player.objects.count() == 2


def test_rejoining_with_the_token_returns_the_same_player():
    """An API client that sends its token to join again gets the same player."""
    code = create_ok()["room"]["code"]
    bob = join(code, "Bob").json()["player"]
    response = Client().post(
        f"/api/rooms/{code}/join",
        json.dumps({"nickname": "Other"}),
        content_type="application/json",
        headers={"Authorization": f"Bearer {bob['token']}"},
    )
    assert response.status_code == 200
    assert response.json()["player"]["id"] == bob["id"]


def test_the_host_creating_browser_rejoins_as_host():
    """The browser that created the room is its host when it opens the join link again."""
    browser = Client()
    data = create_ok(browser)
    again = join(data["room"]["code"], "Someone", browser)
    assert again.status_code == 200
    assert again.json()["player"]["id"] == data["player"]["id"]


def test_a_kicked_player_does_not_get_back_in_with_the_old_session():
    """After a kick the old session is refused (403 kicked), not made a new player."""
    host_browser, bob_browser = Client(), Client()
    data = create_ok(host_browser)
    code = data["room"]["code"]
    bob = join(code, "Bob", bob_browser).json()["player"]
    rooms.do_kick(Player.objects.get(pk=data["player"]["id"]), bob["id"])
    assert_error(join(code, "Bob", bob_browser), 403, "kicked")
    assert Player.objects.filter(room__code=code).count() == 2


# ---------------------------------------------------------------- room detail


def test_room_detail_without_a_viewer():
    """Anyone with the code may look: no ``you``, no words."""
    code = create_ok()["room"]["code"]
    response = Client().get(f"/api/rooms/{code}")
    assert response.status_code == 200
    room = response.json()["room"]
    assert room["code"] == code and room["you"] is None and room["my_words"] == []


def test_room_detail_with_a_session_viewer():
    """The creating browser is recognised by its session."""
    browser = Client()
    data = create_ok(browser)
    room = browser.get(f"/api/rooms/{data['room']['code']}").json()["room"]
    assert room["you"] == data["player"]["id"]


def test_room_detail_with_a_bearer_token():
    """API clients are recognised by ``Authorization: Bearer <token>``."""
    data = create_ok()
    response = Client().get(
        f"/api/rooms/{data['room']['code']}",
        headers={"Authorization": f"Bearer {data['player']['token']}"},
    )
    assert response.json()["room"]["you"] == data["player"]["id"]


def test_room_detail_with_a_wrong_token_is_refused():
    """A token that is no player of the room is a 403, not an anonymous view."""
    data = create_ok()
    response = Client().get(
        f"/api/rooms/{data['room']['code']}", headers={"Authorization": "Bearer nope"}
    )
    assert_error(response, 403, "not_a_player")


def test_room_detail_of_an_unknown_room_is_404():
    """GET of a code that names no room."""
    assert_error(Client().get("/api/rooms/nothere2"), 404, "room_not_found")


def test_room_detail_shows_my_words_to_me_only():
    """During a round a player sees their own words; another viewer sees none of them."""
    data = create_ok()
    host = Player.objects.get(pk=data["player"]["id"])
    bob_data = join(data["room"]["code"], "Bob").json()["player"]
    bob = Player.objects.get(pk=bob_data["id"])
    round_ = running_round(host)
    submit_word(bob, "quiet", "c1")
    url = f"/api/rooms/{data['room']['code']}"
    mine = Client().get(url, headers={"Authorization": f"Bearer {bob_data['token']}"}).json()
    theirs = Client().get(url, headers={"Authorization": f"Bearer {data['player']['token']}"})
    assert [w["word"] for w in mine["room"]["my_words"]] == ["quiet"]
    assert mine["room"]["my_words"][0]["verdict"] == "accepted"
    assert theirs.json()["room"]["my_words"] == []
    assert "quiet" not in theirs.content.decode()
    assert mine["room"]["round"]["number"] == round_.number
    assert mine["room"]["counts"] == {str(bob.id): 1}


# ---------------------------------------------------------------- results


def running_round(host: Player, board: str = BOARD) -> Round:
    """Start and prepare a round on ``board`` with the countdown already over."""
    rooms.do_set_next_board(host, board)
    round_ = rounds.do_start_round(host)
    assert rounds.do_prepare_round(round_.id)
    Round.objects.filter(pk=round_.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    round_.refresh_from_db()
    return round_


def test_results_before_the_round_ends_are_409():
    """Results are secret while the round runs."""
    data = create_ok()
    round_ = running_round(Player.objects.get(pk=data["player"]["id"]))
    response = Client().get(f"/api/rooms/{data['room']['code']}/rounds/{round_.number}")
    assert_error(response, 409, "wrong_round_state", "ends")


def test_results_of_a_round_that_does_not_exist():
    """Asking for round 5 of a room that played none is a 404 naming the round."""
    data = create_ok()
    response = Client().get(f"/api/rooms/{data['room']['code']}/rounds/5")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "round_not_found"
    assert "round 5" in response.json()["error"]["message"]


def test_results_after_the_round_ends():
    """After the end: every player's words and points, rejected words, the solution."""
    data = create_ok()
    host = Player.objects.get(pk=data["player"]["id"])
    bob = Player.objects.get(pk=join(data["room"]["code"], "Bob").json()["player"]["id"])
    round_ = running_round(host)
    for word in ("cats", "dog", "dogz", "xyzzy"):
        submit_word(host, word)
    for word in ("dog", "quiet"):
        submit_word(bob, word)
    assert rounds.do_end_round(round_.id)
    response = Client().get(f"/api/rooms/{data['room']['code']}/rounds/{round_.number}")
    assert response.status_code == 200
    results = response.json()["results"]
    players = {p["nickname"]: p for p in results["players"]}
    assert [p["nickname"] for p in results["players"]] == ["Bob", "Ann"]  # 2 points beat 1
    ann_words = {w["word"]: w for w in players["Ann"]["words"]}
    assert ann_words["cats"]["points"] == 1 and ann_words["cats"]["cancelled"] is False
    assert ann_words["dog"]["points"] == 0 and ann_words["dog"]["cancelled"] is True
    assert players["Ann"]["rejected"] == [
        {"word": "dogz", "verdict": "not_in_dictionary", "reason": "not in the dictionary"},
        {"word": "xyzzy", "verdict": "not_on_board", "reason": "not on the board"},
    ]
    assert players["Bob"]["round_points"] == 2 and players["Ann"]["round_points"] == 1
    assert results["round"]["status"] == "ended"
    assert results["word_count"] == len(results["solution"]) > 0
    assert results["max_points"] == sum(entry["points"] for entry in results["solution"])


# ---------------------------------------------------------------- dictionaries


def test_dictionary_list():
    """The dictionaries a room may choose, with titles; English is always there."""
    response = Client().get("/api/dictionaries")
    assert response.status_code == 200
    dictionaries = {d["name"]: d["title"] for d in response.json()["dictionaries"]}
    assert dictionaries.get("english")


def test_every_listed_dictionary_is_a_valid_room_setting():
    """Each listed name is accepted as a room's dictionary."""
    names = [d["name"] for d in Client().get("/api/dictionaries").json()["dictionaries"]]
    for name in names:
        assert create_ok(settings={"dictionary": name})["room"]["settings"]["dictionary"] == name


# ---------------------------------------------------------------- retried requests


@pytest.mark.django_db
def test_a_retried_create_with_the_same_idempotency_key_gets_the_same_room():
    client = Client()
    headers = {"HTTP_IDEMPOTENCY_KEY": "create-7f3a"}
    first = client.post(
        "/api/rooms", {"nickname": "Ann"}, content_type="application/json", **headers
    )
    again = Client().post(
        "/api/rooms", {"nickname": "Ann"}, content_type="application/json", **headers
    )
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert Room.objects.count() == 1


@pytest.mark.django_db
def test_a_retried_join_gets_the_same_player_not_nickname_taken():
    code = (
        Client()
        .post("/api/rooms", {"nickname": "Ann"}, content_type="application/json")
        .json()["room"]["code"]
    )
    headers = {"HTTP_IDEMPOTENCY_KEY": "join-bob-1"}
    path = f"/api/rooms/{code}/join"
    first = Client().post(path, {"nickname": "Bob"}, content_type="application/json", **headers)
    again = Client().post(path, {"nickname": "Bob"}, content_type="application/json", **headers)
    assert first.status_code == again.status_code == 201
    assert again.json()["player"]["token"] == first.json()["player"]["token"]
    # Without the key, the same request is a second join: the nickname is taken.
    other = Client().post(path, {"nickname": "Bob"}, content_type="application/json")
    assert other.status_code == 409


@pytest.mark.django_db
def test_a_refused_request_is_not_remembered_for_its_key():
    """A 4xx answer is not kept: the corrected retry with the same key goes through."""
    headers = {"HTTP_IDEMPOTENCY_KEY": "create-fix"}
    bad = Client().post("/api/rooms", {"nickname": ""}, content_type="application/json", **headers)
    assert bad.status_code == 400
    good = Client().post(
        "/api/rooms", {"nickname": "Ann"}, content_type="application/json", **headers
    )
    assert good.status_code == 201
    too_long = Client().post(
        "/api/rooms",
        {"nickname": "Ann"},
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="k" * 65,
    )
    assert too_long.status_code == 400


# ---------------------------------------------------------------- kicks and coming back


def test_a_kicked_device_stays_out_until_the_host_lets_it_back():
    """A kick keeps that browser (its session) and that token out: 403 kicked, however the
    join is sent, until the host sends unkick; then the same player comes back, with the
    points of the rounds played before."""
    host_browser, bob_browser = Client(), Client()
    data = create_ok(host_browser)
    code = data["room"]["code"]
    host = Player.objects.get(pk=data["player"]["id"])
    bob = join(code, "Bob", bob_browser).json()["player"]
    round_ = running_round(host)
    submit_word(Player.objects.get(pk=bob["id"]), "quiet")
    assert rounds.do_end_round(round_.id)
    rooms.do_kick(host, bob["id"])
    assert_error(join(code, "Bob", bob_browser), 403, "kicked", "host")
    assert_error(join(code, "Robert", bob_browser), 403, "kicked")
    by_token = Client().post(
        f"/api/rooms/{code}/join",
        json.dumps({"nickname": "Rob"}),
        content_type="application/json",
        headers={"Authorization": f"Bearer {bob['token']}"},
    )
    assert_error(by_token, 403, "kicked")
    assert Player.objects.filter(room__code=code).count() == 2  # nobody new got in

    rooms.do_unkick(host, bob["id"])
    back = join(code, "Bob", bob_browser)
    assert back.status_code == 200
    player = back.json()["player"]
    assert (player["id"], player["token"]) == (bob["id"], bob["token"])
    mine = next(p for p in back.json()["room"]["players"] if p["id"] == bob["id"])
    assert mine["total_points"] == 2  # quiet, from round 1
    assert Player.objects.filter(room__code=code).count() == 2


def test_unkick_errors():
    """Only the host lets players back, and only kicked players of the room."""
    data = create_ok()
    code = data["room"]["code"]
    host = Player.objects.get(pk=data["player"]["id"])
    bob = Player.objects.get(pk=join(code, "Bob").json()["player"]["id"])
    with pytest.raises(NotHost):
        rooms.do_unkick(bob, host.id)
    for player_id in (bob.id, "1", 10**6):  # not kicked; not a number; no such player
        with pytest.raises(InvalidInput):
            rooms.do_unkick(host, player_id)


def test_a_player_who_left_gets_their_player_and_totals_back_on_the_same_device():
    """Leave, then join again from the same browser: the same player row, active again,
    with its points, under the nickname now sent; a token that left works likewise."""
    data = create_ok()
    code = data["room"]["code"]
    host = Player.objects.get(pk=data["player"]["id"])
    bob_browser = Client()
    bob = join(code, "Bob", bob_browser).json()["player"]
    round_ = running_round(host)
    submit_word(Player.objects.get(pk=bob["id"]), "quiet")
    assert rounds.do_end_round(round_.id)
    rooms.do_leave(Player.objects.get(pk=bob["id"]))
    back = join(code, "Bobby", bob_browser)
    assert back.status_code == 200
    assert back.json()["player"]["id"] == bob["id"]
    assert back.json()["player"]["nickname"] == "Bobby"
    players = {p["id"]: p for p in back.json()["room"]["players"]}
    assert players[bob["id"]]["total_points"] == 2
    assert Player.objects.filter(room__code=code).count() == 2

    # An API client: the token of a player who left brings that player back.
    carl = join(code, "Carl").json()["player"]
    rooms.do_leave(Player.objects.get(pk=carl["id"]))
    again = Client().post(
        f"/api/rooms/{code}/join",
        json.dumps({"nickname": "Carl"}),
        content_type="application/json",
        headers={"Authorization": f"Bearer {carl['token']}"},
    )
    assert again.status_code == 200 and again.json()["player"]["id"] == carl["id"]


def test_coming_back_under_a_nickname_taken_meanwhile_is_a_conflict():
    """The nickname sent must be free (the returning player's own does not count)."""
    code = create_ok()["room"]["code"]
    bob_browser = Client()
    bob = join(code, "Bob", bob_browser).json()["player"]
    rooms.do_leave(Player.objects.get(pk=bob["id"]))
    assert join(code, "Bob").status_code == 201  # someone else is Bob now
    assert_error(join(code, "Bob", bob_browser), 409, "nickname_taken")
    assert join(code, "Robert", bob_browser).json()["player"]["id"] == bob["id"]
