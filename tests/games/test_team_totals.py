"""A team that scored nothing is still a team (games.teams, docs/api.md "Teams"): its 0 is
in the game's totals, the state, the final standing (ranked last) and the round's results,
never left out as if it had not played."""

from __future__ import annotations

import pytest

from games import rounds, standings, state, teams
from games.models import Room, Round
from tests.games.test_rounds_and_words import make_room, running_round
from tests.games.words_helpers import submit_word

BOARD = "gene etar snow bike"


def test_the_totals_list_a_team_without_points():
    round_ = Round(mode="teams", teams={"1": 1, "2": 2, "3": 1})
    assert teams.game_team_totals([(round_, {1: 3, 3: 1})]) == {1: 4, 2: 0}
    assert teams.game_team_totals([(round_, {})]) == {1: 0, 2: 0}


@pytest.mark.django_db
def test_a_team_without_points_is_in_the_standing_and_the_results():
    ann, bob = make_room(mode="teams")
    assert (ann.team, bob.team) == (1, 2)
    round_ = running_round(ann, BOARD)
    assert submit_word(ann, "gene").accepted  # team 2 (Bob) finds nothing
    assert rounds.do_end_round(round_.id)
    room = Room.objects.get(pk=ann.room_id)
    assert teams.game_totals(room) == {1: 1, 2: 0}
    results = state.results(Round.objects.select_related("room").get(pk=round_.pk))
    assert [(t["team"], t["round_points"], t["total_points"]) for t in results["teams"]] == [
        (1, 1, 1),
        (2, 0, 0),
    ]
    assert standings.standing(room)["teams"] == [
        {"rank": 1, "team": 1, "total_points": 1},
        {"rank": 2, "team": 2, "total_points": 0},
    ]
