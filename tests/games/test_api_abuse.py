"""The API against hostile input: deep JSON, stray bearer tokens on pages, cross-site
text/plain posts, floods of room creations, joins and guessed room codes (web.throttle)."""

from __future__ import annotations

import json
import math

import pytest
from django.test import Client

from games.models import Player, Room
from tests.fake_clock import FakeClock
from web import throttle

pytestmark = pytest.mark.django_db

ADDRESS = "198.51.100.7"


@pytest.fixture(autouse=True)
def clock(monkeypatch) -> FakeClock:
    """Fresh buckets for each test, on a clock the test moves."""
    fake = FakeClock()
    monkeypatch.setattr(throttle, "clock", fake)
    throttle.reset()
    return fake


def client(address: str = ADDRESS, **extra) -> Client:
    return Client(REMOTE_ADDR=address, **extra)


def create(browser: Client, nickname: str = "Ann"):
    return browser.post(
        "/api/rooms", json.dumps({"nickname": nickname}), content_type="application/json"
    )


def join(browser: Client, code: str, nickname: str = "Bob"):
    return browser.post(
        f"/api/rooms/{code}/join",
        json.dumps({"nickname": nickname}),
        content_type="application/json",
    )


def assert_error(response, status: int, code: str) -> None:
    assert response.status_code == status, response.content
    assert response.json()["error"]["code"] == code


# ---------------------------------------------------------------- bodies


def test_deeply_nested_json_is_a_400_not_a_500() -> None:
    body = "[" * 5000 + "]" * 5000

    response = client().post("/api/rooms", body, content_type="application/json")

    assert_error(response, 400, "invalid")
    assert "nested" in response.json()["error"]["message"]


def test_a_json_body_must_say_it_is_json() -> None:
    """A form on another site can post text/plain without a preflight: no room, no player."""
    code = create(client()).json()["room"]["code"]
    players = Player.objects.count()

    for content_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
        response = client().post(
            f"/api/rooms/{code}/join", '{"nickname": "Mallory"}', content_type=content_type
        )
        assert_error(response, 415, "unsupported_media_type")
    response = client().post("/api/rooms", '{"nickname": "Mallory"}', content_type="text/plain")
    assert_error(response, 415, "unsupported_media_type")

    assert Player.objects.count() == players
    assert Room.objects.count() == 1


def test_json_with_a_charset_is_json() -> None:
    response = client().post(
        "/api/rooms",
        json.dumps({"nickname": "Ann"}),
        content_type="application/json; charset=utf-8",
    )
    assert response.status_code == 201


# ---------------------------------------------------------------- pages


@pytest.mark.parametrize("header", ["Bearer x", "Bearer ", "Basic abc", "Bearer " + "x" * 5000])
def test_a_stray_authorization_header_on_the_room_page_is_ignored(header: str) -> None:
    code = create(client()).json()["room"]["code"]

    response = client().get(f"/r/{code}/", headers={"Authorization": header})

    assert response.status_code == 200


def test_the_room_page_still_knows_its_player_by_session() -> None:
    browser = client()
    created = create(browser).json()

    response = browser.get(f"/r/{created['room']['code']}/", headers={"Authorization": "Bearer x"})

    assert response.status_code == 200
    assert f'"you": {created["player"]["id"]}' in response.content.decode()


def test_an_unknown_token_on_the_api_is_a_403() -> None:
    code = create(client()).json()["room"]["code"]

    response = client().get(f"/api/rooms/{code}", headers={"Authorization": "Bearer x"})

    assert_error(response, 403, "not_a_player")


# ---------------------------------------------------------------- rate limits


def assert_limited(response) -> int:
    assert_error(response, 429, "rate_limited")
    retry_after = int(response["Retry-After"])
    assert retry_after >= 1
    return retry_after


# The limits docs/api.md promises ("Limits"), written out: a change of the code must change
# the documentation and this table together.
DOCUMENTED_PER_ADDRESS = {
    # name: (requests at once, then one more every N seconds)
    "create": (20, 6.0),  # 20 at once, then 10 a minute
    "join": (10, 1.0),  # 10 at once, then 60 a minute
}


@pytest.mark.parametrize("name", sorted(DOCUMENTED_PER_ADDRESS))
def test_per_address_limits_are_the_documented_ones(name: str, clock: FakeClock) -> None:
    at_once, every = DOCUMENTED_PER_ADDRESS[name]
    code = create(client("203.0.113.1")).json()["room"]["code"]
    browser = client()

    def attempt(index: int):
        if name == "create":
            return create(browser, f"A{index}")
        assert name == "join"  # a new device each time (a second join of one device: 200)
        return join(client(), code, f"B{index}")

    for index in range(at_once):
        assert attempt(index).status_code in (201, 404), f"{name} #{index + 1} of {at_once}"
    retry_after = assert_limited(attempt(at_once))
    assert retry_after == math.ceil(every)
    clock.now += every
    assert attempt(at_once + 1).status_code in (201, 404)
    assert_limited(attempt(at_once + 2))


def test_room_creations_are_limited_per_address(clock: FakeClock) -> None:
    browser = client()
    for index in range(throttle.CREATE.burst):
        assert create(browser, f"A{index}").status_code == 201

    retry_after = assert_limited(create(browser))
    assert create(client("198.51.100.8")).status_code == 201  # another address is not
    clock.now += retry_after
    assert create(browser).status_code == 201
    assert_limited(create(browser))


def test_joins_are_limited_per_address(clock: FakeClock) -> None:
    code = create(client("203.0.113.1")).json()["room"]["code"]
    browser = client()
    for _ in range(throttle.JOIN.burst):  # refused nicknames count too: the work was asked
        assert_error(join(browser, code, ""), 400, "invalid")

    retry_after = assert_limited(join(browser, code))
    clock.now += retry_after
    assert join(browser, code).status_code == 201


def test_guessing_room_codes_is_limited_and_hits_tell_nothing(clock: FakeClock) -> None:
    code = create(client("203.0.113.1")).json()["room"]["code"]
    guesser = client()
    for index in range(throttle.ROOM_MISS.count):
        path = f"/api/rooms/nosuch{index:03d}" if index % 2 else f"/r/nosuch{index:03d}/"
        assert guesser.get(path).status_code == 404

    assert_limited(guesser.get("/api/rooms/nosuch999"))
    assert_limited(guesser.get(f"/api/rooms/{code}"))  # a hit is refused too: no oracle
    assert_limited(join(guesser, code))
    page = guesser.get(f"/r/{code}/")
    assert page.status_code == 429 and int(page["Retry-After"]) >= 1
    assert client("203.0.113.9").get(f"/api/rooms/{code}").status_code == 200
    clock.now += 60
    assert guesser.get(f"/api/rooms/{code}").status_code == 200


def test_this_machine_is_not_limited_without_a_trusted_proxy() -> None:
    """127.0.0.1 is the host's own laptop (or a proxy not declared, whose clients cannot
    be told apart): never limited, so the bench's crowd from one address gets in."""
    browser = Client()  # REMOTE_ADDR 127.0.0.1
    for index in range(throttle.CREATE.burst + 5):
        assert create(browser, f"A{index}").status_code == 201


def test_forwarded_for_is_ignored_unless_the_proxy_is_trusted() -> None:
    for index in range(throttle.CREATE.burst):
        spoofed = client(HTTP_X_FORWARDED_FOR=f"192.0.2.{index}")
        assert create(spoofed, f"A{index}").status_code == 201
    assert_limited(create(client(HTTP_X_FORWARDED_FOR="192.0.2.200")))


def test_behind_a_trusted_proxy_the_forwarded_client_is_limited(settings) -> None:
    settings.BOGGLE_TRUSTED_PROXIES = ["127.0.0.1/32"]
    # The proxy (on this machine) appends the address it saw; what the client wrote is before.
    behind = Client(HTTP_X_FORWARDED_FOR="10.9.9.9, 192.0.2.1")
    for index in range(throttle.CREATE.burst):
        assert create(behind, f"A{index}").status_code == 201

    assert_limited(create(Client(HTTP_X_FORWARDED_FOR="10.0.0.1, 192.0.2.1")))
    assert create(Client(HTTP_X_FORWARDED_FOR="192.0.2.2")).status_code == 201


def test_ipv6_clients_share_their_64_prefix() -> None:
    for index in range(throttle.CREATE.burst):
        assert create(client(f"2001:db8:1:2::{index + 1:x}"), f"A{index}").status_code == 201
    assert_limited(create(client("2001:db8:1:2:ffff::1")))
    assert create(client("2001:db8:1:3::1")).status_code == 201


def test_limits_can_be_turned_off(settings) -> None:
    settings.BOGGLE_RATE_LIMITS = False
    browser = client()
    for index in range(throttle.CREATE.burst + 5):
        assert create(browser, f"A{index}").status_code == 201


def test_idle_buckets_are_forgotten(clock: FakeClock) -> None:
    """Memory stays bounded: buckets that have refilled are dropped once there are many."""
    for index in range(throttle.KEEP_AT_LEAST - 1):
        throttle.take(throttle.CREATE, f"10.0.{index // 256}.{index % 256}")
    assert throttle.tracked() == throttle.KEEP_AT_LEAST - 1
    clock.now += 3600
    throttle.take(throttle.CREATE, "192.0.2.200")
    assert throttle.tracked() == 1
