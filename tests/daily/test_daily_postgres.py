"""tests/daily/test_fair_play.py's guarantees on real PostgreSQL, where the leaderboard's
partial unique index decides a race for a nickname and text with NUL cannot be stored.

The scenario runs in a subprocess (this file run as a script) with Django on a throwaway
PostgreSQL database, and prints what it found as one JSON line.
"""

from __future__ import annotations

import json

import pytest

from tests.servers import run_script_on_postgres

pytestmark = pytest.mark.integration


def test_the_leaderboard_guarantees_hold_on_postgres(postgres_url: str) -> None:
    found = run_script_on_postgres(postgres_url, __file__)
    assert found["after_zero_point_victim"] == [201, True]
    assert found["victim_listed"] == ["victim"]
    assert found["other_device_as_victim"] == [409, "nickname_taken"]
    assert found["race"] == {"listed": [["Ann", 1]], "loser": "nickname_taken"}
    assert found["script"] == {"flagged": True, "listed": False}
    # Issue 48's paced script: the whole solution, human-looking gaps, under the pace rules.
    assert found["paced_script"]["pace"] == ""
    assert found["paced_script"]["flagged"] is True and found["paced_script"]["listed"] is False
    assert found["paced_script"]["reason"].startswith("share of the maximum")
    assert found["nul_nickname"] == 400
    assert sorted(found["leaderboard"]) == ["Ann", "victim"]


def scenario() -> dict:
    import django

    django.setup()
    from datetime import timedelta

    from django.test import Client
    from django.utils import timezone

    from daily.models import DailyScore
    from games import rounds
    from games.models import Player, Round

    def post(client: Client, nickname: str) -> tuple[int, dict]:
        response = client.post(
            "/api/daily",
            json.dumps({"nickname": nickname}),
            content_type="application/json",
            HTTP_HOST="localhost",
        )
        return response.status_code, response.json()

    from daily import plausibility
    from tests.daily.helpers import (
        enter_at_pace,
        enter_at_times,
        paced_script_times,
        solve_like_the_script,
    )

    def play(code: str, count: int, seconds_apart: float = 0.5) -> None:
        """Run the attempt's round (prepared at once: tasks are eager) with its best words,
        entered ``seconds_apart``."""
        round_ = Round.objects.get(room__code=code, number=1)
        now = timezone.now()
        Round.objects.filter(pk=round_.pk).update(
            starts_at=now - timedelta(seconds=1), ends_at=now + timedelta(seconds=120)
        )
        round_.refresh_from_db()
        player = Player.objects.get(room__code=code)
        best = [entry[0] for entry in round_.solution[:count]]
        enter_at_pace(round_, player, best, seconds_apart)
        assert rounds.do_end_round(round_.id)

    def device() -> Client:
        return Client(HTTP_HOST="localhost")

    found: dict = {}
    _, attack = post(device(), "Victim")
    play(attack["room"]["code"], 0)
    victim = device()
    status, body = post(victim, "victim")
    found["after_zero_point_victim"] = [status, body["daily"]["counts"]]
    play(body["room"]["code"], 2)
    found["victim_listed"] = list(
        DailyScore.objects.filter(listed=True).values_list("nickname", flat=True)
    )
    status, body = post(device(), "VICTIM")
    found["other_device_as_victim"] = [status, body["error"]["code"]]

    first, second = device(), device()
    _, one = post(first, "Ann")
    _, two = post(second, "ann")
    play(one["room"]["code"], 1)
    play(two["room"]["code"], 3)
    listed = DailyScore.objects.filter(nickname_key="ann", listed=True)
    state = second.get(f"/api/rooms/{two['room']['code']}", HTTP_HOST="localhost").json()
    found["race"] = {
        "listed": [[score.nickname, score.words] for score in listed],
        "loser": state["room"]["daily"]["entry"]["unlisted"],
    }

    _, bot = post(device(), "Speedy")
    play(bot["room"]["code"], 1000, seconds_apart=0.1)  # ten words a second
    script = DailyScore.objects.get(nickname="Speedy")
    found["script"] = {"flagged": script.flagged, "listed": script.listed}

    _, paced = post(device(), "Paced")
    round_ = Round.objects.get(room__code=paced["room"]["code"], number=1)
    Round.objects.filter(pk=round_.pk).update(
        starts_at=timezone.now() - timedelta(seconds=1),
        ends_at=timezone.now() + timedelta(seconds=400),
    )
    solution = solve_like_the_script(round_)
    times = paced_script_times(len(solution))
    enter_at_times(round_, Player.objects.get(room=round_.room), solution, times)
    assert rounds.do_end_round(round_.id)
    paced_score = DailyScore.objects.get(nickname="Paced")
    found["paced_script"] = {
        "pace": plausibility.pace_reason(times),
        "flagged": paced_score.flagged,
        "listed": paced_score.listed,
        "reason": paced_score.flag_reason,
    }

    found["nul_nickname"] = post(device(), "Vic\x00tim")[0]
    daily = device().get("/api/daily", HTTP_HOST="localhost").json()
    found["leaderboard"] = [entry["nickname"] for entry in daily["leaderboard"]]
    return found


if __name__ == "__main__":
    print(json.dumps(scenario()))
