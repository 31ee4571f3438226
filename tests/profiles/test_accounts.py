"""Players' accounts and the profile's API (docs/api.md, "Profile"): make an account, sign
in and out (keeping the browser's rooms), join rounds from two devices, download the whole
account, delete it with its rounds; hostile bodies and strangers are refused."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from profiles.models import ProfileRound
from profiles.rounds import MAX_ROUNDS_PER_ACCOUNT
from web import admin_throttle
from web.admin_throttle import FAILURE_LIMIT

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"
ENDED = int(datetime(2026, 12, 5, 20, tzinfo=UTC).timestamp() * 1000)


@pytest.fixture(autouse=True)
def fast_hasher(settings, monkeypatch) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    monkeypatch.setattr(admin_throttle, "FAILURES", admin_throttle.FailureLog())


def record(n: int = 1, **changes):
    return {
        "id": f"ABCD/1/{n}/{ENDED + n}",
        "at": ENDED + n,
        "room": "ABCD",
        "game": 1,
        "size": 4,
        "score": 10 + n,
        "words": 5,
        "found": 6,
        "players": 2,
        "best": {"word": "quest", "points": 4},
        "longest": "quests",
        "daily": None,
        "offline": False,
        **changes,
    }


def sign_up(client: Client, email: str = "Ann@Example.org", password: str = PASSWORD):
    return client.post(
        "/profile/account/", {"action": "sign_up", "email": email, "password": password}
    )


def sign_in(client: Client, email: str = "ann@example.org", password: str = PASSWORD):
    return client.post(
        "/profile/account/", {"action": "sign_in", "username": email, "password": password}
    )


def send(client: Client, rounds):
    return client.post(
        "/api/profile/rounds", json.dumps({"rounds": rounds}), content_type="application/json"
    )


def kept(client: Client) -> list[dict]:
    response = client.get("/api/profile/rounds")
    assert response.status_code == 200
    return response.json()["rounds"]


def test_an_account_is_an_email_and_a_password_and_signs_the_browser_in() -> None:
    client = Client()
    response = sign_up(client)
    assert response.status_code == 302 and response["Location"] == "/profile/"
    user = get_user_model().objects.get()
    assert (user.username, user.email) == ("ann@example.org", "ann@example.org")
    assert not user.first_name and not user.last_name  # nothing else collected
    page = client.get("/profile/").content.decode()
    assert "ann@example.org" in page and 'id="sign-out"' in page


@pytest.mark.parametrize(
    ("email", "password", "why"),
    [
        ("not-an-email", PASSWORD, "valid email"),
        ("bob@example.org", "short", "too short"),
        ("bob@example.org", "password123", "too common"),
        ("ANN@example.org", PASSWORD, "exists already"),
    ],
)
def test_a_bad_account_is_refused_with_the_reason(email, password, why) -> None:
    sign_up(Client())
    response = sign_up(Client(), email, password)
    assert response.status_code == 200
    assert why in response.content.decode()
    assert get_user_model().objects.count() == 1


def test_sign_in_is_by_email_in_any_case_and_a_wrong_password_is_refused() -> None:
    sign_up(Client())
    assert sign_in(Client(), "ANN@example.ORG").status_code == 302
    wrong = sign_in(Client(), password="nope")
    assert wrong.status_code == 200 and "correct" in wrong.content.decode()


def test_sign_in_is_throttled_as_the_admins_login() -> None:
    sign_up(Client())
    for _ in range(FAILURE_LIMIT):
        assert sign_in(Client(REMOTE_ADDR="203.0.113.9"), password="nope").status_code == 200
    refused = sign_in(Client(REMOTE_ADDR="203.0.113.9"))
    assert refused.status_code == 429 and "Too many failed logins" in refused.content.decode()
    assert sign_in(Client(REMOTE_ADDR="203.0.113.10")).status_code == 302  # not a lockout


def test_signing_in_and_out_keeps_the_browsers_rooms() -> None:
    client = Client()
    created = client.post(
        "/api/rooms", json.dumps({"nickname": "Ann"}), content_type="application/json"
    )
    code, player_id = created.json()["room"]["code"], created.json()["player"]["id"]
    sign_up(client)
    assert client.get(f"/api/rooms/{code}").json()["room"]["you"] == player_id
    assert client.post("/profile/sign-out/").status_code == 302
    assert client.get("/api/profile/rounds").status_code == 401
    assert client.get(f"/api/rooms/{code}").json()["room"]["you"] == player_id


def test_two_devices_join_their_rounds_in_one_account() -> None:
    phone, laptop = Client(), Client()
    sign_up(phone)
    sign_in(laptop)
    answer = send(phone, [record(1), record(2)]).json()
    assert answer == {"saved": 2, "count": 2}
    assert send(laptop, [record(2, score=40), record(3)]).json() == {"saved": 2, "count": 3}
    rounds = kept(phone)
    assert [(r["id"].split("/")[2], r["score"]) for r in rounds] == [
        ("1", 11),
        ("2", 40),
        ("3", 13),
    ]


def test_the_api_refuses_strangers_and_hostile_bodies() -> None:
    stranger = Client()
    assert stranger.get("/api/profile/rounds").json()["error"]["code"] == "not_signed_in"
    assert send(stranger, [record()]).status_code == 401
    client = Client()
    sign_up(client)
    bad = send(client, [record(), record(2, size="big")])
    assert bad.status_code == 400 and "rounds[1]: size" in bad.json()["error"]["message"]
    form = client.post("/api/profile/rounds", {"rounds": "x"})
    assert form.status_code == 415  # what another site's form could send
    assert ProfileRound.objects.count() == 0


def test_an_account_keeps_a_bounded_number_of_rounds(monkeypatch) -> None:
    monkeypatch.setattr("profiles.api.MAX_ROUNDS_PER_ACCOUNT", 3)
    client = Client()
    sign_up(client)
    assert send(client, [record(1), record(2)]).status_code == 200
    full = send(client, [record(3), record(4)])
    assert full.status_code == 409 and full.json()["error"]["code"] == "profile_full"
    assert send(client, [record(2, score=1), record(3)]).status_code == 200  # a rescore is no more
    assert MAX_ROUNDS_PER_ACCOUNT >= 10_000


def test_the_download_is_the_whole_account() -> None:
    client = Client()
    sign_up(client)
    send(client, [record(1), record(2, daily="2026-12-05")])
    response = client.get("/api/profile/export")
    assert response["Content-Disposition"].startswith("attachment")
    data = json.loads(response.content)
    assert data["account"]["email"] == "ann@example.org"
    assert [r["daily"] for r in data["rounds"]] == [None, "2026-12-05"]


def test_deleting_asks_the_password_and_takes_the_rounds_with_it() -> None:
    client, other = Client(), Client()
    sign_up(client)
    sign_up(other, "bob@example.org")
    send(client, [record(1)])
    send(other, [record(1)])
    wrong = client.post("/profile/delete/", {"password": "nope"})
    assert wrong.status_code == 200 and "not the account" in wrong.content.decode()
    assert client.post("/profile/delete/", {"password": PASSWORD}).status_code == 302
    assert list(get_user_model().objects.values_list("username", flat=True)) == ["bob@example.org"]
    assert ProfileRound.objects.filter(user__username="bob@example.org").count() == 1
    assert ProfileRound.objects.count() == 1
    assert client.get("/api/profile/rounds").status_code == 401
    assert "deleted" in client.get("/profile/").content.decode()


def test_the_forms_need_their_csrf_token() -> None:
    client = Client(enforce_csrf_checks=True)
    assert sign_up(client).status_code == 403
