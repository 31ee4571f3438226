"""Teams mode (games.teams, docs/api.md "Teams"): teams in one room; a word cancels between
teams, never within one; team points on the results, the state and the final standing."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from games import history, teams
from games.models import Player as PlayerRow
from games.models import Room, Round
from solver.judge import score_round
from tests.games.ws_helpers import (
    ask,
    connect,
    join_room,
    receive_until,
    start_round,
    submit,
    two_players,
    whole_results,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]

# "gene", "tees", "bike", "snow", "generate" are on it.
BOARD = "gene etar snow bike"


async def team_of(player) -> int | None:
    return (await sync_to_async(PlayerRow.objects.get)(pk=player.id)).team


async def three_in_teams():
    """Ann (host), Bob, Carl in a teams room: Ann and Carl in team 1, Bob in team 2."""
    ann, bob = await two_players()
    reply = await ask(ann.comm, "update_settings", settings={"mode": "teams"})
    assert reply["type"] == "ok" and reply["settings"]["team_count"] == 2, reply
    assert (await team_of(ann), await team_of(bob)) == (1, 2)  # placed, smallest team first
    carl = await join_room(ann.code, "Carl")
    await connect(carl)
    assert await team_of(carl) == 1  # teams of 1 and 1: the lowest number
    return ann, bob, carl


async def test_a_room_made_for_teams_has_its_host_in_team_1_and_a_newcomer_in_team_2():
    ann, bob = await two_players(mode="teams", team_count=3)
    assert (await team_of(ann), await team_of(bob)) == (1, 2)
    state = (await ask(ann.comm, "sync"))["state"]
    assert [(t["team"], t["player_ids"]) for t in state["teams"]] == [
        (1, [ann.id]),
        (2, [bob.id]),
        (3, []),
    ]


async def test_switching_to_teams_places_everyone_and_tells_the_room():
    ann, bob = await two_players()
    assert (await ask(ann.comm, "update_settings", settings={"mode": "teams"}))["type"] == "ok"
    placed = {}
    while len(placed) < 2:
        event = await receive_until(bob.comm, "player.team")
        placed[event["player_id"]] = event["team"]
    assert placed == {ann.id: 1, bob.id: 2}
    state = (await ask(bob.comm, "sync"))["state"]
    assert {p["nickname"]: p["team"] for p in state["players"]} == {"Ann": 1, "Bob": 2}
    assert state["teams"] == [
        {"team": 1, "player_ids": [ann.id], "total_points": 0},
        {"team": 2, "player_ids": [bob.id], "total_points": 0},
    ]


async def test_a_word_cancels_between_teams_and_counts_for_both_teammates():
    ann, bob, carl = await three_in_teams()
    round_ = await start_round(ann, bob, carl, board=BOARD)
    assert round_.teams == {str(ann.id): 1, str(bob.id): 2, str(carl.id): 1}
    for comm, word in (
        (ann.comm, "gene"),
        (carl.comm, "gene"),  # teammates: both score
        (ann.comm, "bike"),
        (bob.comm, "bike"),  # across teams: cancelled for both
        (bob.comm, "snow"),
    ):
        assert (await submit(comm, word))["verdict"] == "accepted"
    assert (await ask(ann.comm, "end_round"))["type"] == "ok"
    ended = await receive_until(bob.comm, "round.ended")
    results = await whole_results(bob.comm, ended, bob.id)
    scored = {
        p["nickname"]: sorted((w["word"], w["points"], w["cancelled"]) for w in p["words"])
        for p in results["players"]
    }
    assert scored == {
        "Ann": [("bike", 0, True), ("gene", 1, False)],
        "Bob": [("bike", 0, True), ("snow", 1, False)],
        "Carl": [("gene", 1, False)],
    }
    assert results["teams"] == [
        {
            "team": 1,
            "rank": 1,
            "round_points": 2,
            "total_points": 2,
            "player_ids": sorted(
                [ann.id, carl.id], key=[p["id"] for p in results["players"]].index
            ),
        },
        {"team": 2, "rank": 2, "round_points": 1, "total_points": 1, "player_ids": [bob.id]},
    ]
    assert results["round"]["teams"] == {str(ann.id): 1, str(bob.id): 2, str(carl.id): 1}


async def test_team_totals_follow_each_rounds_teams():
    ann, bob, carl = await three_in_teams()
    await start_round(ann, bob, carl, board=BOARD)
    assert (await submit(bob.comm, "snow"))["verdict"] == "accepted"
    assert (await ask(ann.comm, "end_round"))["type"] == "ok"
    await receive_until(ann.comm, "round.ended")
    # Bob moves to team 1 and Carl to team 2 between rounds (the host moves Carl).
    assert (await ask(bob.comm, "choose_team", team=1))["team"] == 1
    reply = await ask(ann.comm, "choose_team", team=2, player_id=carl.id)
    assert reply["type"] == "ok", reply
    await start_round(ann, bob, carl, board=BOARD)
    assert (await submit(bob.comm, "bike"))["verdict"] == "accepted"
    assert (await submit(bob.comm, "tees"))["verdict"] == "accepted"
    assert (await ask(ann.comm, "end_round"))["type"] == "ok"
    ended = await receive_until(carl.comm, "round.ended")
    results = await whole_results(carl.comm, ended, carl.id)
    by_team = {row["team"]: (row["round_points"], row["total_points"]) for row in results["teams"]}
    assert by_team == {1: (2, 2), 2: (0, 1)}  # Bob's round-1 point stays with team 2
    state = (await ask(ann.comm, "sync"))["state"]
    assert [(t["team"], t["total_points"]) for t in state["teams"]] == [(1, 2), (2, 1)]
    room = await sync_to_async(Room.objects.get)(code=ann.code)
    listed = await sync_to_async(history.round_list)(room)
    assert [(r["mode"], r["winning_teams"], r["team"]) for r in listed] == [
        ("teams", [1], None),  # round 2: Bob's 2 points for team 1
        ("teams", [2], None),  # round 1: Bob's point for team 2
    ]
    standing = (await ask(ann.comm, "end_game"))["standing"]
    teams_in_the_end = {p["nickname"]: p["team"] for p in standing["players"]}
    assert teams_in_the_end == {"Ann": 1, "Bob": 1, "Carl": 2}  # as in round 2
    assert standing["teams"] == [
        {"rank": 1, "team": 1, "total_points": 2},
        {"rank": 2, "team": 2, "total_points": 1},
    ]


async def test_a_round_needs_two_teams_with_players():
    ann, bob = await two_players()
    assert (await ask(ann.comm, "update_settings", settings={"mode": "teams"}))["type"] == "ok"
    assert (await ask(bob.comm, "choose_team", team=1))["type"] == "ok"
    await ask(ann.comm, "set_board", board=BOARD)
    reply = await ask(ann.comm, "start_round")
    assert reply["type"] == "error" and reply["code"] == "teams_incomplete", reply
    assert await sync_to_async(Round.objects.filter(room__code=ann.code).count)() == 0
    assert (await ask(bob.comm, "choose_team", team=2))["type"] == "ok"
    assert (await ask(ann.comm, "start_round"))["type"] == "ok"


async def test_a_newcomer_during_a_round_joins_the_smallest_team_and_scores():
    ann, bob, carl = await three_in_teams()
    round_ = await start_round(ann, bob, carl, board=BOARD)
    dan = await join_room(ann.code, "Dan")
    await connect(dan)
    assert await team_of(dan) == 2
    await sync_to_async(round_.refresh_from_db)()
    assert round_.teams[str(dan.id)] == 2
    assert (await submit(dan.comm, "snow"))["verdict"] == "accepted"
    assert (await submit(carl.comm, "snow"))["verdict"] == "accepted"
    assert (await ask(ann.comm, "end_round"))["type"] == "ok"
    ended = await receive_until(dan.comm, "round.ended")
    results = await whole_results(dan.comm, ended, dan.id)
    assert {p["nickname"]: p["round_points"] for p in results["players"]}["Dan"] == 0  # vs Carl


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"team": 0}, "invalid"),
        ({"team": 3}, "invalid"),  # two teams
        ({"team": "1"}, "invalid"),
        ({"team": True}, "invalid"),
        ({"team": None}, "invalid"),
        ({"team": 1.5}, "invalid"),
        ({"team": [1]}, "invalid"),
        ({"team": 1, "player_id": "x"}, "not_host"),  # Bob moving someone else
    ],
)
async def test_a_bad_team_choice_is_refused_and_changes_nothing(fields, code):
    ann, bob = await two_players()
    assert (await ask(ann.comm, "update_settings", settings={"mode": "teams"}))["type"] == "ok"
    reply = await ask(bob.comm, "choose_team", **fields)
    assert reply["type"] == "error" and reply["code"] == code, reply
    assert (await team_of(ann), await team_of(bob)) == (1, 2)


async def test_the_host_cannot_move_a_stranger_and_nobody_moves_during_a_round():
    ann, bob = await two_players()
    assert (await ask(ann.comm, "update_settings", settings={"mode": "teams"}))["type"] == "ok"
    reply = await ask(ann.comm, "choose_team", team=1, player_id=10**9)
    assert reply["type"] == "error" and reply["code"] == "invalid", reply
    reply = await ask(bob.comm, "choose_team", team=1, player_id=ann.id)
    assert reply["type"] == "error" and reply["code"] == "not_host", reply
    await start_round(ann, bob, board=BOARD)
    reply = await ask(bob.comm, "choose_team", team=1)
    assert reply["type"] == "error" and reply["code"] == "wrong_round_state", reply
    assert await team_of(bob) == 2


async def test_choosing_a_team_in_a_room_without_teams_says_so():
    _ann, bob = await two_players()
    reply = await ask(bob.comm, "choose_team", team=1)
    assert reply["type"] == "error" and reply["code"] == "invalid", reply
    assert "teams" in reply["message"]


async def test_back_to_teams_the_room_hears_everyones_kept_team():
    """Pages opened while the room played classic showed nobody's team."""
    ann, bob = await two_players(mode="teams")
    assert (await ask(ann.comm, "update_settings", settings={"mode": "classic"}))["type"] == "ok"
    state = (await ask(bob.comm, "sync"))["state"]
    assert [p["team"] for p in state["players"]] == [None, None] and state["teams"] is None
    assert (await ask(ann.comm, "update_settings", settings={"mode": "teams"}))["type"] == "ok"
    heard = {}
    while len(heard) < 2:
        event = await receive_until(bob.comm, "player.team")
        heard[event["player_id"]] = event["team"]
    assert heard == {ann.id: 1, bob.id: 2}  # the teams they kept


async def test_fewer_teams_move_the_players_of_the_teams_gone():
    ann, bob = await two_players()
    reply = await ask(ann.comm, "update_settings", settings={"mode": "teams", "team_count": 4})
    assert reply["type"] == "ok", reply
    assert (await ask(bob.comm, "choose_team", team=4))["type"] == "ok"
    assert (await ask(ann.comm, "update_settings", settings={"team_count": 2}))["type"] == "ok"
    assert (await team_of(ann), await team_of(bob)) == (1, 2)


@pytest.mark.parametrize("count", [1, 5, "2", True, None, 2.0])
async def test_a_bad_team_count_is_refused(count):
    ann, _bob = await two_players()
    reply = await ask(ann.comm, "update_settings", settings={"team_count": count})
    assert reply["type"] == "error" and reply["code"] == "invalid", reply
    assert "team_count" in reply["message"]


# The rules on plain data.


def test_scoring_with_teams_cancels_across_teams_only():
    scored = score_round(
        {"ann": ["tea", "eat"], "carl": ["tea"], "bob": ["eat", "ate"], "dan": ["ate"]},
        4,
        4,
        teams={"ann": 1, "carl": 1, "bob": 2},  # dan: a team of his own
    )
    flat = {
        player: {(w.word, w.points, w.cancelled) for w in words} for player, words in scored.items()
    }
    assert flat == {
        "ann": {("tea", 1, False), ("eat", 0, True)},
        "carl": {("tea", 1, False)},
        "bob": {("eat", 0, True), ("ate", 0, True)},
        "dan": {("ate", 0, True)},
    }


def test_the_smallest_team_takes_a_newcomer():
    assert teams.smallest_team({}, 2) == 1
    assert teams.smallest_team({1: 2, 2: 1}, 2) == 2
    assert teams.smallest_team({1: 1, 2: 1, 3: 0}, 3) == 3
    assert teams.smallest_team({1: 1, 2: 1}, 2) == 1


def test_equal_points_share_a_rank():
    assert teams.ranked({1: 3, 2: 5, 3: 3}, [1, 2, 3]) == [
        {"team": 2, "rank": 1, "points": 5},
        {"team": 1, "rank": 2, "points": 3},
        {"team": 3, "rank": 2, "points": 3},
    ]
