"""Playing rounds over the websocket: submitting, reconnecting, hidden verdicts, untimed
rounds, versions, live counts and results."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from games import rounds
from games.models import Round, Submission
from solver import parse_board
from tests.games.ws_helpers import (
    BOARD,
    NOT_A_DICTIONARY_WORD,
    NOT_ON_BOARD,
    ask,
    collect,
    connect,
    join_room,
    open_socket,
    receive,
    receive_until,
    seconds_from_now,
    set_round_times,
    start_round,
    submit,
    two_players,
    whole_results,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]


async def end_by_host(host, *others) -> list[dict]:
    """The host ends the round; returns round.ended as each of ``host, *others`` saw it."""
    reply = await ask(host.comm, "end_round")
    assert reply["type"] == "ok", reply
    return [await receive_until(p.comm, "round.ended") for p in (host, *others)]


async def end_and_read(host, *others) -> list[dict]:
    """The host ends the round; returns the whole results each of ``host, *others`` reads
    after its round.ended (which ``whole_results`` checks against them)."""
    ended = await end_by_host(host, *others)
    return [
        await whole_results(p.comm, e, p.id) for e, p in zip(ended, (host, *others), strict=True)
    ]


def by_nickname(results: dict) -> dict[str, dict]:
    return {p["nickname"]: p for p in results["players"]}


async def submissions_of(player) -> list[Submission]:
    return await sync_to_async(
        lambda: list(Submission.objects.filter(player_id=player.id).order_by("id"))
    )()


# ---------------------------------------------------------------- the round's life


async def test_round_preparing_then_started_reach_everyone():
    """start_round: ok to the host, round.preparing then round.started (board, clock) to all."""
    ann, bob = await two_players(round_seconds=60)
    assert (await ask(ann.comm, "set_board", board=BOARD))["type"] == "ok"
    reply = await ask(ann.comm, "start_round")
    assert (reply["type"], reply["round_number"]) == ("ok", 1)
    preparing = await receive_until(bob.comm, "round.preparing")
    assert preparing["round"]["status"] == "preparing"
    started = await receive_until(bob.comm, "round.started")
    round_info = started["round"]
    assert round_info["status"] == "running" and round_info["board"] == BOARD
    assert round_info["grid"][1] == ["qu", "i", "e", "x"]
    assert round_info["ends_at"] - round_info["starts_at"] == 60_000
    assert round_info["starts_at"] > started["server_time"]  # the countdown
    assert round_info["points_table"]["5"] == 2


async def test_words_during_the_countdown_are_wrong_round_state():
    """Before starts_at a submit gets an error wrong_round_state, and nothing is stored."""
    ann, bob = await two_players()
    round_ = await start_round(ann, bob)
    await set_round_times(round_, starts_at=seconds_from_now(30))
    reply = await submit(bob.comm, "cats")
    assert reply["type"] == "error" and reply["code"] == "wrong_round_state"
    assert await submissions_of(bob) == []


async def test_submit_before_any_round_is_wrong_round_state():
    """No round yet: error wrong_round_state."""
    ann, _ = await two_players()
    assert (await submit(ann.comm, "cats"))["code"] == "wrong_round_state"


async def test_verdicts_for_each_kind_of_word():
    """Each verdict comes back with the normalised word, accepted flag and a reason."""
    ann, bob = await two_players()
    await start_round(ann, bob)
    expected = {
        "Cats": ("cats", "accepted", True),
        "cats": ("cats", "already_entered", False),
        "at": ("at", "too_short", False),
        NOT_A_DICTIONARY_WORD: (NOT_A_DICTIONARY_WORD, "not_in_dictionary", False),
        NOT_ON_BOARD: (NOT_ON_BOARD, "not_on_board", False),
        "c4ts": ("c4ts", "not_a_word", False),
    }
    for entry, (word, verdict, accepted) in expected.items():
        reply = await submit(bob.comm, entry, client_id=f"id-{entry}")
        assert reply["type"] == "verdict"
        assert (reply["word"], reply["verdict"], reply["accepted"]) == (word, verdict, accepted)
        assert reply["client_id"] == f"id-{entry}"
        assert (reply["reason"] is None) == accepted


async def test_a_player_joining_mid_round_can_play_it():
    """Someone who joins while a round runs gets it in their state and can submit."""
    ann, bob = await two_players()
    await start_round(ann, bob)
    cy = await join_room(ann.code, "Cy")
    joined = await receive_until(ann.comm, "player.joined")
    assert joined["player"]["nickname"] == "Cy"
    state = await connect(cy)
    assert state["round"]["status"] == "running" and state["round"]["board"] == BOARD
    assert (await submit(cy.comm, "quiet"))["verdict"] == "accepted"
    results = (await end_and_read(ann, cy))[1]
    assert by_nickname(results)["Cy"]["round_points"] == 2


async def test_reconnecting_mid_round_loses_nothing():
    """A second connection (a reload, a new tab) gets the round, board, clock and the
    player's own words with their verdicts; the player goes on playing there."""
    ann, bob = await two_players()
    round_ = await start_round(ann, bob)
    await submit(bob.comm, "cats", client_id="a")
    await submit(bob.comm, NOT_A_DICTIONARY_WORD, client_id="b")
    first = bob.comm
    bob.comm = await open_socket(bob.code, bob.token)
    state = (await receive(bob.comm))["state"]
    await first.disconnect()
    assert state["you"] == bob.id
    assert state["round"]["board"] == BOARD and state["round"]["status"] == "running"
    assert state["round"]["starts_at"] == int(round_.starts_at.timestamp() * 1000)
    assert state["round"]["ends_at"] == int(round_.ends_at.timestamp() * 1000)
    mine = [(w["word"], w["verdict"], w["client_id"]) for w in state["my_words"]]
    assert mine == [("cats", "accepted", "a"), (NOT_A_DICTIONARY_WORD, "not_in_dictionary", "b")]
    assert state["counts"] == {str(bob.id): 1}
    assert (await submit(bob.comm, "cats"))["verdict"] == "already_entered"
    assert (await submit(bob.comm, "dog"))["verdict"] == "accepted"


async def test_another_players_state_has_no_one_elses_words():
    """Ann's state during the round shows Bob's count, never Bob's words."""
    ann, bob = await two_players()
    await start_round(ann, bob)
    await submit(bob.comm, "quiet")
    state = (await ask(ann.comm, "sync"))["state"]
    assert state["my_words"] == []
    assert state["counts"] == {str(bob.id): 1}
    assert "quiet" not in str(state)


async def test_resending_with_the_same_client_id_returns_the_stored_verdict():
    """A resend (same client_id) is answered with the first verdict; one row is stored."""
    ann, bob = await two_players()
    await start_round(ann, bob)
    first = await submit(bob.comm, "went", client_id="entry-7")
    again = await submit(bob.comm, "went", client_id="entry-7")
    assert first["verdict"] == again["verdict"] == "accepted"
    assert again["client_id"] == "entry-7"
    assert len(await submissions_of(bob)) == 1
    # Another word under the same id is refused: it would be lost behind the first verdict.
    refused = await submit(bob.comm, "dog", client_id="entry-7")
    assert (refused["type"], refused["code"]) == ("error", "invalid")
    assert "client_id 'entry-7' was already used for 'went'" in refused["message"]
    assert len(await submissions_of(bob)) == 1


async def test_hidden_verdicts_say_received_until_the_results():
    """instant_verdicts off: every word is "received" (on reconnect too); the results give
    the real verdicts and points."""
    ann, bob = await two_players(instant_verdicts=False)
    await start_round(ann, bob)
    for word in ("quiet", NOT_A_DICTIONARY_WORD, NOT_ON_BOARD):
        reply = await submit(bob.comm, word)
        assert (reply["verdict"], reply["accepted"], reply["reason"]) == ("received", None, None)
    state = (await ask(bob.comm, "sync"))["state"]
    assert {w["verdict"] for w in state["my_words"]} == {"received"}
    assert "accepted" not in str(state["my_words"])
    results = (await end_and_read(ann, bob))[1]
    bob_results = by_nickname(results)["Bob"]
    assert [(w["word"], w["points"]) for w in bob_results["words"]] == [("quiet", 2)]
    rejected = {r["word"]: r["verdict"] for r in bob_results["rejected"]}
    assert rejected == {NOT_A_DICTIONARY_WORD: "not_in_dictionary", NOT_ON_BOARD: "not_on_board"}
    state = (await ask(bob.comm, "sync"))["state"]
    assert [w["verdict"] for w in state["my_words"]] == [
        "accepted",
        "not_in_dictionary",
        "not_on_board",
    ]


async def test_hidden_verdicts_counts_do_not_leak_verdicts():
    """instant_verdicts off: a rejected word moves the live count as an accepted one does."""
    ann, bob = await two_players(instant_verdicts=False)
    await start_round(ann, bob)
    await submit(bob.comm, NOT_A_DICTIONARY_WORD)
    counts = await receive_until(ann.comm, "round.counts")
    assert counts["counts"] == {str(bob.id): 1}


async def test_an_untimed_round_ends_only_when_the_host_ends_it():
    """round_seconds null: no deadline; the watcher's sweep leaves it alone and the host's
    end_round ends it for everyone."""
    ann, bob = await two_players(round_seconds=None)
    round_ = await start_round(ann, bob)
    assert round_.ends_at is None
    assert await sync_to_async(rounds.end_overdue_rounds)() == 0
    assert (await submit(bob.comm, "cats"))["verdict"] == "accepted"
    ended = await end_by_host(ann, bob)
    assert all(e["scores"]["round"]["status"] == "ended" for e in ended)
    assert ended[0]["scores"]["round"]["ends_at"] is None
    assert (await ask(ann.comm, "end_round"))["code"] == "wrong_round_state"


async def test_words_after_the_deadline_are_round_over():
    """After ends_at a submit gets the verdict round_over, and nothing is stored."""
    ann, bob = await two_players()
    round_ = await start_round(ann, bob)
    await set_round_times(round_, ends_at=timezone.now())
    reply = await submit(bob.comm, "cats")
    assert (reply["type"], reply["verdict"], reply["accepted"]) == ("verdict", "round_over", False)
    assert reply["reason"] == "the round is over"
    assert await submissions_of(bob) == []


async def test_events_carry_increasing_versions():
    """Every room event Bob receives has the next version after his state's: no gaps, no
    repeats, in order; the live counts he gets between take none (whole snapshots)."""
    ann, bob = await two_players()
    state = (await ask(bob.comm, "sync"))["state"]
    await ask(ann.comm, "set_board", board=BOARD)
    await ask(ann.comm, "start_round")
    await receive_until(ann.comm, "round.started")
    round_ = await sync_to_async(Round.objects.get)(room__code=ann.code)
    await set_round_times(round_, starts_at=timezone.now())
    assert (await submit(ann.comm, "cats"))["verdict"] == "accepted"
    await receive_until(ann.comm, "round.counts")  # counts go out with the next batch
    await ask(ann.comm, "end_round")
    await receive_until(ann.comm, "round.ended")
    seen, unversioned = [], []
    while True:
        message = await receive(bob.comm)
        if "version" in message and message["version"] > state["version"]:
            seen.append((message["version"], message["type"]))
        elif "version" not in message:
            unversioned.append(message["type"])
        if message["type"] == "round.ended":
            break
    assert "round.counts" in unversioned
    versions = [v for v, _ in seen]
    assert versions == list(range(state["version"] + 1, state["version"] + 1 + len(seen)))
    assert [t for _, t in seen] == [
        "settings.changed",  # the typed board is set
        "round.preparing",
        "settings.changed",  # the typed board is used up
        "round.started",
        "round.ended",
    ]


async def test_live_counts_show_counts_never_words():
    """Accepted words raise the finder's count for everyone; no event names the word, and
    rejected words count nothing. Counts are batched: the latest state, not one per word."""
    ann, bob = await two_players()
    await start_round(ann, bob)
    await submit(bob.comm, "quiet")
    await submit(bob.comm, NOT_A_DICTIONARY_WORD)
    await submit(bob.comm, "went")
    await receive_until(ann.comm, "round.counts", counts={str(bob.id): 2})
    seen = await collect(ann.comm, quiet=1.5)  # a whole publishing period, and more
    assert [m for m in seen if m["type"] == "round.counts"] == []  # nothing new: none sent
    await submit(ann.comm, "cats")
    await receive_until(bob.comm, "round.counts", counts={str(bob.id): 2, str(ann.id): 1})
    text = str([m for m in seen if m["type"] != "verdict"])
    for word in ("quiet", "went", NOT_A_DICTIONARY_WORD):
        assert word not in text


# ---------------------------------------------------------------- results


async def test_results_of_two_rounds():
    """The results hold everything: cancelled duplicates, rejected words, the solution
    with paths and finders, shares of the maximum, and totals running across rounds;
    round.ended gives everyone the same scores and each player their own words."""
    ann, bob = await two_players()
    round_ = await start_round(ann, bob)
    for word in ("cats", "dog", NOT_A_DICTIONARY_WORD, "at", NOT_A_DICTIONARY_WORD):
        await submit(ann.comm, word)
    for word in ("dog", "quiet"):
        await submit(bob.comm, word)
    ann_view, bob_view = await end_by_host(ann, bob)
    assert ann_view["scores"] == bob_view["scores"]
    assert ann_view["mine"] != bob_view["mine"]
    results = await whole_results(ann.comm, ann_view, ann.id)
    assert await whole_results(bob.comm, bob_view, bob.id) == results
    players = by_nickname(results)
    ann_words = {w["word"]: w for w in players["Ann"]["words"]}
    assert (ann_words["cats"]["points"], ann_words["cats"]["cancelled"]) == (1, False)
    assert (ann_words["dog"]["points"], ann_words["dog"]["cancelled"]) == (0, True)
    bob_words = {w["word"]: w for w in players["Bob"]["words"]}
    assert (bob_words["dog"]["points"], bob_words["dog"]["cancelled"]) == (0, True)
    assert bob_words["quiet"]["points"] == 2
    assert players["Ann"]["rejected"] == [
        {
            "word": NOT_A_DICTIONARY_WORD,
            "verdict": "not_in_dictionary",
            "reason": "not in the dictionary",
        },
        {"word": "at", "verdict": "too_short", "reason": "too short"},
    ]
    assert (players["Ann"]["round_points"], players["Bob"]["round_points"]) == (1, 2)
    assert [p["nickname"] for p in results["players"]] == ["Bob", "Ann"]
    # The solution: every word with a path on the board and who found it.
    board = parse_board(BOARD)
    solution = {entry["word"]: entry for entry in results["solution"]}
    assert results["word_count"] == len(solution)
    assert results["max_points"] == sum(entry["points"] for entry in solution.values())
    for word, entry in solution.items():
        assert "".join(board.faces[cell] for cell in entry["path"]) == word
    assert solution["cats"]["found_by"] == [ann.id]
    assert sorted(solution["dog"]["found_by"]) == sorted([ann.id, bob.id])
    assert solution["went"]["found_by"] == []
    assert ann_words["cats"]["path"] == solution["cats"]["path"]
    assert players["Bob"]["share_of_max"] == round(2 / results["max_points"], 4)
    assert 0 < players["Ann"]["share_of_max"] < players["Bob"]["share_of_max"]
    assert round_.number == 1

    # Round two: totals add up across rounds.
    await start_round(ann, bob)
    await submit(ann.comm, "went")
    await submit(ann.comm, "diet")
    await submit(bob.comm, "quiet")
    results = (await end_and_read(ann, bob))[0]
    assert results["round"]["number"] == 2
    players = by_nickname(results)
    assert (players["Ann"]["round_points"], players["Ann"]["total_points"]) == (2, 3)
    assert (players["Bob"]["round_points"], players["Bob"]["total_points"]) == (2, 4)
    assert [p["nickname"] for p in results["players"]] == ["Bob", "Ann"]  # tie: total decides
    state = (await ask(ann.comm, "sync"))["state"]
    totals = {p["nickname"]: p["total_points"] for p in state["players"]}
    assert totals == {"Ann": 3, "Bob": 4}
    assert state["results"]["round"]["number"] == 2


async def test_friendly_rooms_do_not_cancel_duplicates():
    """cancel_duplicates off: a word both found scores for both."""
    ann, bob = await two_players(cancel_duplicates=False)
    await start_round(ann, bob)
    await submit(ann.comm, "quiet")
    await submit(bob.comm, "quiet")
    players = by_nickname((await end_and_read(ann, bob))[0])
    assert players["Ann"]["round_points"] == players["Bob"]["round_points"] == 2
    assert players["Ann"]["words"][0]["cancelled"] is False
