"""An ``Idempotency-Key`` belongs to its caller and its request (``web.idempotency``,
docs/api.md "Retrying a request"): the same key from another caller is another key (never
the first caller's player and token), and the same key with another body is refused with
422 ``idempotency_key_reused``. A caller's retry still gets its first answer."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from games.models import Player, Room
from tests.games.test_api_http import assert_error
from web.models import IdempotentResponse

pytestmark = pytest.mark.django_db

KEY = "1"  # what a careless client sends, and a hostile one guesses


def post(client: Client, path: str, body: dict, key: str = KEY, **extra: Any):
    return client.post(
        path, json.dumps(body), content_type="application/json", HTTP_IDEMPOTENCY_KEY=key, **extra
    )


def with_session(address: str = "127.0.0.1") -> Client:
    """A browser that has a session already (it made a room before)."""
    client = Client(REMOTE_ADDR=address)
    response = client.post("/api/rooms", {"nickname": "Zed"}, content_type="application/json")
    assert response.status_code == 201
    assert client.cookies[settings.SESSION_COOKIE_NAME].value
    return client


@pytest.mark.parametrize("path", ["/api/rooms", "/api/practice"])
def test_another_session_with_the_same_key_and_body_gets_its_own_player(path):
    victim, thief = with_session(), with_session()
    first = post(victim, path, {"nickname": "Victim"})
    stolen = post(thief, path, {"nickname": "Victim"})
    assert first.status_code == stolen.status_code == 201
    assert stolen.json()["player"]["token"] != first.json()["player"]["token"]
    assert stolen.json()["room"]["code"] != first.json()["room"]["code"]


def test_another_address_without_a_session_gets_its_own_room():
    """The issue's probe: another address and nickname, the victim's key."""
    first = post(Client(REMOTE_ADDR="10.0.0.1"), "/api/rooms", {"nickname": "Victim"})
    other = post(Client(REMOTE_ADDR="10.0.0.2"), "/api/rooms", {"nickname": "Mallory"})
    assert first.status_code == other.status_code == 201
    assert other.json()["player"]["nickname"] == "Mallory"
    assert other.json()["player"]["token"] != first.json()["player"]["token"]


def test_a_join_keyed_by_a_token_is_not_answered_to_another_client():
    room = Client().post("/api/rooms", {"nickname": "Ann"}, content_type="application/json")
    path = f"/api/rooms/{room.json()['room']['code']}/join"
    bob = Client().post(path, {"nickname": "Bob"}, content_type="application/json")
    token = bob.json()["player"]["token"]
    # Bob's program joins again with its token and a key ...
    again = post(Client(), path, {"nickname": "Bob"}, HTTP_AUTHORIZATION=f"Bearer {token}")
    assert again.status_code == 200 and again.json()["player"]["token"] == token
    # ... and a client elsewhere, no token, sends the same key and body: a join of its own.
    other = post(Client(REMOTE_ADDR="10.0.0.2"), path, {"nickname": "Bob"})
    assert_error(other, 409, "nickname_taken")
    assert token not in other.content.decode()


def test_the_same_caller_retrying_gets_its_first_answer():
    browser = with_session()
    cookie = browser.cookies[settings.SESSION_COOKIE_NAME].value
    first = post(browser, "/api/rooms", {"nickname": "Ann"})
    # The answer was lost: the retry carries the cookie the browser had before it.
    browser.cookies[settings.SESSION_COOKIE_NAME] = cookie
    again = post(browser, "/api/rooms", {"nickname": "Ann"})
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert Player.objects.filter(nickname="Ann").count() == 1


def test_the_same_key_with_another_body_is_refused_and_runs_nothing():
    browser = with_session()
    assert post(browser, "/api/rooms", {"nickname": "Ann"}).status_code == 201
    rooms = Room.objects.count()
    reused = post(browser, "/api/rooms", {"nickname": "Bob"})
    assert_error(reused, 422, "idempotency_key_reused", "Idempotency-Key")
    assert Room.objects.count() == rooms
    # Another caller may use that key with any body.
    assert post(with_session(), "/api/rooms", {"nickname": "Bob"}).status_code == 201


def test_only_hashes_of_the_caller_and_request_are_stored():
    browser = with_session()
    cookie = browser.cookies[settings.SESSION_COOKIE_NAME].value
    assert post(browser, "/api/rooms", {"nickname": "Ann"}).status_code == 201
    record = IdempotentResponse.objects.get(key=KEY)
    assert len(record.caller) == len(record.request_hash) == len(record.path) == 64
    assert cookie not in record.caller
    assert cookie not in json.dumps(record.body)
    assert record.path != "/api/rooms"  # its hash: a path of any length fits the column


@pytest.mark.django_db(transaction=True)
def test_two_copies_racing_in_run_the_work_once() -> None:
    copies = 4
    start = threading.Barrier(copies)
    answers: list[dict] = []

    def send() -> None:
        client = Client(REMOTE_ADDR="10.0.0.9")
        start.wait()
        response = post(client, "/api/rooms", {"nickname": "Ann"}, key="race-1")
        assert response.status_code == 201, response.content
        answers.append(response.json())

    threads = [threading.Thread(target=send) for _ in range(copies)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(answers) == copies
    assert all(answer == answers[0] for answer in answers)
    assert Room.objects.count() == 1


# ---------------------------------------------------------------- what the scope holds


def test_one_callers_key_on_another_path_is_another_key() -> None:
    """The same key and body on two joins (two rooms) and two creates: each does its work."""
    made_by = [
        Client().post("/api/rooms", {"nickname": n}, content_type="application/json")
        for n in ("Ann", "Cy")
    ]
    codes = [answer.json()["room"]["code"] for answer in made_by]
    browser = with_session()
    joins = [post(browser, f"/api/rooms/{code}/join", {"nickname": "Bob"}) for code in codes]
    assert [join.status_code for join in joins] == [201, 201], [j.content for j in joins]
    assert [join.json()["room"]["code"] for join in joins] == codes
    made = [post(browser, path, {"nickname": "Dee"}) for path in ("/api/rooms", "/api/practice")]
    assert [answer.status_code for answer in made] == [201, 201]
    assert made[0].json()["room"]["code"] != made[1].json()["room"]["code"]


def test_two_players_tokens_from_one_address_are_two_callers() -> None:
    """Two programs behind one address, no cookies, the same key and body: each token is
    its own caller, and never gets the other player's answer (and token)."""
    ann = Client().post("/api/rooms", {"nickname": "Ann"}, content_type="application/json")
    code = ann.json()["room"]["code"]
    path = f"/api/rooms/{code}/join"
    bob = Client().post(path, {"nickname": "Bob"}, content_type="application/json")
    tokens = {"Ann": ann.json()["player"]["token"], "Bob": bob.json()["player"]["token"]}
    for nickname, token in tokens.items():
        again = post(
            Client(REMOTE_ADDR="10.0.0.8"),
            path,
            {"nickname": "Bob"},
            HTTP_AUTHORIZATION=f"Bearer {token}",
        )
        assert again.status_code == 200, again.content
        assert again.json()["player"]["nickname"] == nickname
        assert again.json()["player"]["token"] == token
