"""A replayed answer restores what the first answer put in the browser's session
(``web.json_api.idempotent``; docs/api.md, "Retrying a request").

On a first visit the answer to a create or a join carries the session cookie that makes the
phone a player of its room. When that answer is lost, the retry comes from the same address
with no cookie and gets the first answer again: it must also get a session that plays as that
player, or the phone is outside its own room and joining again says its nickname is taken.
When only the body was lost (the cookie arrived), the retry carries the cookie the first
answer set: it is the same caller, and gets the first answer, not a second room.
A session is never handed to another caller."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from games.models import Player, Room
from tests.games.test_api_http import assert_error

pytestmark = pytest.mark.django_db

PHONE = "10.0.0.5"


def post(client: Client, path: str, body: dict, key: str = "k-1", **extra: Any):
    return client.post(
        path, json.dumps(body), content_type="application/json", HTTP_IDEMPOTENCY_KEY=key, **extra
    )


def host_room() -> str:
    created = Client(REMOTE_ADDR="10.0.0.1").post(
        "/api/rooms", {"nickname": "Host"}, content_type="application/json"
    )
    assert created.status_code == 201
    return created.json()["room"]["code"]


def you(client: Client, code: str) -> int | None:
    """The player this browser is in the room, as the room's state tells it."""
    response = client.get(f"/api/rooms/{code}")
    assert response.status_code == 200, response.content
    return response.json()["room"]["you"]


# ---------------------------------------------------------------- the answer was lost


@pytest.mark.parametrize("path", ["/api/rooms", "/api/practice"])
def test_a_replayed_create_on_a_first_visit_puts_the_phone_in_its_room(path: str) -> None:
    lost = post(Client(REMOTE_ADDR=PHONE), path, {"nickname": "Ann"})  # answer and cookie lost
    assert lost.status_code == 201
    phone = Client(REMOTE_ADDR=PHONE)  # the retry: same address, no cookie
    again = post(phone, path, {"nickname": "Ann"})
    assert again.status_code == 201 and again.json() == lost.json()
    assert again.cookies[settings.SESSION_COOKIE_NAME].value  # a session, as the first had
    code, player = again.json()["room"]["code"], again.json()["player"]["id"]
    assert you(phone, code) == player
    assert Room.objects.filter(players__nickname="Ann").count() == 1


def test_a_replayed_join_on_a_first_visit_puts_the_phone_in_the_room() -> None:
    code = host_room()
    path = f"/api/rooms/{code}/join"
    lost = post(Client(REMOTE_ADDR=PHONE), path, {"nickname": "Bob"})
    assert lost.status_code == 201
    phone = Client(REMOTE_ADDR=PHONE)
    again = post(phone, path, {"nickname": "Bob"})
    assert again.status_code == 201 and again.json() == lost.json()
    player = again.json()["player"]["id"]
    assert you(phone, code) == player
    # Joining again (the page's "Join" button, no key) is this player, not "nickname taken".
    rejoin = phone.post(path, {"nickname": "Bob"}, content_type="application/json")
    assert rejoin.status_code == 200, rejoin.content
    assert rejoin.json()["player"]["id"] == player
    assert Player.objects.filter(room__code=code, nickname="Bob").count() == 1


def test_a_replayed_ask_to_join_a_locked_room_goes_on_waiting() -> None:
    code = host_room()
    Room.objects.filter(code=code).update(locked=True)
    path = f"/api/rooms/{code}/join"
    lost = post(Client(REMOTE_ADDR=PHONE), path, {"nickname": "Eve"})
    assert lost.status_code == 202, lost.content
    phone = Client(REMOTE_ADDR=PHONE)
    again = post(phone, path, {"nickname": "Eve"})
    assert again.status_code == 202 and again.json() == lost.json()
    # The session knows the request it waits on, as after the first answer.
    waiting = phone.get(f"/api/rooms/{code}/join-request")
    assert waiting.status_code == 200, waiting.content
    assert waiting.json()["join_request"]["id"] == lost.json()["join_request"]["id"]


def test_a_replay_of_a_replay_is_the_same_player() -> None:
    lost = post(Client(REMOTE_ADDR=PHONE), "/api/rooms", {"nickname": "Ann"})
    post(Client(REMOTE_ADDR=PHONE), "/api/rooms", {"nickname": "Ann"})  # also lost
    phone = Client(REMOTE_ADDR=PHONE)
    third = post(phone, "/api/rooms", {"nickname": "Ann"})
    assert third.json() == lost.json()
    assert you(phone, lost.json()["room"]["code"]) == lost.json()["player"]["id"]


def test_a_replay_restores_no_session_for_another_caller() -> None:
    first = post(Client(REMOTE_ADDR=PHONE), "/api/rooms", {"nickname": "Ann"})
    code = first.json()["room"]["code"]
    other = Client(REMOTE_ADDR="10.0.0.6")  # another address, the same key and body
    theirs = post(other, "/api/rooms", {"nickname": "Ann"})
    assert theirs.status_code == 201
    assert theirs.json()["room"]["code"] != code
    assert you(other, code) is None
    # A session of its own, with the same key: its own join, not the phone's player.
    browser = Client(REMOTE_ADDR=PHONE)
    browser.post("/api/rooms", {"nickname": "Zed"}, content_type="application/json")
    joined = post(browser, f"/api/rooms/{code}/join", {"nickname": "Ann"})
    assert_error(joined, 409, "nickname_taken")
    assert you(browser, code) is None


def test_a_replay_keeps_the_players_the_retrying_session_had() -> None:
    """A retry from a session that plays elsewhere keeps those rooms and gains this one."""
    browser = Client(REMOTE_ADDR=PHONE)
    elsewhere = browser.post("/api/rooms", {"nickname": "Zed"}, content_type="application/json")
    cookie = browser.cookies[settings.SESSION_COOKIE_NAME].value
    code = host_room()
    first = post(browser, f"/api/rooms/{code}/join", {"nickname": "Ann"})
    browser.cookies[settings.SESSION_COOKIE_NAME] = cookie  # the retry sends the same cookie
    again = post(browser, f"/api/rooms/{code}/join", {"nickname": "Ann"})
    assert again.json() == first.json()
    assert you(browser, code) == first.json()["player"]["id"]
    assert you(browser, elsewhere.json()["room"]["code"]) == elsewhere.json()["player"]["id"]


# ---------------------------------------------------------------- only the body was lost


@pytest.mark.parametrize("path", ["/api/rooms", "/api/practice"])
def test_a_retry_with_the_cookie_the_first_answer_set_gets_that_answer(path: str) -> None:
    phone = Client(REMOTE_ADDR=PHONE)
    first = post(phone, path, {"nickname": "Ann"})  # no cookie yet; the answer sets one
    assert phone.cookies[settings.SESSION_COOKIE_NAME].value
    rooms = Room.objects.count()
    again = post(phone, path, {"nickname": "Ann"})  # the body was lost: retried with it
    assert again.status_code == 201 and again.json() == first.json()
    assert Room.objects.count() == rooms


def test_a_join_retried_with_its_new_cookie_from_another_address_is_the_same_join() -> None:
    """The phone left the Wi-Fi between the two copies: the cookie names the caller."""
    code = host_room()
    path = f"/api/rooms/{code}/join"
    phone = Client(REMOTE_ADDR=PHONE)
    first = post(phone, path, {"nickname": "Bob"})
    assert first.status_code == 201
    phone.defaults["REMOTE_ADDR"] = "10.0.0.77"
    again = post(phone, path, {"nickname": "Bob"})
    assert again.status_code == 201 and again.json() == first.json()


def test_a_stale_cookie_retry_gets_the_first_answer_with_either_cookie() -> None:
    """A cookie of a session that no longer exists: the first answer set a new one; a retry
    with the old cookie or with the new one is the same request."""
    phone = Client(REMOTE_ADDR=PHONE)
    phone.cookies[settings.SESSION_COOKIE_NAME] = "x" * 32  # expired long ago
    first = post(phone, "/api/rooms", {"nickname": "Ann"})
    new_cookie = phone.cookies[settings.SESSION_COOKIE_NAME].value
    assert new_cookie != "x" * 32
    with_new = post(phone, "/api/rooms", {"nickname": "Ann"})
    assert with_new.json() == first.json()
    old = Client(REMOTE_ADDR=PHONE)
    old.cookies[settings.SESSION_COOKIE_NAME] = "x" * 32
    with_old = post(old, "/api/rooms", {"nickname": "Ann"})
    assert with_old.json() == first.json()
    assert you(old, first.json()["room"]["code"]) == first.json()["player"]["id"]
    assert Room.objects.filter(players__nickname="Ann").count() == 1
