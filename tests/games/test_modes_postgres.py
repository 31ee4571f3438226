"""Co-op and teams rounds on real PostgreSQL (tests/games/test_coop.py and test_teams.py play
them on SQLite): a co-op round's team figure, as the state and the counts frame read it, and
a teams round's scoring, results and standing.

The scenario runs in a subprocess (this file run as a script) with Django on a throwaway
PostgreSQL database, and prints what it found as one JSON line.
"""

from __future__ import annotations

import json

import pytest

from tests.servers import run_script_on_postgres

pytestmark = pytest.mark.integration

BOARD = "gene etar snow bike"


def test_co_op_and_teams_rounds_on_postgres(postgres_url: str) -> None:
    found = run_script_on_postgres(postgres_url, __file__)
    coop = found["coop"]
    assert coop["state_team"]["found"] == 2 and coop["figures"] == [2, coop["total"]]
    assert [w["word"] for w in coop["state_team"]["words"]] == ["gene", "snow"]
    assert coop["results_team"]["found"] == 2 and coop["results_team"]["points"] == 2
    assert coop["cancelled"] == [False, False, False]
    teams = found["teams"]
    assert teams["scored"] == {
        "Ann": [["bike", 0, True], ["gene", 1, False]],
        "Bob": [["bike", 0, True], ["snow", 1, False]],
        "Carl": [["gene", 1, False]],
    }
    assert [(t["team"], t["round_points"], t["total_points"]) for t in teams["results"]] == [
        (1, 2, 2),
        (2, 1, 1),
    ]
    assert teams["standing"] == [
        {"rank": 1, "team": 1, "total_points": 2},
        {"rank": 2, "team": 2, "total_points": 1},
    ]


def scenario() -> dict:
    import django

    django.setup()

    from games import live_counts, rooms, rounds, standings, state
    from games.models import Round, Submission
    from tests.games.words_helpers import running_round, submit_word

    def play(host, words_by_player) -> Round:
        round_ = running_round(host, BOARD)
        for player, word in words_by_player:
            assert submit_word(player, word).verdict == "accepted", (player.nickname, word)
        return round_

    found: dict = {}
    room, ann = rooms.do_create_room("Ann", {"mode": "coop", "coop_goal": 10})
    bob = rooms.do_join_room(room, "Bob")
    round_ = play(ann, [(ann, "gene"), (bob, "gene"), (bob, "snow")])
    round_.refresh_from_db()
    room.refresh_from_db()
    team = state.room_state(room, bob)["team"]
    figures = live_counts._team_figures([round_.id])[round_.id]
    assert rounds.do_end_round(round_.id)
    round_.refresh_from_db()
    found["coop"] = {
        "state_team": team,
        "figures": list(figures),
        "total": len(round_.solution),
        "results_team": state.results(Round.objects.select_related("room").get(pk=round_.pk))[
            "team"
        ],
        "cancelled": list(
            Submission.objects.filter(round=round_)
            .order_by("id")
            .values_list("cancelled", flat=True)
        ),
    }

    room, ann = rooms.do_create_room("Ann", {"mode": "teams"})
    bob = rooms.do_join_room(room, "Bob")
    carl = rooms.do_join_room(room, "Carl")
    round_ = play(ann, [(ann, "gene"), (carl, "gene"), (ann, "bike"), (bob, "bike"), (bob, "snow")])
    assert rounds.do_end_round(round_.id)
    results = state.results(Round.objects.select_related("room").get(pk=round_.pk))
    found["teams"] = {
        "scored": {
            p["nickname"]: sorted([w["word"], w["points"], w["cancelled"]] for w in p["words"])
            for p in results["players"]
        },
        "results": results["teams"],
        "standing": standings.standing(Round.objects.get(pk=round_.pk).room)["teams"],
    }
    return found


if __name__ == "__main__":
    print(json.dumps(scenario()))
