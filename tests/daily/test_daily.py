"""The daily board through its API and the normal round engine: the same board for
everyone, a solo room, the score recorded when the round ends, one entry per nickname a
day, the leaderboard's order, a new board at the date change; and practice rooms."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from daily.models import DailyBoard, DailyGame, DailyScore
from games import rooms, rounds, standings
from games.models import Player, Room, Round
from tests.daily.helpers import DAY, begin, get, play, post, start, words_of
from tests.games.words_helpers import submit_word
from web.errors import ClientError

pytestmark = pytest.mark.django_db


def test_two_players_get_the_same_board_in_solo_rooms_started_at_once() -> None:
    ann, ann_round, _ = start(Client(), "Ann")
    bob, bob_round, _ = start(Client(), "Bob")
    assert ann["room"]["code"] != bob["room"]["code"]
    assert ann_round.board == bob_round.board == DailyBoard.objects.get(date=DAY).board
    for data, round_ in ((ann, ann_round), (bob, bob_round)):
        assert data["daily"] == {"date": "2026-05-01", "counts": True}
        assert data["player"]["token"] and data["room"]["daily"]["status"] == "playing"
        assert (round_.rows, round_.cols, round_.round_seconds) == (4, 4, 180)
        assert round_.dictionary == "english"
        assert round_.status == Round.Status.PREPARING  # no lobby: started with the room
    assert DailyBoard.objects.get(date=DAY).word_count >= 60


def test_the_score_is_recorded_when_the_round_ends() -> None:
    client = Client()
    _, round_, ann = start(client, "Ann")
    begin(round_)
    found = words_of(round_, 3)
    for word in found:
        submit_word(ann, word)
    submit_word(ann, "zzzz")  # refused: scores nothing
    assert get(client, "/api/daily")["leaderboard"] == []  # not before the end
    assert rounds.do_end_round(round_.id)
    score = DailyScore.objects.get(date=DAY)
    round_.refresh_from_db()
    points = {word: pts for word, pts, *_ in round_.solution}
    assert (score.nickname, score.words) == ("Ann", 3)
    assert score.points == sum(points[word] for word in found) > 0
    # The best word: most points, then longest, then first alphabetically (two top words
    # of equal points, "shortwave" and "shortwaves", are ranked by length, not the alphabet).
    best = min(found, key=lambda word: (-points[word], -len(word), word))
    assert score.best_word == best
    assert score.finished_at == round_.ended_at
    daily = get(client, "/api/daily")
    entry = {
        "rank": 1,
        "nickname": "Ann",
        "points": score.points,
        "words": 3,
        "best_word": best,
    }
    assert daily["leaderboard"] == [entry]
    assert daily["played"] == entry and daily["playing"] is None
    assert daily["date"] == "2026-05-01" and daily["round_seconds"] == 180
    # Another device has not played.
    assert get(Client(), "/api/daily")["played"] is None
    # The room's state says where the attempt landed.
    room_state = get(client, f"/api/rooms/{round_.room.code}")["room"]
    assert room_state["daily"] == {
        "date": "2026-05-01",
        "status": "counted",
        "entry": {**entry, "unlisted": None},
    }


def test_one_result_per_device_and_nickname_a_day_later_attempts_are_practice() -> None:
    """A device's first finished attempt under a nickname is its result, even with 0
    points (a board seen once is not replayed for a better score)."""
    client = Client()
    _, first, ann = start(client, "Ann")
    play(first, ann, [])
    first_points = DailyScore.objects.get(date=DAY).points
    # Same nickname, other spelling: the same result; this attempt is practice.
    again, second, ann_again = start(client, "ANN")
    assert again["daily"]["counts"] is False
    assert again["room"]["daily"]["status"] == "practice"
    begin(second)
    for word in words_of(second, 5):
        submit_word(ann_again, word)
    assert rounds.do_end_round(second.id)
    assert DailyScore.objects.filter(date=DAY).count() == 1
    assert DailyScore.objects.get(date=DAY).points == first_points == 0
    assert DailyGame.objects.get(room=second.room).counted is False
    state = get(client, f"/api/rooms/{second.room.code}")["room"]["daily"]
    assert state["status"] == "practice" and state["entry"]["points"] == 0
    # 0 points is a result, not a leaderboard entry.
    assert state["entry"]["rank"] is None and state["entry"]["unlisted"] == "no_points"
    first_state = get(client, f"/api/rooms/{first.room.code}")["room"]["daily"]
    assert first_state["status"] == "unlisted"
    assert get(client, "/api/daily")["leaderboard"] == []
    # A later round in the same daily room (a random board) is not an attempt either.
    assert Round.objects.filter(room=second.room).count() == 1


def test_the_leaderboard_orders_by_points_then_earlier_finish() -> None:
    now = timezone.now()
    for nickname, points, minutes in (("Cy", 5, 1), ("Ann", 9, 3), ("Bob", 5, 0), ("Di", 2, 0)):
        DailyScore.objects.create(
            date=DAY,
            nickname=nickname,
            nickname_key=nickname.lower(),
            points=points,
            words=points,
            best_word="word",
            finished_at=now + timedelta(minutes=minutes),
        )
    DailyScore.objects.create(  # another day's entry is not on today's board
        date=DAY - timedelta(days=1),
        nickname="Eve",
        nickname_key="eve",
        points=50,
        words=1,
        best_word="x",
        finished_at=now,
    )
    board = get(Client(), "/api/daily")["leaderboard"]
    assert [(e["rank"], e["nickname"], e["points"]) for e in board] == [
        (1, "Ann", 9),
        (2, "Bob", 5),
        (3, "Cy", 5),
        (4, "Di", 2),
    ]
    assert get(Client(), "/api/daily?nickname=cy")["played"]["rank"] == 3


def test_others_cannot_join_a_daily_room() -> None:
    data, _, _ = start(Client(), "Ann")
    status, body = post(Client(), f"/api/rooms/{data['room']['code']}/join", {"nickname": "Bob"})
    assert status == 403
    assert body["error"]["code"] == "solo_room"
    assert Player.objects.filter(room__code=data["room"]["code"]).count() == 1
    # Ordinary rooms still take players.
    room, _ = rooms.do_create_room("Ann")
    assert rooms.do_join_room(room, "Bob").nickname == "Bob"


def test_the_date_change_brings_a_new_board(fixed_day: list[date]) -> None:
    client = Client()
    _, before, ann = start(client, "Ann")
    fixed_day[0] = DAY + timedelta(days=1)
    _, after, _ = start(Client(), "Bob")
    assert before.board != after.board
    assert DailyBoard.objects.count() == 2
    # Ann's round, begun on DAY, ends after the change: it counts for DAY.
    play(before, ann, [])
    assert DailyScore.objects.get(nickname="Ann").date == DAY
    today = get(client, "/api/daily")
    assert today["date"] == "2026-05-02" and today["leaderboard"] == []
    assert today["played"] is None  # this device's attempts were of yesterday


def test_a_failing_leaderboard_never_stops_the_round_ending(monkeypatch) -> None:
    _, round_, ann = start(Client(), "Ann")

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(DailyScore.objects, "create", broken)
    play(round_, ann, [])
    round_.refresh_from_db()
    assert round_.status == Round.Status.ENDED
    assert not DailyScore.objects.exists()


def test_the_device_sees_its_running_attempt() -> None:
    client = Client()
    data, _, _ = start(client, "Ann")
    code = data["room"]["code"]
    assert get(client, "/api/daily")["playing"] == {"code": code, "url": f"/r/{code}/"}


def test_an_attempt_needs_a_nickname() -> None:
    status, body = post(Client(), "/api/daily", {})
    assert status == 400 and body["error"]["code"] == "invalid"
    assert not DailyGame.objects.exists()


def test_practice_starts_a_round_of_the_chosen_size_at_once() -> None:
    client = Client()
    status, data = post(
        client, "/api/practice", {"nickname": "Ann", "settings": {"board_size": "5x5"}}
    )
    assert status == 201, data
    round_ = Round.objects.get(room__code=data["room"]["code"])
    assert (round_.rows, round_.cols, round_.status) == (5, 5, Round.Status.PREPARING)
    assert data["room"]["daily"] is None
    # The player is this browser: the room page shows the round, not the join form.
    assert get(client, f"/api/rooms/{data['room']['code']}")["room"]["you"] == data["player"]["id"]
    status, data = post(
        client, "/api/practice", {"nickname": "Ann", "settings": {"board_size": "9x9"}}
    )
    assert status == 400 and data["error"]["code"] == "invalid"


def test_practice_plays_a_board_given_as_text() -> None:
    """The Solve page's "Play this board": the solo round plays that board, at its size."""
    status, data = post(
        Client(), "/api/practice", {"nickname": "Ann", "board": "aeoli ejmpd lsork faeio uqrst"}
    )
    assert status == 201, data
    round_ = Round.objects.get(room__code=data["room"]["code"])
    assert (round_.board, round_.rows) == ("aeoli ejmpd lsork faeio uqrst", 5)
    status, data = post(Client(), "/api/practice", {"nickname": "Ann", "board": "abc"})
    assert status == 400 and data["error"]["code"] == "invalid"


def test_the_full_leaderboard_page_lists_the_day_and_marks_mine() -> None:
    client = Client()
    _, round_, ann = start(client, "Ann")
    begin(round_)
    round_.refresh_from_db()
    submit_word(ann, round_.solution[-1][0])  # the word with the fewest points
    assert rounds.do_end_round(round_.id)
    DailyScore.objects.create(
        date=DAY,
        nickname="Bob",
        nickname_key="bob",
        points=7,
        words=4,
        best_word="tales",
        finished_at=timezone.now(),
    )
    page = client.get("/daily/").content.decode()
    assert page.index("Bob") < page.index("Ann")
    assert "TALES" in page and 'class="mine"' in page
    assert "You are #2" in page
    # Another day, and no peeking at tomorrow's (it is today's instead).
    assert "Nobody has played" in client.get("/daily/?date=2026-04-30").content.decode()
    assert "Bob" in client.get("/daily/?date=2030-01-01").content.decode()


def test_staff_see_boards_attempts_and_scores_in_the_admin(admin_client: Client) -> None:
    start(Client(), "Ann")
    for model in ("dailyboard", "dailygame", "dailyscore"):
        response = admin_client.get(f"/admin/daily/{model}/")
        assert response.status_code == 200, model
    assert "2026" in admin_client.get("/admin/daily/dailyboard/").content.decode()


def test_a_daily_room_plays_one_round_no_second_round_and_no_new_game() -> None:
    """The page offers no "Start round 2" in a daily room; a hand-made ``start_round`` (or
    ``new_game``) is refused too: a second round would be a random board, not the daily."""
    client = Client()
    _, round_, ann = start(client, "Ann")
    with pytest.raises(ClientError) as running:  # while its round is on
        rounds.do_start_round(ann)
    assert running.value.code == "daily_room"
    play(round_, ann, [])
    with pytest.raises(ClientError) as refused:
        rounds.do_start_round(ann)
    assert refused.value.code == "daily_room"
    assert "one round" in refused.value.message
    standings.do_end_game(ann)
    with pytest.raises(ClientError) as rematch:
        standings.do_new_game(ann)
    assert rematch.value.code == "daily_room"
    room = Room.objects.get(pk=round_.room_id)
    assert (room.game, Round.objects.filter(room=room).count()) == (1, 1)
    # The result stands, and ordinary (practice) rooms still play on.
    assert DailyScore.objects.get(date=DAY).nickname == "Ann"
    status, practice = post(client, "/api/practice", {"nickname": "Ann"})
    assert status == 201
    host = Player.objects.get(pk=practice["player"]["id"])
    play(Round.objects.get(room=host.room, number=1), host, [])
    second = rounds.do_start_round(host)
    assert second.number == 2
    play(second, host, [])
    standings.do_end_game(host)
    assert standings.do_new_game(host) == 2
