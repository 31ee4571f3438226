"""Co-op mode (games.coop, docs/api.md "Co-op mode"): the room plays as one team against
the board. Words never cancel, verdicts are instant, the room hears each word the team
finds and how far it is towards its goal, and the results say whether it got there."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from games import coop, history, state
from games.models import Player, Room, Round
from tests.games.ws_helpers import (
    ask,
    receive_until,
    start_round,
    submit,
    two_players,
    whole_results,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]

# "gene", "tees", "bike", "snow", "generate" are on it.
BOARD = "gene etar snow bike"


async def team_seen_by(player) -> dict | None:
    """The state's ``team`` as ``player`` would get it on a sync."""
    room = await sync_to_async(Room.objects.get)(code=player.code)
    viewer = await sync_to_async(Player.objects.get)(pk=player.id)
    return (await sync_to_async(state.room_state)(room, viewer))["team"]


async def co_op_players(goal: int = 50, **settings):
    ann, bob = await two_players(**settings)
    reply = await ask(ann.comm, "update_settings", settings={"mode": "coop", "coop_goal": goal})
    assert reply["type"] == "ok", reply
    assert (reply["settings"]["mode"], reply["settings"]["coop_goal"]) == ("coop", goal)
    return ann, bob


async def test_a_co_op_round_lights_up_each_word_for_everyone():
    ann, bob = await co_op_players()
    round_ = await start_round(ann, bob, board=BOARD)
    total = len(round_.solution)
    assert (await submit(ann.comm, "gene"))["verdict"] == "accepted"
    counts = await receive_until(bob.comm, "round.counts")
    assert counts["team"] == {
        "goal": 50,
        "total": total,
        "found": 1,
        "new_words": [{"word": "gene", "player_id": ann.id}],
    }
    # A teammate's word is theirs too; one's own repeat is still a repeat.
    assert (await submit(bob.comm, "gene"))["verdict"] == "accepted"
    assert (await submit(ann.comm, "gene"))["verdict"] == "already_entered"
    assert (await submit(bob.comm, "bike"))["verdict"] == "accepted"
    later = await receive_until(ann.comm, "round.counts", counts={str(ann.id): 1, str(bob.id): 2})
    assert later["team"]["found"] == 2
    assert {"word": "bike", "player_id": bob.id} in later["team"]["new_words"]

    assert await team_seen_by(bob) == {
        "goal": 50,
        "total": total,
        "found": 2,
        "words": [
            {"word": "gene", "player_id": ann.id},
            {"word": "bike", "player_id": bob.id},
        ],
    }


async def test_a_co_op_round_never_cancels_and_never_hides_verdicts():
    ann, bob = await co_op_players(goal=10, cancel_duplicates=True, instant_verdicts=False)
    round_ = await start_round(ann, bob, board=BOARD)
    assert (round_.mode, round_.coop_goal) == ("coop", 10)
    assert (round_.cancel_duplicates, round_.instant_verdicts) == (False, True)
    for comm in (ann.comm, bob.comm):
        assert (await submit(comm, "gene"))["verdict"] == "accepted"
    assert (await submit(bob.comm, "snow"))["verdict"] == "accepted"
    assert (await ask(ann.comm, "end_round"))["type"] == "ok"
    ended = await receive_until(bob.comm, "round.ended")
    results = await whole_results(bob.comm, ended, bob.id)
    words = {
        player["nickname"]: {(w["word"], w["points"], w["cancelled"]) for w in player["words"]}
        for player in results["players"]
    }
    assert words == {"Ann": {("gene", 1, False)}, "Bob": {("gene", 1, False), ("snow", 1, False)}}
    total = len(round_.solution)
    assert results["team"] == {
        "goal": 10,
        "total": total,
        "found": 2,
        "share": round(2 / total, 4),
        "reached": 10 * total <= 2 * 100,
        "points": 2,  # gene and snow, each once
    }
    assert ended["scores"]["team"] == results["team"]
    found_by = {entry["word"]: entry["found_by"] for entry in results["solution"]}
    assert sorted(found_by["gene"]) == sorted([ann.id, bob.id])
    assert found_by["bike"] == []  # nobody found it
    room = await sync_to_async(Room.objects.get)(code=ann.code)
    (listed,) = await sync_to_async(history.round_list)(room)
    assert (listed["mode"], listed["winning_teams"]) == ("coop", None)
    assert listed["team"] == {"found": 2, "total": total, "goal": 10, "reached": 10 * total <= 200}


async def test_the_mode_changes_between_rounds_only():
    ann, bob = await co_op_players()
    await start_round(ann, bob, board=BOARD)
    reply = await ask(ann.comm, "update_settings", settings={"mode": "classic"})
    assert reply["type"] == "error" and reply["code"] == "wrong_round_state", reply
    round_now = (await ask(bob.comm, "sync"))["state"]
    assert round_now["round"]["mode"] == "coop" and round_now["team"]["found"] == 0
    assert round_now["settings"]["mode"] == "coop"
    assert (await ask(ann.comm, "end_round"))["type"] == "ok"
    await receive_until(ann.comm, "round.ended")
    reply = await ask(ann.comm, "update_settings", settings={"mode": "classic"})
    assert reply["type"] == "ok" and reply["settings"]["mode"] == "classic"
    classic = await start_round(ann, bob, board=BOARD)
    assert (classic.mode, classic.coop_goal, classic.cancel_duplicates) == ("classic", None, True)
    assert (await submit(ann.comm, "gene"))["verdict"] == "accepted"
    counts = await receive_until(bob.comm, "round.counts")
    assert "team" not in counts
    assert await team_seen_by(ann) is None


@pytest.mark.parametrize(
    "changes",
    [
        {"mode": "versus"},
        {"mode": ["coop"]},
        {"mode": None},
        {"mode": "COOP"},
        {"coop_goal": 9},
        {"coop_goal": 101},
        {"coop_goal": 10.5},
        {"coop_goal": True},
        {"coop_goal": "50"},
        {"coop_goal": None},
        {"mode": "coop", "coop_goal": 0},
    ],
)
async def test_a_bad_mode_or_goal_is_refused_and_changes_nothing(changes):
    ann, _bob = await two_players()
    reply = await ask(ann.comm, "update_settings", settings=changes)
    assert reply["type"] == "error" and reply["code"] == "invalid", reply
    assert ("mode" in reply["message"]) or ("coop_goal" in reply["message"])
    room = await sync_to_async(Room.objects.get)(code=ann.code)
    assert (room.mode, room.coop_goal) == ("classic", 50)


async def test_only_the_host_changes_the_mode():
    ann, bob = await two_players()
    reply = await ask(bob.comm, "update_settings", settings={"mode": "coop"})
    assert reply["type"] == "error" and reply["code"] == "not_host", reply
    room = await sync_to_async(Room.objects.get)(code=ann.code)
    assert room.mode == "classic"


async def test_the_team_figure_counts_only_the_boards_words():
    """A word let in on a challenge scores, but is not one of the board's words."""
    ann, bob = await co_op_players()
    round_ = await start_round(ann, bob, board=BOARD)
    assert (await submit(ann.comm, "gene"))["verdict"] == "accepted"
    await sync_to_async(Round.objects.filter(pk=round_.pk).update)(
        solution=[entry for entry in round_.solution if entry[0] != "gene"]
    )
    team = await team_seen_by(ann)
    assert team is not None
    assert team["found"] == 0 and team["words"] == [{"word": "gene", "player_id": ann.id}]
    assert team["total"] == len(round_.solution) - 1


# The rule on plain data.


def test_the_goal_is_reached_in_whole_words():
    assert not coop.reached(43, 87, 50)
    assert coop.reached(44, 87, 50)  # 50% of 87 words is 43.5: 44 words
    assert coop.reached(87, 87, 100)
    assert not coop.reached(0, 0, 10)  # a board without words has nothing to reach


def test_each_word_is_the_teams_once_with_its_first_finder():
    assert coop.first_finders([(1, "tea"), (2, "tea"), (2, "eat"), (1, "eat")]) == [
        {"word": "tea", "player_id": 1},
        {"word": "eat", "player_id": 2},
    ]


def test_the_summary_counts_each_word_once_and_house_words_score_but_do_not_count():
    summary = coop.summary(frozenset({"tea", "eat", "ate", "tee"}), {"tea": 1, "zzz": 3}, 25)
    assert summary == {
        "goal": 25,
        "total": 4,
        "found": 1,
        "share": 0.25,
        "reached": True,
        "points": 4,
    }
