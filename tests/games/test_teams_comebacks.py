"""Teams mode and players who come back (issue 48, defect 9; docs/api.md "Teams"): a player
who left (or was kicked and let back in) before a teams round started and comes back during
it plays in it with their team, as a newcomer does: a word shared with a teammate scores for
both, and their points count for their team."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from games.models import Round
from tests.games.test_teams import BOARD, team_of, three_in_teams
from tests.games.ws_helpers import (
    ask,
    connect,
    post_json,
    receive_until,
    start_round,
    submit,
    whole_results,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]


async def come_back(player) -> None:
    """The player's own browser joins the room again (the same player, docs/api.md "Coming
    back after leave or kick"), and opens a socket."""
    response = await post_json(
        player.client, f"/api/rooms/{player.code}/join", {"nickname": player.nickname}
    )
    assert response.status_code == 200, response.content
    assert response.json()["player"]["id"] == player.id
    await connect(player)


async def play_gene_and_snow(ann, bob, carl, round_: Round) -> dict:
    """Ann and Carl (team 1) both find "gene", Bob (team 2) "snow"; the round's results."""
    await sync_to_async(round_.refresh_from_db)()
    assert round_.teams == {str(ann.id): 1, str(bob.id): 2, str(carl.id): 1}
    for comm, word in ((ann.comm, "gene"), (carl.comm, "gene"), (bob.comm, "snow")):
        assert (await submit(comm, word))["verdict"] == "accepted"
    assert (await ask(ann.comm, "end_round"))["type"] == "ok"
    ended = await receive_until(carl.comm, "round.ended")
    return await whole_results(carl.comm, ended, carl.id)


def assert_teammates_scored(results: dict, ann, bob, carl) -> None:
    points = {p["nickname"]: p["round_points"] for p in results["players"]}
    assert points == {"Ann": 1, "Bob": 1, "Carl": 1}  # teammates share "gene"
    by_team = {row["team"]: row for row in results["teams"]}
    assert (by_team[1]["round_points"], by_team[2]["round_points"]) == (2, 1)
    assert sorted(by_team[1]["player_ids"]) == sorted([ann.id, carl.id])


async def test_a_player_back_during_a_teams_round_plays_with_their_team():
    ann, bob, carl = await three_in_teams()
    assert (await ask(carl.comm, "leave"))["type"] == "ok"
    round_ = await start_round(ann, bob, board=BOARD)
    assert str(carl.id) not in round_.teams  # away when it started
    await come_back(carl)
    assert await team_of(carl) == 1  # the team Carl kept
    assert_teammates_scored(await play_gene_and_snow(ann, bob, carl, round_), ann, bob, carl)


async def test_a_player_let_back_in_during_a_teams_round_plays_with_their_team():
    ann, bob, carl = await three_in_teams()
    assert (await ask(ann.comm, "kick", player_id=carl.id))["type"] == "ok"
    round_ = await start_round(ann, bob, board=BOARD)
    assert (await ask(ann.comm, "unkick", player_id=carl.id))["type"] == "ok"
    await come_back(carl)
    assert_teammates_scored(await play_gene_and_snow(ann, bob, carl, round_), ann, bob, carl)
