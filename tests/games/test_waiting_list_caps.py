"""A locked room's waiting list cannot be filled from an address or two (issue 48, item 8):
each address has a few join requests per room and a few more across rooms within
``waiting_room.WAITING_EXPIRES_AFTER`` (429 ``rate_limited``), and a request still
unanswered after that long is withdrawn, polled or not (games.waiting_room)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client

from games import waiting_room
from games.models import JoinRequest, Player
from tests.fake_clock import FakeClock
from web import throttle

pytestmark = pytest.mark.django_db

PER_ROOM = waiting_room.WAITING_PER_ADDRESS_PER_ROOM.count
PER_ADDRESS = waiting_room.WAITING_PER_ADDRESS.count


@pytest.fixture(autouse=True)
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeClock]:
    fake = FakeClock()
    monkeypatch.setattr(throttle, "clock", fake)
    throttle.reset()
    yield fake
    throttle.reset()


def post(client: Client, url: str, data: dict[str, Any]) -> Any:
    return client.post(url, json.dumps(data), content_type="application/json")


def locked_room() -> str:
    """A room (created from this machine) whose host has locked it: its code."""
    response = post(Client(), "/api/rooms", {"nickname": "Ann"})
    assert response.status_code == 201, response.content
    host = Player.objects.get(pk=response.json()["player"]["id"])
    waiting_room.do_lock(host, True)
    return str(response.json()["room"]["code"])


def ask(code: str, nickname: str, address: str) -> tuple[Client, Any]:
    client = Client(REMOTE_ADDR=address)
    return client, post(client, f"/api/rooms/{code}/join", {"nickname": nickname})


def test_two_addresses_cannot_fill_the_waiting_list(clock: FakeClock) -> None:
    """The issue's figure: 19 waiting requests from 2 addresses filled the list of 20."""
    code = locked_room()
    statuses = []
    for index in range(19):
        clock.now += 1  # within the join limit's refill: only the waiting cap refuses
        _, response = ask(code, f"Bot{index}", f"198.51.100.{index % 2}")
        statuses.append(response.status_code)
        if response.status_code == 429:
            assert response.json()["error"]["code"] == "rate_limited"
            assert "waiting" in response.json()["error"]["message"]
            assert int(response["Retry-After"]) > 0
    assert statuses.count(202) == 2 * PER_ROOM
    assert statuses.count(429) == 19 - 2 * PER_ROOM
    _, newcomer = ask(code, "Dan", "192.0.2.10")
    assert newcomer.status_code == 202


def test_a_refused_nickname_does_not_spend_the_addresss_requests(clock: FakeClock) -> None:
    code = locked_room()
    for _ in range(PER_ROOM + 2):
        clock.now += 1
        _, taken = ask(code, "Ann", "198.51.100.9")  # the host's nickname
        assert taken.json()["error"]["code"] == "nickname_taken"
    for index in range(PER_ROOM):
        clock.now += 1
        assert ask(code, f"Guest{index}", "198.51.100.9")[1].status_code == 202


def test_an_address_has_a_cap_across_rooms(clock: FakeClock) -> None:
    rooms = [locked_room() for _ in range(PER_ADDRESS // PER_ROOM + 1)]
    accepted = 0
    for code in rooms:
        for index in range(PER_ROOM):
            clock.now += 1
            accepted += ask(code, f"Roamer{index}", "198.51.100.20")[1].status_code == 202
    assert accepted == PER_ADDRESS


def test_the_cap_ends_with_the_window(clock: FakeClock) -> None:
    code = locked_room()
    for index in range(PER_ROOM):
        clock.now += 1
        assert ask(code, f"Early{index}", "198.51.100.30")[1].status_code == 202
    assert ask(code, "Late", "198.51.100.30")[1].status_code == 429
    clock.now += waiting_room.WAITING_EXPIRES_AFTER.total_seconds()
    assert ask(code, "Late", "198.51.100.30")[1].status_code == 202


def test_this_machine_is_not_capped(clock: FakeClock) -> None:
    code = locked_room()
    for index in range(PER_ROOM + 3):
        clock.now += 1
        assert ask(code, f"Local{index}", "127.0.0.1")[1].status_code == 202


def test_a_waiting_request_expires_even_while_its_page_polls() -> None:
    """Unanswered after WAITING_EXPIRES_AFTER, a request is withdrawn: no longer in the
    host's list nor counted, the host can no longer admit it, and its poll says so."""
    code = locked_room()
    client, response = ask(code, "Dan", "192.0.2.40")
    asked = response.json()["join_request"]
    row = JoinRequest.objects.get(pk=asked["id"])
    room = row.room
    assert list(waiting_room.waiting(room)) == [row]
    old = row.created_at - waiting_room.WAITING_EXPIRES_AFTER - timedelta(seconds=1)
    JoinRequest.objects.filter(pk=row.pk).update(created_at=old)  # seen_at stays fresh
    assert list(waiting_room.waiting(room)) == []
    assert room.host_id is not None
    host = Player.objects.get(pk=room.host_id)
    with pytest.raises(waiting_room.InvalidInput):
        waiting_room.do_admit(host, row.pk)
    polled = client.get(f"/api/rooms/{code}/join-request")
    assert polled.status_code == 200
    assert polled.json()["join_request"]["status"] == "withdrawn"
    again = post(client, f"/api/rooms/{code}/join", {"nickname": "Dan"})
    assert again.status_code == 202 and again.json()["join_request"]["id"] != row.pk
