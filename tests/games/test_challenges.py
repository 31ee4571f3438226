"""House rules at the table, and rounds that keep their word list.

A player challenges a word the dictionary refused; the players online vote (the host breaks
ties, and rules other players' challenges at once with rule_challenge). Accepting
re-judges the round's entries of the word for everyone, rescores the round (duplicates
cancel) and sends ``round.rescored``; the word then counts in the room's later rounds. A
round is judged, solved and scored with the dictionary version it started with, whatever
happens to the dictionary afterwards.
"""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from dictionaries import files, services
from dictionaries.models import Dictionary
from games import challenges, presenters, room_dictionaries, rooms, rounds, state
from games.exceptions import NotHost, RoundNotFound, WrongRoundState
from games.models import Challenge, Connection, Player, Round, Submission
from games.room_dictionaries import word_list_for_round
from solver import DICE_SETS, parse_board
from tests.dictionaries.helpers import compile_now, current_version, make_dictionary
from tests.games.words_helpers import submit_word
from tests.games.ws_helpers import (
    BOARD,
    ask,
    collect,
    connect,
    join_room,
    receive_until,
    start_round,
    submit,
    two_players,
    whole_results,
)
from tests.solver.test_dice import could_roll
from web.errors import InvalidInput

# Every test closes the sockets it opened (tests/games/conftest.py).
pytestmark = pytest.mark.usefixtures("close_sockets")

# On BOARD ("cats qiex dogz went") but in no English list: the words challenged here.
WEGO = "wego"
GODE = "gode"
# A 4x4 board on which French has "été" (folded: "ete"), and little else.
FRENCH_BOARD = "etez xkwy jqhb fvgc"


@pytest.fixture
def dictionary_dir(tmp_path: Path, settings) -> Path:
    """An empty BOGGLE_DICTIONARY_DIR for this test (never var/dictionaries)."""
    path = tmp_path / "dictionaries"
    settings.BOGGLE_DICTIONARY_DIR = path
    return path


def by_nickname(results: dict) -> dict[str, dict]:
    return {p["nickname"]: p for p in results["players"]}


def words_of(player: dict) -> dict[str, tuple[int, bool]]:
    return {w["word"]: (w["points"], w["cancelled"]) for w in player["words"]}


def rejected_of(player: dict) -> dict[str, str]:
    return {r["word"]: r["verdict"] for r in player["rejected"]}


async def end_round(host, *others) -> dict:
    """The host ends the round; returns the results everyone reads after round.ended."""
    assert (await ask(host.comm, "end_round"))["type"] == "ok"
    results = None
    for player in (host, *others):
        ended = await receive_until(player.comm, "round.ended")
        results = await whole_results(player.comm, ended, player.id)
    assert results is not None
    return results


# ---------------------------------------------------------------- over the websocket


@pytest.mark.django_db(transaction=True)
async def test_an_accepted_challenge_rescores_the_round_for_everyone():
    """Bob's "gode" and the "wego" Ann and Bob both entered are refused; both are
    challenged and accepted: gode by the host's ruling, wego (the host's own challenge) by
    the votes of Bob and Carl. Everyone gets challenge.opened, challenge.voted,
    challenge.ruled and round.rescored: Bob's gode scores (his repeat of it does not), wego
    is accepted for Ann and Bob and, found by both, cancelled. The next round takes both
    words at once and lists them in its solution."""
    ann, bob = await two_players()
    carl = await join_room(ann.code, "Carl")
    await connect(carl)
    everyone = (ann, bob, carl)
    await start_round(ann, bob, carl)
    for player, word in ((ann, WEGO), (ann, "cats"), (bob, WEGO), (bob, GODE), (bob, GODE)):
        await submit(player.comm, word)
    await submit(carl.comm, "cats")
    results = await end_round(ann, bob, carl)
    players = by_nickname(results)
    assert rejected_of(players["Bob"]) == {WEGO: "not_in_dictionary", GODE: "not_in_dictionary"}
    assert results["challenges"] == []

    reply = await ask(bob.comm, "challenge", word=GODE, round_number=1)
    assert reply["type"] == "ok" and reply["request"] == "challenge", reply
    gode = reply["challenge"]
    assert (gode["word"], gode["status"], gode["player_id"], gode["nickname"]) == (
        GODE,
        "pending",
        bob.id,
        "Bob",
    )
    assert gode["round_number"] == 1 and gode["decided_at"] is None
    for player in everyone:
        opened = await receive_until(player.comm, "challenge.opened")
        assert opened["challenge"] == gode
    wego = (await ask(ann.comm, "challenge", word="WEGO", round_number=1))["challenge"]
    assert wego["word"] == WEGO

    refused = await ask(bob.comm, "rule_challenge", challenge_id=gode["id"], accept=True)
    assert (refused["type"], refused["code"], refused["request"]) == (
        "error",
        "not_host",
        "rule_challenge",
    )

    ruled = await ask(ann.comm, "rule_challenge", challenge_id=gode["id"], accept=True)
    assert ruled["type"] == "ok" and ruled["challenge"]["status"] == "accepted"
    assert ruled["challenge"]["decided_at"] is not None
    for player in everyone:
        event = await receive_until(player.comm, "challenge.ruled")
        assert event["challenge"] == ruled["challenge"]
        rescored = await receive_until(player.comm, "round.rescored")
        players = by_nickname(rescored["results"])
        assert words_of(players["Bob"]) == {GODE: (1, False)}
        assert rejected_of(players["Bob"]) == {WEGO: "not_in_dictionary"}
        assert players["Bob"]["round_points"] == players["Bob"]["total_points"] == 1
        solution = {s["word"]: s for s in rescored["results"]["solution"]}
        assert solution[GODE]["found_by"] == [bob.id]

    # Ann's own challenge: she cannot rule on it, nor vote; Bob and Carl (online when it
    # was made) vote, and both must accept: a majority of two.
    assert wego["votes"] == {
        "voters": [bob.id, carl.id],
        "voted": [],
        "accept": 0,
        "decline": 0,
        "needed": 2,
    }
    own = await ask(ann.comm, "rule_challenge", challenge_id=wego["id"], accept=True)
    assert own["code"] == "invalid" and "your own challenge" in own["message"]
    own = await ask(ann.comm, "vote_challenge", challenge_id=wego["id"], accept=True)
    assert own["code"] == "invalid" and "your own challenge" in own["message"]
    vote = await ask(bob.comm, "vote_challenge", challenge_id=wego["id"], accept=True)
    assert (vote["type"], vote["request"]) == ("ok", "vote_challenge")
    assert vote["challenge"]["status"] == "pending"
    for player in everyone:
        voted = (await receive_until(player.comm, "challenge.voted"))["challenge"]
        assert (voted["votes"]["voted"], voted["votes"]["accept"]) == ([bob.id], 1)
    vote = await ask(carl.comm, "vote_challenge", challenge_id=wego["id"], accept=True)
    assert vote["challenge"]["status"] == "accepted"
    assert vote["challenge"]["votes"]["accept"] == 2
    for player in everyone:
        ruled = (await receive_until(player.comm, "challenge.ruled"))["challenge"]
        assert (ruled["word"], ruled["status"]) == (WEGO, "accepted")
        results = (await receive_until(player.comm, "round.rescored"))["results"]
    players = by_nickname(results)
    assert words_of(players["Ann"]) == {WEGO: (0, True), "cats": (0, True)}
    assert words_of(players["Bob"]) == {GODE: (1, False), WEGO: (0, True)}
    assert words_of(players["Carl"]) == {"cats": (0, True)}
    assert [p["round_points"] for p in results["players"]] == [1, 0, 0]
    assert {c["word"]: c["status"] for c in results["challenges"]} == {
        GODE: "accepted",
        WEGO: "accepted",
    }
    solution = {s["word"]: s for s in results["solution"]}
    assert sorted(solution[WEGO]["found_by"]) == sorted([ann.id, bob.id])
    assert results["max_points"] == sum(s["points"] for s in results["solution"])
    assert results["word_count"] == len(results["solution"])

    # The next round: the room's accepted words count at once and are in the solution.
    await start_round(ann, bob, carl)
    assert (await submit(carl.comm, WEGO))["verdict"] == "accepted"
    assert (await submit(bob.comm, GODE))["verdict"] == "accepted"
    results = await end_round(ann, bob, carl)
    players = by_nickname(results)
    assert words_of(players["Carl"]) == {WEGO: (1, False)}
    assert players["Bob"]["total_points"] == 2
    solution = {s["word"]: s for s in results["solution"]}
    assert solution[WEGO]["found_by"] == [carl.id] and solution[GODE]["found_by"] == [bob.id]


@pytest.mark.django_db(transaction=True)
async def test_a_declined_challenge_changes_no_score():
    """Declined: challenge.ruled says so, no round.rescored, the word stays refused in the
    next round, and the same word cannot be challenged again in that round."""
    ann, bob = await two_players()
    await start_round(ann, bob)
    await submit(bob.comm, WEGO)
    await end_round(ann, bob)
    challenge = (await ask(bob.comm, "challenge", word=WEGO, round_number=1))["challenge"]
    reply = await ask(ann.comm, "rule_challenge", challenge_id=challenge["id"], accept=False)
    assert reply["challenge"]["status"] == "declined"
    messages = await collect(bob.comm)
    kinds = [m["type"] for m in messages]
    assert "challenge.ruled" in kinds and "round.rescored" not in kinds
    again = await ask(bob.comm, "challenge", word=WEGO, round_number=1)
    assert again["code"] == "invalid" and "already challenged" in again["message"]
    twice = await ask(ann.comm, "rule_challenge", challenge_id=challenge["id"], accept=True)
    assert twice["code"] == "invalid" and "already declined" in twice["message"]
    await start_round(ann, bob)
    assert (await submit(bob.comm, WEGO))["verdict"] == "not_in_dictionary"


@pytest.mark.django_db(transaction=True)
async def test_challenge_errors_over_the_websocket():
    """A word refused for another reason, a running round, an unknown round, bad fields."""
    ann, bob = await two_players()
    await start_round(ann, bob)
    await submit(bob.comm, "zebra")  # in the dictionary, not on the board
    early = await ask(bob.comm, "challenge", word="zebra", round_number=1)
    assert early["code"] == "wrong_round_state"
    await end_round(ann, bob)
    other = await ask(bob.comm, "challenge", word="zebra", round_number=1)
    assert other["code"] == "invalid"
    assert other["message"] == (
        "only words refused as not in the dictionary can be challenged; "
        "'zebra' was refused: not on the board"
    )
    assert (await ask(bob.comm, "challenge", word=WEGO, round_number=7))["code"] == (
        "round_not_found"
    )
    assert (await ask(bob.comm, "challenge", word=WEGO, round_number="1"))["code"] == "invalid"
    bad = await ask(ann.comm, "rule_challenge", challenge_id=1, accept="yes")
    assert bad["code"] == "invalid" and bad["message"] == "accept is true or false"


# ---------------------------------------------------------------- the rules, without sockets


def online(*players: Player) -> None:
    """The players have a socket open (a live presence row), as if connected."""
    for player in players:
        Connection.objects.create(
            player=player,
            channel_name=f"test-{player.id}",
            process="test",
            beat_at=timezone.now(),
        )


def make_room(**settings) -> tuple[Player, Player]:
    room, ann = rooms.do_create_room("Ann", settings)
    return ann, rooms.do_join_room(room, "Bob")


def play(host: Player, entries: dict[Player, list[str]], board: str = BOARD) -> Round:
    """A whole round on ``board``: start, prepare, the entries, end."""
    rooms.do_set_next_board(host, board)
    round_ = rounds.do_start_round(host)
    assert rounds.do_prepare_round(round_.id)
    Round.objects.filter(pk=round_.pk).update(starts_at=round_.created_at)
    for player, entered in entries.items():
        for word in entered:
            submit_word(player, word)
    assert rounds.do_end_round(round_.id)
    round_.refresh_from_db()
    return round_


@pytest.mark.django_db
def test_only_words_refused_as_not_in_the_dictionary_can_be_challenged():
    """Each other case gets an error that says why."""
    ann, bob = make_room()
    play(ann, {bob: ["at", "zebra", "xyzzy", "cats", "a1b", WEGO]})
    cases = {
        "at": "was refused: too short",
        "zebra": "was refused: not on the board",
        "a1b": "was refused: only letters make a word",
        # Letters not on the board: not_on_board, never not_in_dictionary.
        "xyzzy": "'xyzzy' was refused: not on the board",
        "cats": "'cats' already counts",
        "dog": "you did not enter 'dog' in round 1",
    }
    for word, message in cases.items():
        with pytest.raises(InvalidInput, match=message):
            challenges.do_challenge(bob, word, 1)
    with pytest.raises(RoundNotFound):
        challenges.do_challenge(bob, WEGO, 2)
    with pytest.raises(InvalidInput, match="round_number is a number"):
        challenges.do_challenge(bob, WEGO, None)
    assert challenges.do_challenge(bob, WEGO, 1).status == Challenge.Status.PENDING
    with pytest.raises(InvalidInput, match="Bob already challenged 'wego' \\(pending\\)"):
        challenges.do_challenge(bob, WEGO, 1)


@pytest.mark.django_db
def test_rulings_are_the_hosts_and_stay_in_the_room():
    """A non-host gets NotHost; a challenge of another room is unknown here."""
    ann, bob = make_room()
    play(ann, {bob: [WEGO]})
    challenge = challenges.do_challenge(bob, WEGO, 1)
    with pytest.raises(NotHost):
        challenges.do_rule_challenge(bob, challenge.id, True)
    _, eve = rooms.do_create_room("Eve")
    with pytest.raises(InvalidInput, match="no such challenge in this room"):
        challenges.do_rule_challenge(eve, challenge.id, True)
    with pytest.raises(InvalidInput, match="challenge_id is a number"):
        challenges.do_rule_challenge(ann, str(challenge.id), True)
    assert Challenge.objects.get().status == Challenge.Status.PENDING


@pytest.mark.django_db
def test_challenges_wait_for_the_end_of_the_round():
    """While the round runs, a challenge is wrong_round_state."""
    ann, bob = make_room()
    rooms.do_set_next_board(ann, BOARD)
    round_ = rounds.do_start_round(ann)
    rounds.do_prepare_round(round_.id)
    with pytest.raises(WrongRoundState):
        challenges.do_challenge(bob, WEGO, 1)


@pytest.mark.django_db
def test_an_accepted_word_counts_only_with_its_dictionary(dictionary_dir: Path):
    """Accepted while playing English, "wego" still needs a ruling in a round played with
    another dictionary."""
    make_dictionary("tiny")
    ann, bob = make_room(dictionary="tiny")
    play(ann, {bob: [WEGO]})
    challenges.do_rule_challenge(ann, challenges.do_challenge(bob, WEGO, 1).id, True)
    assert room_dictionaries.house_words(ann.room_id, "tiny") == {WEGO}
    assert room_dictionaries.house_words(ann.room_id, "english") == frozenset()


# ---------------------------------------------------------------- rounds keep their version


@pytest.mark.django_db
def test_a_finished_round_is_unchanged_after_its_dictionary_is_recompiled(dictionary_dir: Path):
    """Round 1 ends with "cats" and "went" scored; round 2 is running. Staff remove both
    words and recompile. Round 1's results are exactly as before, and a challenge in it is
    judged with its own version; round 2 still takes "went"; round 3 refuses it."""
    tiny = make_dictionary("tiny")
    old_version = tiny.current_version
    ann, bob = make_room(dictionary="tiny")
    first = play(ann, {ann: ["cats", GODE], bob: ["went", "diet"]})
    before = state.results(first)
    assert words_of(by_nickname(before)["Ann"]) == {"cats": (1, False)}

    rooms.do_set_next_board(ann, BOARD)
    second = rounds.do_start_round(ann)
    rounds.do_prepare_round(second.id)
    Round.objects.filter(pk=second.pk).update(starts_at=second.created_at)

    services.do_edit_words(tiny, ["cats", "went"], "remove", recompile=False)
    compile_now(tiny)
    assert tiny.current_version != old_version

    first.refresh_from_db()
    assert first.dictionary_version == old_version
    assert state.results(first) == before
    assert "cats" in word_list_for_round(first)
    assert submit_word(ann, "went").verdict == "accepted"  # round 2, old version
    assert rounds.do_end_round(second.id)

    # A challenge in round 1 rescores it with round 1's words: "cats" still counts. (Ann
    # hosts: her own challenge is voted on, by Bob, online.)
    online(bob)
    challenges.do_vote_challenge(bob, challenges.do_challenge(ann, GODE, 1).id, True)
    first.refresh_from_db()
    rescored = by_nickname(state.results(first))
    assert words_of(rescored["Ann"]) == {"cats": (1, False), GODE: (1, False)}
    assert words_of(rescored["Bob"]) == {"went": (1, False), "diet": (1, False)}

    third = play(ann, {ann: ["went", "cats"]})
    assert third.dictionary_version == tiny.current_version
    verdicts = dict(Submission.objects.filter(round=third).values_list("word", "verdict"))
    assert verdicts == {"went": "not_in_dictionary", "cats": "not_in_dictionary"}
    assert {"went", "cats"}.isdisjoint(entry[0] for entry in third.solution)


@pytest.mark.django_db
def test_a_round_in_french_folds_accents(dictionary_dir: Path):
    """With French imported, a room plays it: "été" and "ete" are the same word ("ete"),
    accepted for both players and, found by both, cancelled; it is in the solution."""
    call_command("import_dictionary", "french", stdout=StringIO())
    ann, bob = make_room(dictionary="french")
    round_ = play(ann, {ann: ["été", "Tex"], bob: ["ete"]}, board=FRENCH_BOARD)
    assert round_.dictionary == "french"
    assert round_.dictionary_version == Dictionary.objects.get(name="french").current_version
    results = state.results(round_)
    players = by_nickname(results)
    assert words_of(players["Ann"]) == {"ete": (0, True), "tex": (1, False)}
    assert words_of(players["Bob"]) == {"ete": (0, True)}
    solution = {s["word"]: s for s in results["solution"]}
    assert sorted(solution["ete"]["found_by"]) == sorted([ann.id, bob.id])


@pytest.mark.django_db
def test_a_french_room_rolls_the_french_dice(dictionary_dir: Path):
    """A 4x4 room playing French rolls the French edition's dice (no room setting needed);
    its settings say so. Forty boards: the English dice could have rolled about 64% of
    French boards, so all forty by chance is one run in tens of millions (ten was 1%)."""
    call_command("import_dictionary", "french", stdout=StringIO())
    ann, _bob = make_room(dictionary="french")
    assert presenters.settings_dict(ann.room)["dice_set"] == "classic-fr"
    french, english = DICE_SETS["classic-fr"].dice, DICE_SETS["classic"].dice
    from_english = 0
    for _ in range(40):
        round_ = rounds.do_start_round(ann)
        faces = parse_board(round_.board).faces
        assert round_.dice_set == "classic-fr"
        assert could_roll(faces, french)
        from_english += could_roll(faces, english)
        Round.objects.filter(pk=round_.pk).update(status=Round.Status.ENDED)
    assert from_english < 40


# ---------------------------------------------------------------- staff


@pytest.mark.django_db
def test_staff_see_challenges_and_add_them_to_the_dictionary(dictionary_dir: Path):
    """The challenge list filters by status; the action adds the words to the dictionary
    the round was played with, recompiles it, and records where they went."""
    tiny = make_dictionary("tiny")
    ann, bob = make_room(dictionary="tiny")
    play(ann, {bob: [WEGO, GODE]})
    challenges.do_rule_challenge(ann, challenges.do_challenge(bob, WEGO, 1).id, True)
    challenges.do_rule_challenge(ann, challenges.do_challenge(bob, GODE, 1).id, False)
    staff = Client()
    staff.force_login(User.objects.create_superuser("root", "root@example.org", "pw"))
    page = staff.get("/admin/games/challenge/?status__exact=accepted").content.decode()
    assert WEGO in page and GODE not in page
    accepted = Challenge.objects.get(word=WEGO)
    response = staff.post(
        "/admin/games/challenge/",
        {"action": "add_to_dictionary", "_selected_action": [accepted.pk]},
        follow=True,
    )
    assert "Added wego to tiny; recompiling." in response.content.decode()
    accepted.refresh_from_db()
    assert accepted.added_to == tiny
    edit = tiny.edits.get()
    assert (edit.word, edit.action) == (WEGO, "add") and ann.room.code in edit.note
    # The compile was queued for after commit; run it as the worker would.
    compile_now(tiny)
    assert WEGO in files.load_version(current_version(tiny))


@pytest.mark.django_db
def test_results_list_the_rounds_challenges():
    """results.challenges: every challenge of the round, oldest first, with its ruling."""
    ann, bob = make_room()
    round_ = play(ann, {ann: [GODE], bob: [WEGO]})
    first = challenges.do_challenge(bob, WEGO, 1)
    challenges.do_challenge(ann, GODE, 1)
    challenges.do_rule_challenge(ann, first.id, False)
    listed = state.results(round_)["challenges"]
    assert [(c["word"], c["status"], c["nickname"]) for c in listed] == [
        (WEGO, "declined", "Bob"),
        (GODE, "pending", "Ann"),
    ]


# ---------------------------------------------------------------- the room votes


def room_of_four() -> tuple[Player, Player, Player, Player]:
    """Ann (host), Bob, Carl and Dee after a round in which Bob and Ann entered wego and
    gode (refused); Ann, Bob and Carl are online, Dee is not."""
    ann, bob = make_room()
    carl = rooms.do_join_room(Player.objects.get(pk=ann.pk).room, "Carl")
    dee = rooms.do_join_room(Player.objects.get(pk=ann.pk).room, "Dee")
    play(ann, {ann: [GODE], bob: [WEGO]})
    online(ann, bob, carl)
    return ann, bob, carl, dee


def status_of(challenge: Challenge) -> str:
    challenge.refresh_from_db()
    return challenge.status


@pytest.mark.django_db
def test_the_voters_are_the_players_online_when_the_challenge_opens_but_the_challenger():
    """Bob challenges: Ann and Carl vote (Dee was offline, Bob made it). Dee, Bob and a
    player of another room are refused; a voter may change their vote while it is open."""
    ann, bob, carl, dee = room_of_four()
    challenge = challenges.do_challenge(bob, WEGO, 1)
    assert challenge.voters == [ann.id, carl.id]
    online(dee)  # too late: the voters were fixed when the challenge opened
    with pytest.raises(InvalidInput, match="only the players online when the challenge"):
        challenges.do_vote_challenge(dee, challenge.id, True)
    with pytest.raises(InvalidInput, match="your own challenge"):
        challenges.do_vote_challenge(bob, challenge.id, True)
    _, eve = rooms.do_create_room("Eve")
    with pytest.raises(InvalidInput, match="no such challenge in this room"):
        challenges.do_vote_challenge(eve, challenge.id, True)
    with pytest.raises(InvalidInput, match="accept is true or false"):
        challenges.do_vote_challenge(carl, challenge.id, "yes")
    challenges.do_vote_challenge(carl, challenge.id, True)
    challenges.do_vote_challenge(carl, challenge.id, False)  # changes Carl's vote
    assert status_of(challenge) == "pending"
    assert challenge.votes == {str(carl.id): False}


@pytest.mark.django_db
def test_a_majority_of_the_voters_decides_at_once():
    """Three voters: two accepts decide, before the third votes; later votes are refused."""
    ann, bob, carl, dee = room_of_four()
    online(dee)
    challenge = challenges.do_challenge(bob, WEGO, 1)
    assert len(challenge.voters) == 3
    challenges.do_vote_challenge(carl, challenge.id, True)
    assert status_of(challenge) == "pending"
    challenges.do_vote_challenge(dee, challenge.id, True)
    assert status_of(challenge) == "accepted"
    assert challenge.decided_by is None and challenge.decided_at is not None
    with pytest.raises(InvalidInput, match="already accepted"):
        challenges.do_vote_challenge(ann, challenge.id, False)
    assert room_dictionaries.house_words(ann.room_id, "english") == {WEGO}


@pytest.mark.django_db
@pytest.mark.parametrize(("host_vote", "status"), [(True, "accepted"), (False, "declined")])
def test_the_hosts_vote_breaks_a_tie(host_vote: bool, status: str):
    """Ann (host) and Carl vote on Bob's challenge and disagree: Ann's vote decides."""
    ann, bob, carl, _ = room_of_four()
    challenge = challenges.do_challenge(bob, WEGO, 1)
    challenges.do_vote_challenge(carl, challenge.id, not host_vote)
    challenges.do_vote_challenge(ann, challenge.id, host_vote)
    assert status_of(challenge) == status


@pytest.mark.django_db
def test_a_host_cannot_accept_their_own_challenge_alone():
    """Ann's own challenge: she neither rules nor votes on it; Bob and Carl tied declines
    (the host's tie-break needs the host's vote); with nobody else online it stays open."""
    ann, bob, carl, _ = room_of_four()
    challenge = challenges.do_challenge(ann, GODE, 1)
    assert challenge.voters == [bob.id, carl.id]
    with pytest.raises(InvalidInput, match="your own challenge"):
        challenges.do_rule_challenge(ann, challenge.id, True)
    with pytest.raises(InvalidInput, match="your own challenge"):
        challenges.do_vote_challenge(ann, challenge.id, True)
    challenges.do_vote_challenge(bob, challenge.id, True)
    assert status_of(challenge) == "pending"
    challenges.do_vote_challenge(carl, challenge.id, False)
    assert status_of(challenge) == "declined"

    alone, bob2 = make_room()
    play(alone, {alone: [GODE]})
    online(alone)
    lonely = challenges.do_challenge(alone, GODE, 1)
    assert lonely.voters == []
    with pytest.raises(InvalidInput, match="your own challenge"):
        challenges.do_rule_challenge(alone, lonely.id, True)
    with pytest.raises(InvalidInput, match="only the players online"):
        challenges.do_vote_challenge(bob2, lonely.id, True)
    assert status_of(lonely) == "pending"


@pytest.mark.django_db
def test_the_host_rules_another_players_challenge_whatever_the_votes():
    """rule_challenge on Bob's challenge decides it at once, mid-vote."""
    ann, bob, carl, _ = room_of_four()
    challenge = challenges.do_challenge(bob, WEGO, 1)
    challenges.do_vote_challenge(carl, challenge.id, True)
    challenges.do_rule_challenge(ann, challenge.id, False)
    challenge.refresh_from_db()
    assert (challenge.status, challenge.decided_by_id) == ("declined", ann.id)
