"""The rematch (``new_game``): after ``end_game`` the host starts a new game in the same
room, and a returning player's entry carries their points (``player.joined``)."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from games import challenges, history, rooms, standings, state
from games.exceptions import NotHost, WrongRoundState
from games.models import Player, Room, Round
from tests.games.test_challenges import play
from tests.games.ws_helpers import (
    ask,
    receive_until,
    start_round,
    submit,
    two_players,
)


@pytest.mark.django_db
def test_new_game_starts_from_zero_and_keeps_the_ended_game_in_the_history():
    """Game 1: Bob 2, Ann 1; then new_game: the state is back in the lobby (no round, no
    standing), every total is 0; the next round is round 2 of game 2, its totals and the
    standing count game 2 only; the history lists both games' rounds and the stats of
    either game."""
    room, ann = rooms.do_create_room("Ann")
    bob = rooms.do_join_room(room, "Bob")
    play(ann, {ann: ["cats"], bob: ["quiet"]})
    with pytest.raises(WrongRoundState, match="still on"):
        standings.do_new_game(ann)
    standings.do_end_game(ann)
    with pytest.raises(NotHost):
        standings.do_new_game(bob)
    assert standings.do_new_game(ann) == 2
    room.refresh_from_db()
    assert (room.game, room.game_ended_at, room.final_standing) == (2, None, None)
    fresh = state.room_state(room, bob)
    assert (fresh["game"], fresh["round"], fresh["results"], fresh["standing"]) == (
        2,
        None,
        None,
        None,
    )
    assert {p["nickname"]: p["total_points"] for p in fresh["players"]} == {"Ann": 0, "Bob": 0}
    with pytest.raises(WrongRoundState, match="no round has been played"):
        standings.do_end_game(ann)  # not even after the new game started

    second = play(ann, {ann: ["quit"]})
    assert (second.number, second.game) == (2, 2)
    result = state.results(second)
    assert {p["nickname"]: p["total_points"] for p in result["players"]} == {"Ann": 1, "Bob": 0}
    first = Round.objects.get(room=room, number=1)
    assert {p["nickname"]: p["total_points"] for p in state.results(first)["players"]} == {
        "Ann": 1,
        "Bob": 2,
    }
    final = standings.do_end_game(ann)
    assert [(p["nickname"], p["total_points"]) for p in final["players"]] == [
        ("Ann", 1),
        ("Bob", 0),
    ]
    assert (final["game"], final["rounds"]) == (2, 1)
    assert [(r["number"], r["game"]) for r in history.round_list(room)] == [(2, 2), (1, 1)]
    room.refresh_from_db()
    assert history.game_stats(room)["rounds"] == 1
    assert history.game_stats(room, 1)["players"][0]["nickname"] == "Bob"


@pytest.mark.django_db
def test_an_ended_games_challenges_stay_closed_after_a_new_game():
    """A challenge left open when the game ended cannot be decided in the next game, and
    a word of the ended game cannot be challenged any more."""
    room, ann = rooms.do_create_room("Ann")
    bob = rooms.do_join_room(room, "Bob")
    play(ann, {bob: ["wego", "zzzz"]})
    pending = challenges.do_challenge(bob, "wego", 1)
    standings.do_end_game(ann)
    standings.do_new_game(ann)
    with pytest.raises(WrongRoundState, match="the game has ended"):
        challenges.do_rule_challenge(ann, pending.id, True)
    with pytest.raises(WrongRoundState, match="the game has ended"):
        challenges.do_challenge(bob, "zzzz", 1)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_sockets")
async def test_new_game_over_the_socket_reaches_everyone():
    """new_game: the host's ok carries the game's number, everyone gets the versioned
    game.started; a player's new_game is not_host; a second new_game is refused."""
    ann, bob = await two_players()
    await start_round(ann, bob)
    await submit(bob.comm, "quiet")
    assert (await ask(ann.comm, "end_round"))["type"] == "ok"
    early = await ask(ann.comm, "new_game")
    assert (early["code"], early["request"]) == ("wrong_round_state", "new_game")
    assert (await ask(ann.comm, "end_game"))["type"] == "ok"
    assert (await ask(bob.comm, "new_game"))["code"] == "not_host"
    reply = await ask(ann.comm, "new_game")
    assert (reply["type"], reply["request"], reply["game"]) == ("ok", "new_game", 2)
    for player in (ann, bob):
        event = await receive_until(player.comm, "game.started")
        assert event["game"] == 2 and isinstance(event["version"], int)
    synced = (await ask(bob.comm, "sync"))["state"]
    assert (synced["game"], synced["round"], synced["standing"]) == (2, None, None)
    assert [p["total_points"] for p in synced["players"]] == [0, 0]
    again = await ask(ann.comm, "new_game")
    assert again["code"] == "wrong_round_state"
    room = await sync_to_async(Room.objects.get)(code=ann.code)
    assert room.game == 2


@pytest.mark.django_db
def test_a_returning_player_is_announced_with_their_points(monkeypatch) -> None:
    """Left and back, or kicked and let back in: player.joined has the same fields as the
    state's player entry, points of this game included."""
    sent: list[tuple[str, dict]] = []

    def emit_to_room(room: Room, kind: str, data: dict) -> int:
        sent.append((kind, data))
        return 1

    monkeypatch.setattr(rooms.events, "emit_to_room", emit_to_room)
    room, ann = rooms.do_create_room("Ann")
    sofie = rooms.do_join_room(room, "Sofie")
    play(ann, {sofie: ["quit", "went"]})
    rooms.do_leave(Player.objects.get(pk=sofie.pk))
    back = rooms.do_rejoin(room, Player.objects.get(pk=sofie.pk), None)
    joined = [data["player"] for kind, data in sent if kind == "player.joined"][-1]
    listed = next(p for p in state.room_state(room)["players"] if p["id"] == back.id)
    assert set(joined) == set(listed)
    assert joined["total_points"] == listed["total_points"] == 2

    rooms.do_kick(ann, sofie.id)
    rooms.do_unkick(ann, sofie.id)
    rooms.do_rejoin(room, Player.objects.get(pk=sofie.pk), None)
    joined = [data["player"] for kind, data in sent if kind == "player.joined"][-1]
    assert joined["total_points"] == 2


@pytest.mark.django_db
def test_the_kicked_refusal_is_in_plain_words():
    room, ann = rooms.do_create_room("Ann")
    bob = rooms.do_join_room(room, "Bob")
    rooms.do_kick(ann, bob.id)
    response = Client().post(
        f"/api/rooms/{room.code}/join",
        {"nickname": "Bob"},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {bob.token}",
    )
    body = response.json()
    assert body["error"]["code"] == "kicked"
    assert body["error"]["message"] == (
        "The host removed you from this room. Only the host can let you back in."
    )
    assert "unkick" not in body["error"]["message"]


@pytest.mark.django_db
def test_stats_of_an_earlier_game_over_http():
    room, ann = rooms.do_create_room("Ann")
    bob = rooms.do_join_room(room, "Bob")
    play(ann, {bob: ["quiet"]})
    standings.do_end_game(ann)
    standings.do_new_game(ann)
    client = Client()
    now = client.get(f"/api/rooms/{room.code}/stats").json()["stats"]
    assert (now["game"], now["rounds"]) == (2, 0)
    before = client.get(f"/api/rooms/{room.code}/stats?game=1").json()["stats"]
    assert (before["game"], before["rounds"], before["players"][0]["nickname"]) == (1, 1, "Bob")
    wrong = client.get(f"/api/rooms/{room.code}/stats?game=3")
    assert wrong.status_code == 400 and wrong.json()["error"]["code"] == "invalid"


@pytest.mark.django_db
def test_an_ended_games_round_page_says_whether_a_new_game_is_open():
    room, ann = rooms.do_create_room("Ann")
    bob = rooms.do_join_room(room, "Bob")
    play(ann, {bob: ["quiet"]})
    client = Client()
    page = client.get(f"/r/{room.code}/rounds/1/").content.decode()
    assert "game-over-note" not in page
    standings.do_end_game(ann)
    page = client.get(f"/r/{room.code}/rounds/1/").content.decode()
    assert "The host has not started a new game in this room yet." in page
    assert "join-room-link" not in page
    standings.do_new_game(ann)
    page = client.get(f"/r/{room.code}/rounds/1/").content.decode()
    assert "A new game is open in this room" in page and "Join the new game" in page
