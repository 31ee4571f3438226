"""The quick-play queue (quickplay.queue, docs/api.md "Quick play") through the HTTP API:
rooms of up to 8 made when 4 wait or after 20 s with 2, public rooms run by the autopilot
(3 rounds, then the final standing and the ratings), offensive nicknames refused, reports
kept for staff, strangers' rooms without a host's powers or quick phrases."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from games import autopilot, rounds
from games.models import Room, Round
from quickplay import queue
from quickplay.models import Rating, Report, Ticket
from quickplay.names import is_offensive

pytestmark = pytest.mark.django_db


def join(nickname: str, client: Client | None = None):
    client = client or Client()
    response = client.post(
        "/api/quickplay", json.dumps({"nickname": nickname}), content_type="application/json"
    )
    return client, response


def check(client: Client):
    return client.get("/api/quickplay").json()["ticket"]


def age_tickets(seconds: float) -> None:
    Ticket.objects.update(created_at=timezone.now() - timedelta(seconds=seconds))


def test_one_waits_and_four_start_a_room_at_once() -> None:
    clients = []
    for name in ("Ann", "Bob", "Cid"):
        client, response = join(name)
        assert response.status_code == 201 and response.json()["ticket"]["status"] == "waiting"
        clients.append(client)
    assert [check(c)["status"] for c in clients] == ["waiting"] * 3
    dan, _ = join("Dan")
    placed = check(dan)
    assert placed["status"] == "placed" and placed["player"]["token"]
    code = placed["room"]["code"]
    for client in clients:
        ticket = check(client)
        assert ticket["room"]["code"] == code
        # The browser is the player now: its session opens the room.
        assert client.get(f"/api/rooms/{code}").json()["room"]["you"] == ticket["player"]["id"]
    room = Room.objects.get(code=code)
    assert room.public and room.autopilot_rounds == queue.ROUNDS and room.next_round_at
    assert room.players.count() == 4


def test_two_start_after_twenty_seconds() -> None:
    ann, _ = join("Ann")
    bob, _ = join("Bob")
    assert check(ann)["status"] == "waiting"
    age_tickets(queue.START_WITH_TWO_AFTER + 1)
    assert check(bob)["status"] == "placed"
    assert check(ann)["status"] == "placed"


def test_a_crowd_fills_rooms_of_eight_and_the_rest_wait() -> None:
    clients = [join(f"P{n}")[0] for n in range(11)]
    tickets = [check(client) for client in clients]  # placed as soon as 4 are waiting
    placed = [ticket for ticket in tickets if ticket["status"] == "placed"]
    rooms_made = Room.objects.filter(public=True)
    assert all(room.players.count() <= queue.ROOM_SIZE for room in rooms_made)
    assert len(placed) + sum(1 for t in tickets if t["status"] == "waiting") == 11
    assert Ticket.objects.filter(room__isnull=True).count() < queue.START_AT


def test_a_closed_page_leaves_the_queue_and_a_left_ticket_is_gone() -> None:
    ann, _ = join("Ann")
    Ticket.objects.update(seen_at=timezone.now() - timedelta(seconds=queue.GONE_AFTER + 1))
    join("Bob")
    queue.match()
    assert list(Ticket.objects.values_list("nickname", flat=True)) == ["Bob"]
    assert ann.get("/api/quickplay").json()["error"]["code"] == "not_in_queue"
    bob = Client()
    join("Bob2", bob)
    assert bob.delete("/api/quickplay").json() == {"ticket": None}
    assert not Ticket.objects.filter(nickname="Bob2").exists()


def test_the_same_nickname_twice_gets_a_number() -> None:
    clients = [join("Ann")[0] for _ in range(4)]
    names = sorted(check(client)["player"]["nickname"] for client in clients)
    assert names == ["Ann", "Ann 2", "Ann 3", "Ann 4"]


# The last: "shit" in full-width letters.
@pytest.mark.parametrize(
    "nickname", ["shit", "Sh1t", "BigShit", "connard99", "\uff53\uff48\uff49\uff54"]
)
def test_an_offensive_nickname_is_refused(nickname) -> None:
    _, response = join(nickname)
    assert response.status_code == 400 and "strangers" in response.json()["error"]["message"]
    assert not Ticket.objects.exists()


@pytest.mark.parametrize("nickname", ["Cassandra", "Titus", "Griet", "Scunthorpe", "Pénélope"])
def test_names_are_not_offensive(nickname) -> None:
    assert not is_offensive(nickname)


def test_the_queue_refuses_garbage() -> None:
    for body in (
        {},
        {"nickname": 3},
        {"nickname": "x" * 200},
        {"nickname": "Ann", "dictionary": "klingon"},
    ):
        response = Client().post(
            "/api/quickplay", json.dumps(body), content_type="application/json"
        )
        assert response.status_code == 400, body
    stranger = Client()
    assert stranger.get("/api/quickplay").status_code == 404
    forged = stranger.get("/api/quickplay", HTTP_AUTHORIZATION="Bearer not-a-ticket")
    assert forged.json()["error"]["code"] == "not_in_queue"


def placed_room() -> tuple[Room, list[Client]]:
    clients = [join(name)[0] for name in ("Ann", "Bob", "Cid", "Dan")]
    code = check(clients[0])["room"]["code"]
    for client in clients[1:]:
        check(client)
    return Room.objects.get(code=code), clients


def test_the_autopilot_plays_three_rounds_then_rates_the_game(monkeypatch) -> None:
    room, _ = placed_room()
    later = timezone.now() + timedelta(seconds=queue.FIRST_ROUND_AFTER + 1)
    for number in (1, 2, 3):
        assert autopilot.run_due(later) == 1, number
        round_ = Round.objects.get(room=room, number=number)
        Round.objects.filter(pk=round_.pk).update(
            status=Round.Status.RUNNING, starts_at=timezone.now(), ends_at=timezone.now()
        )
        assert rounds.do_end_round(round_.pk)
        room.refresh_from_db()
        assert room.next_round_at is not None
        later = room.next_round_at + timedelta(seconds=1)
        assert autopilot.run_due(room.next_round_at - timedelta(seconds=1)) == 0  # not yet
    assert autopilot.run_due(later) == 1  # the game's end
    room.refresh_from_db()
    assert room.game_ended_at is not None and room.final_standing
    assert Rating.objects.count() == 4
    assert all(rating.games == 1 for rating in Rating.objects.all())
    board = Client().get("/api/quickplay/leaderboard").json()["players"]
    assert [row["rank"] for row in board] == [1, 2, 3, 4]
    assert autopilot.run_due(later + timedelta(minutes=5)) == 0  # nothing more


def test_nobody_is_host_of_a_public_room_and_phrases_stay_private() -> None:
    room, _ = placed_room()
    host = room.host
    assert host is not None
    with pytest.raises(Exception, match="runs itself"):
        rounds.do_start_round(host)
    from games.reactions import check_reaction

    with pytest.raises(Exception, match="private rooms"):
        check_reaction(host, {"phrase": "nice"})


def test_a_player_reports_another_once_and_staff_see_it() -> None:
    room, clients = placed_room()
    players = {p.nickname: p for p in room.players.all()}
    body = json.dumps({"player_id": players["Dan"].pk, "reason": "nickname"})
    for _ in range(2):
        response = clients[0].post(
            f"/api/rooms/{room.code}/report", body, content_type="application/json"
        )
        assert response.status_code == 201
    report = Report.objects.get()
    assert (report.reported_nickname, report.reporter_nickname, report.reason) == (
        "Dan",
        "Ann",
        "nickname",
    )
    bad = clients[0].post(
        f"/api/rooms/{room.code}/report",
        json.dumps({"player_id": players["Ann"].pk, "reason": "nickname"}),
        content_type="application/json",
    )
    assert bad.status_code == 400  # not yourself
    stranger = Client().post(
        f"/api/rooms/{room.code}/report", body, content_type="application/json"
    )
    assert stranger.status_code == 403


def test_housekeeping_forgets_placed_tickets_after_a_day() -> None:
    placed_room()
    join("Eve")
    Ticket.objects.update(created_at=timezone.now() - timedelta(hours=25))
    assert queue.on_housekeeping(None) == {"quickplay_tickets": 4}
    assert list(Ticket.objects.values_list("nickname", flat=True)) == ["Eve"]
