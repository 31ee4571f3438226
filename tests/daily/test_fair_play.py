"""What the daily leaderboard guarantees against hostile clients (docs/api.md, "What the
leaderboard guarantees"): a nickname belongs to the device that first listed a score under
it that day, a 0-point attempt claims nothing, a pace no human reaches stays off the public
leaderboard (staff see it in the admin), and attempts are rate-limited per address and
per device."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.test import Client

from daily import plausibility
from daily.models import DailyGame, DailyScore
from games import rounds
from games.models import Player, Round, Submission
from tests.daily.helpers import (
    DAY,
    begin,
    enter_at_pace,
    enter_at_times,
    get,
    paced_script_times,
    play,
    post,
    solve_like_the_script,
    start,
    strong_human_words,
    words_of,
)
from tests.games.words_helpers import submit_word

pytestmark = pytest.mark.django_db

# A made-up public address (TEST-NET-3): loopback is never rate-limited.
ADDRESS = "203.0.113.7"


def score_some(client: Client, nickname: str, count: int = 2) -> dict:
    """A human-paced attempt (a few words) that scores; the attempt's response."""
    data, round_, player = start(client, nickname)
    play_words(round_, player, count)
    return data


def play_words(round_: Round, player: Player, count: int) -> None:
    begin(round_)
    for word in words_of(round_, count):
        submit_word(player, word)
    assert rounds.do_end_round(round_.id)


def test_a_zero_point_attempt_does_not_keep_the_real_player_off() -> None:
    """The reported attack: "Victim" with 0 points from another device first; the real
    player, as "victim", "VICTIM" or a look-alike, still gets on the leaderboard."""
    _, attack_round, attacker = start(Client(), "Victim")
    play(attack_round, attacker, [])
    assert get(Client(), "/api/daily")["leaderboard"] == []
    for spelling in ("victim", "VICTIM", "V\u0456\u0441tim"):  # Cyrillic i and es
        status, body = post(Client(), "/api/daily", {"nickname": spelling})
        assert status == 201, (spelling, body)
        assert body["daily"]["counts"] is True
    victim = Client()
    score_some(victim, "Victim")
    board = get(victim, "/api/daily")
    assert [entry["nickname"] for entry in board["leaderboard"]] == ["Victim"]
    assert board["played"]["nickname"] == "Victim" and board["played"]["rank"] == 1
    listed = DailyScore.objects.get(date=DAY, listed=True)
    assert listed.device != DailyScore.objects.get(date=DAY, listed=False).device


def test_a_listed_nickname_belongs_to_its_device_for_the_day(fixed_day) -> None:
    owner = Client()
    score_some(owner, "Victim")
    for spelling in ("victim", "VICTIM", "V\u0456\u0441tim", " Victim "):
        status, body = post(Client(), "/api/daily", {"nickname": spelling})
        assert status == 409, spelling
        assert body["error"]["code"] == "nickname_taken"
        assert "another device" in body["error"]["message"]
    assert DailyGame.objects.count() == 1  # nothing was created for the refused ones
    # The owner may play again under it (practice), in any spelling.
    status, body = post(owner, "/api/daily", {"nickname": "VICTIM"})
    assert status == 201 and body["daily"]["counts"] is False
    # An API client without the cookie is the same device with its attempt's token.
    token = body["player"]["token"]
    status, body = post(
        Client(HTTP_AUTHORIZATION=f"Bearer {token}"), "/api/daily", {"nickname": "victim"}
    )
    assert status == 201 and body["daily"]["counts"] is False
    # The next day the nickname is free again.
    fixed_day[0] = fixed_day[0].replace(day=fixed_day[0].day + 1)
    status, _ = post(Client(), "/api/daily", {"nickname": "Victim"})
    assert status == 201


def test_two_devices_racing_for_a_nickname_the_first_listed_score_wins() -> None:
    """Both start "Ann" before either has a score; the first to finish with points holds
    it; the other's result is kept for its player but not listed."""
    first_client, second_client = Client(), Client()
    _, first_round, first = start(first_client, "Ann")
    _, second_round, second = start(second_client, "ann")
    play_words(first_round, first, 1)
    play_words(second_round, second, 3)
    board = get(Client(), "/api/daily")["leaderboard"]
    assert [(entry["nickname"], entry["words"]) for entry in board] == [("Ann", 1)]
    state = get(second_client, f"/api/rooms/{second_round.room.code}")["room"]["daily"]
    assert state["status"] == "unlisted"
    assert state["entry"]["unlisted"] == "nickname_taken" and state["entry"]["rank"] is None
    assert get(second_client, "/api/daily")["played"] is None


def test_a_script_that_enters_the_solution_stays_off_the_leaderboard(admin_client) -> None:
    """The reported script: every word of the solution within seconds. Its result is kept,
    flagged with the reason, off the public leaderboard; it holds no nickname; staff find
    it with the admin's filter and may clear the flag."""
    client = Client()
    _, round_, bot = start(client, "Speedy")
    begin(round_)
    solution = words_of(round_, 1000)
    enter_at_pace(round_, bot, solution, seconds_apart=0.1)  # ten words a second
    assert rounds.do_end_round(round_.id)
    score = DailyScore.objects.get(date=DAY)
    assert score.flagged and not score.listed and score.words == len(solution)
    assert score.flag_reason.startswith("pace: more than 15 words within 10 s")
    daily = get(client, "/api/daily")
    assert daily["leaderboard"] == [] and daily["players"] == 0 and daily["played"] is None
    state = get(client, f"/api/rooms/{round_.room.code}")["room"]["daily"]
    assert state["status"] == "unlisted" and state["entry"]["unlisted"] == "under_review"
    assert "Speedy" not in Client().get("/daily/").content.decode()
    # The nickname stays free for a person.
    status, _ = post(Client(), "/api/daily", {"nickname": "speedy"})
    assert status == 201
    # Staff: the flag filter lists it with the reason; the plausible filter does not.
    flagged = admin_client.get("/admin/daily/dailyscore/?flagged__exact=1").content.decode()
    assert "Speedy" in flagged and "pace: more than 15 words" in flagged
    plausible = admin_client.get("/admin/daily/dailyscore/?flagged__exact=0").content.decode()
    assert "Speedy" not in plausible
    response = admin_client.post(
        "/admin/daily/dailyscore/",
        {"action": "clear_flag", "_selected_action": [score.pk]},
    )
    assert response.status_code == 302
    score.refresh_from_db()
    assert score.listed and not score.flagged
    assert [entry["nickname"] for entry in get(Client(), "/api/daily")["leaderboard"]] == ["Speedy"]


def test_a_paced_script_entering_the_whole_solution_stays_off_the_leaderboard(
    admin_client,
) -> None:
    """Issue 48's script: the board from the round, solved with the project's solver, every
    word entered with irregular human-looking gaps, never more than 14 within 10 s. Its pace
    passes; what it found does not: flagged with the reason, off the leaderboard, shown to
    staff."""
    client = Client()
    _, round_, bot = start(client, "Paced")
    begin(round_)
    solution = solve_like_the_script(round_)
    times = paced_script_times(len(solution))
    assert plausibility.pace_reason(times) == ""  # the pace rules alone let it through
    enter_at_times(round_, bot, solution, times)
    assert rounds.do_end_round(round_.id)
    round_.refresh_from_db()
    score = DailyScore.objects.get(date=DAY)
    assert score.words == len(solution) == len(round_.solution)
    assert score.points == sum(entry[1] for entry in round_.solution)
    assert score.flagged and not score.listed
    assert score.flag_reason.startswith(f"share of the maximum: {score.points} of {score.points}")
    daily = get(client, "/api/daily")
    assert daily["leaderboard"] == [] and daily["played"] is None
    state = get(client, f"/api/rooms/{round_.room.code}")["room"]["daily"]
    assert state["entry"]["unlisted"] == "under_review"
    flagged = admin_client.get("/admin/daily/dailyscore/?flagged__exact=1").content.decode()
    assert "Paced" in flagged and "share of the maximum" in flagged


def test_a_paced_script_entering_a_shuffled_part_of_the_solution_is_flagged() -> None:
    """The same script, greedier for cover: half the solution in a random order stays under
    the share rule, but half its words are rare (people's are mostly common)."""
    _, round_, bot = start(Client(), "Half")
    begin(round_)
    solution = solve_like_the_script(round_)
    half = random.Random(3).sample(solution, len(solution) // 2)
    enter_at_times(round_, bot, half, paced_script_times(len(half)))
    assert rounds.do_end_round(round_.id)
    score = DailyScore.objects.get(date=DAY)
    assert score.flagged and not score.listed
    assert score.flag_reason.startswith(("rare words:", "order:")), score.flag_reason
    assert get(Client(), "/api/daily")["leaderboard"] == []


def test_a_strong_human_is_listed() -> None:
    """A strong player: a third of the board's maximum, mostly common words, short ones
    first, at a person's pace."""
    _, round_, player = start(Client(), "Strong")
    begin(round_)
    round_.refresh_from_db()
    found = strong_human_words(round_.solution, share=0.38)
    assert len(found) >= 20
    enter_at_times(round_, player, found, paced_script_times(len(found), seed=9))
    assert rounds.do_end_round(round_.id)
    score = DailyScore.objects.get(date=DAY)
    assert score.words == len(found)
    assert score.listed and not score.flagged and score.flag_reason == ""
    board = get(Client(), "/api/daily")["leaderboard"]
    assert [entry["nickname"] for entry in board] == ["Strong"]


def test_the_pace_is_judged_by_when_words_arrived_not_when_they_were_written() -> None:
    """Accepted words are written in batches: words that arrived seconds apart and were
    written in one instant are a person's pace, not a burst."""
    _, round_, player = start(Client(), "Steady")
    begin(round_)
    round_.refresh_from_db()
    found = strong_human_words(round_.solution, share=0.38)
    enter_at_times(round_, player, found, paced_script_times(len(found), seed=9))
    assert round_.starts_at is not None
    one_batch = round_.starts_at + timedelta(seconds=100)
    Submission.objects.filter(round=round_, player=player).update(created_at=one_batch)
    assert rounds.do_end_round(round_.id)
    score = DailyScore.objects.get(date=DAY)
    assert score.listed and not score.flagged, score.flag_reason


def test_a_human_pace_is_listed() -> None:
    """A few words at once (a person's burst) are no reason to flag."""
    client = Client()
    score_some(client, "Ann", count=8)
    score = DailyScore.objects.get(date=DAY)
    assert score.listed and not score.flagged and score.flag_reason == ""


def test_attempts_are_rate_limited_per_address() -> None:
    """Devices without cookies from one address: a dozen at once, then 429."""
    answers = [
        post(Client(REMOTE_ADDR=ADDRESS), "/api/daily", {"nickname": f"Bot {n}"}) for n in range(13)
    ]
    assert [status for status, _ in answers] == [201] * 12 + [429]
    assert answers[-1][1]["error"]["code"] == "rate_limited"
    assert "your address" in answers[-1][1]["error"]["message"]
    assert DailyGame.objects.count() == 12
    # Another address is not held up.
    status, _ = post(Client(REMOTE_ADDR="203.0.113.8"), "/api/daily", {"nickname": "Ann"})
    assert status == 201


def test_attempts_are_rate_limited_per_device() -> None:
    """One device (even on loopback, which no address limit counts): a few, then 429."""
    device = Client()
    statuses = [post(device, "/api/daily", {"nickname": f"Player {n}"})[0] for n in range(5)]
    assert statuses == [201] * 4 + [429]
    response = device.post(
        "/api/daily", '{"nickname": "Player 9"}', content_type="application/json"
    )
    assert response.status_code == 429 and int(response["Retry-After"]) > 0
    assert "this device" in response.json()["error"]["message"]
    # Another device on the same address still plays.
    assert post(Client(), "/api/daily", {"nickname": "Ann"})[0] == 201
