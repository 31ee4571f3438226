"""The end of a game: ``end_game`` between rounds, the final standing in ``game.ended`` and
in the state, and nothing that changes it afterwards."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from games import challenges, rooms, rounds, standings
from games.exceptions import NotHost, WrongRoundState
from games.models import Player, Room
from tests.games.test_challenges import play
from tests.games.ws_helpers import (
    BOARD,
    ask,
    receive_until,
    start_round,
    submit,
    two_players,
)


@pytest.mark.django_db
def test_the_standing_ranks_players_by_their_points_over_all_rounds():
    """Two rounds: Bob 2 + 1, Carl 3 + 0, Ann 1, Dee (left after scoring) 0. Bob and Carl
    share first place (both winners), the next rank is 3; a player who left but scored is
    listed."""
    room, ann = rooms.do_create_room("Ann")
    bob = rooms.do_join_room(room, "Bob")
    carl = rooms.do_join_room(room, "Carl")
    dee = rooms.do_join_room(room, "Dee")
    play(ann, {ann: ["cats"], bob: ["quiet"], carl: ["quit", "diet", "went"], dee: ["dogz"]})
    rooms.do_leave(Player.objects.get(pk=dee.pk))
    play(ann, {bob: ["dog"]})
    final = standings.do_end_game(ann)
    assert [(p["rank"], p["nickname"], p["total_points"]) for p in final["players"]] == [
        (1, "Bob", 3),
        (1, "Carl", 3),
        (3, "Ann", 1),
        (4, "Dee", 0),
    ]
    assert final["winners"] == [bob.id, carl.id]
    assert final["rounds"] == 2 and isinstance(final["ended_at"], int)
    room.refresh_from_db()
    assert room.final_standing == final and room.game_ended_at is not None


@pytest.mark.django_db
def test_end_game_is_the_hosts_between_rounds_and_once():
    """Not the host: NotHost. No round yet, or one under way: wrong_round_state. After the
    end: no new round, no second end, no challenge or vote."""
    room, ann = rooms.do_create_room("Ann")
    bob = rooms.do_join_room(room, "Bob")
    with pytest.raises(WrongRoundState, match="no round has been played"):
        standings.do_end_game(ann)
    play(ann, {bob: ["wego"]})
    pending = challenges.do_challenge(bob, "wego", 1)
    rooms.do_set_next_board(ann, BOARD)
    running = rounds.do_start_round(ann)
    with pytest.raises(NotHost):
        standings.do_end_game(bob)
    with pytest.raises(WrongRoundState, match="end this round first"):
        standings.do_end_game(ann)
    assert rounds.do_prepare_round(running.id)
    assert rounds.do_end_round(running.id)
    standings.do_end_game(ann)
    with pytest.raises(WrongRoundState, match="the game has ended"):
        standings.do_end_game(ann)
    with pytest.raises(WrongRoundState, match="the game has ended"):
        rounds.do_start_round(ann)
    with pytest.raises(WrongRoundState, match="the game has ended"):
        challenges.do_challenge(bob, "wego", 2)
    with pytest.raises(WrongRoundState, match="the game has ended"):
        challenges.do_rule_challenge(ann, pending.id, True)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_sockets")
async def test_game_ended_reaches_everyone_and_stays_in_the_state():
    """Over the websocket: ok with the standing, game.ended to everyone, state.standing;
    a start_round after it is wrong_round_state."""
    ann, bob = await two_players()
    state = (await ask(bob.comm, "sync"))["state"]
    assert state["standing"] is None
    await start_round(ann, bob)
    await submit(bob.comm, "quiet")
    await submit(ann.comm, "cats")
    early = await ask(ann.comm, "end_game")
    assert (early["code"], early["request"]) == ("wrong_round_state", "end_game")
    assert (await ask(ann.comm, "end_round"))["type"] == "ok"
    refused = await ask(bob.comm, "end_game")
    assert refused["code"] == "not_host"
    reply = await ask(ann.comm, "end_game")
    assert (reply["type"], reply["request"]) == ("ok", "end_game")
    final = reply["standing"]
    assert [(p["nickname"], p["total_points"], p["rank"]) for p in final["players"]] == [
        ("Bob", 2, 1),
        ("Ann", 1, 2),
    ]
    assert final["winners"] == [bob.id]
    for player in (ann, bob):
        event = await receive_until(player.comm, "game.ended")
        assert event["standing"] == final
    assert (await ask(bob.comm, "sync"))["state"]["standing"] == final
    again = await ask(ann.comm, "start_round")
    assert again["code"] == "wrong_round_state" and "game has ended" in again["message"]
    room = await sync_to_async(Room.objects.get)(code=ann.code)
    assert room.game_ended_at is not None
