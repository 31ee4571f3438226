"""Co-op, teams, chess-clock and paper rounds on real PostgreSQL (tests/games/test_coop.py,
test_teams.py, test_chess.py and test_paper.py play them on SQLite): a co-op round's team
figure, as the state and the counts frame read it; a teams round's scoring, results and
standing; a chess round's turns, a flag falling once however many enders try, and its
winner (the clock's moves lock the round's row: ``SELECT … FOR UPDATE OF``); a paper round
that its deadline does not end, whose lists are taken after it and scored by the host.

The scenario runs in a subprocess (this file run as a script) with Django on a throwaway
PostgreSQL database, and prints what it found as one JSON line.
"""

from __future__ import annotations

import json

import pytest

from tests.servers import run_script_on_postgres

pytestmark = pytest.mark.integration

BOARD = "gene etar snow bike"


def test_co_op_teams_chess_and_paper_rounds_on_postgres(postgres_url: str) -> None:
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
    chess = found["chess"]
    assert chess["verdicts"] == ["accepted", "not_your_turn", "already_played", "accepted"]
    assert chess["ended"] == [True, False, False] and chess["status"] == "ended"
    assert chess["winner_is_second"] and chess["out_is_first"] and chess["ranking"]
    paper = found["paper"]
    assert paper["writing"] == "refused" and paper["ended_by_deadline"] == 0
    assert paper["verdicts"] == ["accepted"] * 4
    assert paper["points"] == {"Ann": 1, "Bob": 1} and paper["status"] == "ended"


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
    found["chess"] = chess_scenario()
    found["paper"] = paper_scenario()
    return found


def chess_scenario() -> dict:
    """Two players take turns; the second's flag falls; the first wins."""
    from dataclasses import replace
    from datetime import UTC, datetime

    from django.db import transaction

    from games import events, rooms, rounds, state
    from games.chess import ChessGame
    from games.models import Round
    from tests.games.words_helpers import running_round, submit_word

    room, ann = rooms.do_create_room("Ann", {"mode": "chess", "chess_seconds": 30})
    bob = rooms.do_join_room(room, "Bob")
    round_ = running_round(ann, BOARD)
    players = {ann.id: ann, bob.id: bob}
    # The clock starts with the first entry (nobody is online: both are in the order).
    refused = submit_word(ann, "gene").verdict
    game = ChessGame.of(Round.objects.get(pk=round_.pk))
    assert game is not None and game.clock is not None
    first, second = (players[player_id] for player_id in game.clock.order)
    verdicts = [refused if first == ann else submit_word(first, "gene").verdict]
    verdicts.append(submit_word(first, "snow").verdict)  # not their turn any more
    verdicts.append(submit_word(second, "gene").verdict)  # someone played it
    verdicts.append(submit_word(second, "bike").verdict)
    # The first player's clock runs out a second ago; every ender tries, one flag falls.
    with transaction.atomic():
        locked = Round.objects.select_for_update().get(pk=round_.pk)
        game = ChessGame.of(locked)
        assert game is not None and game.clock is not None
        fell = events.server_now_ms() - 1000
        left = game.clock.left(first.id, game.clock.turn_started_ms)
        locked.chess = replace(
            game, clock=replace(game.clock, turn_started_ms=fell - left)
        ).to_dict()
        locked.ends_at = datetime.fromtimestamp(fell / 1000, tz=UTC)
        locked.save(update_fields=["chess", "ends_at"])
    ended = [rounds.do_end_round(round_.id, deadline=True) for _ in range(3)]
    round_ = Round.objects.select_related("room").get(pk=round_.pk)
    results = state.results(round_)
    return {
        "verdicts": verdicts,
        "ended": ended,
        "status": round_.status,
        "winner_is_second": results["round"]["chess"]["winner"] == second.id,
        "out_is_first": results["round"]["chess"]["out"] == [first.id],
        "ranking": [p["nickname"] for p in results["players"]] == [second.nickname, first.nickname],
    }


def paper_scenario() -> dict:
    """No word while writing; the deadline leaves the round running; the lists are scored."""
    from datetime import timedelta

    from django.utils import timezone

    from games import live, rooms, rounds, state
    from games.exceptions import WrongRoundState
    from games.models import Round
    from tests.games.words_helpers import running_round, submit_word

    room, ann = rooms.do_create_room("Ann", {"paper": True})
    bob = rooms.do_join_room(room, "Bob")
    round_ = running_round(ann, BOARD)
    try:
        submit_word(ann, "gene")
        writing = "taken"
    except WrongRoundState:
        writing = "refused"
    Round.objects.filter(pk=round_.pk).update(ends_at=timezone.now() - timedelta(seconds=5))
    live.mark_stale(room.pk)
    overdue = rounds.end_overdue_rounds(0.0)
    verdicts = [submit_word(ann, w).verdict for w in ("gene", "snow")]
    verdicts += [submit_word(bob, w).verdict for w in ("gene", "bike")]
    rounds.do_end_round_now(ann)
    round_ = Round.objects.select_related("room").get(pk=round_.pk)
    results = state.results(round_)
    return {
        "writing": writing,
        "ended_by_deadline": overdue,
        "verdicts": verdicts,
        "points": {p["nickname"]: p["round_points"] for p in results["players"]},
        "status": round_.status,
    }


if __name__ == "__main__":
    print(json.dumps(scenario()))
