"""Themed word rules (games.room_themes, docs/api.md "Themed word rules"): a room counts
only some of its dictionary's words. Each rule's verdicts, solution and results over real
sockets; the judging order; typed boards, rolled boards, theme lists that go, challenges
and house words."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from asgiref.sync import sync_to_async
from django.db import connection
from django.test import Client

from dictionaries.models import ThemeList
from games import common_words, rooms, rounds
from games.models import Round
from games.room_dictionaries import word_list_for_round
from solver import parse_board, solve
from solver.deal import MIN_ROUND_WORDS
from tests.games.ws_helpers import (
    BOARD,
    ask,
    connect,
    create_room,
    post_json,
    receive_until,
    start_round,
    submit,
    two_players,
    whole_results,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]

# A classic roll rich in palindromes (rotator, rotor, stats, toot, otto, tot, sis, sos...).
PALINDROME_BOARD = "irst ssot rtao eerh"
ANIMALS = ["Cat", "dog", "narwhal", "zebra", "qzxw"]


def is_common(word: str) -> bool:
    return common_words.is_common(word, "english")


# settings, board, words the theme counts (a plain rule, to compare the round's solution
# with), words it accepts, words the dictionary has that it refuses with their reason.
CASES: dict[str, tuple[dict, str, Callable[[str], bool], list[str], dict[str, str]]] = {
    "palindromes": (
        {"theme": "palindromes"},
        PALINDROME_BOARD,
        lambda word: word == word[::-1],
        ["rotor", "toot"],
        {"roster": "not a palindrome"},
    ),
    "contains": (
        {"theme": "contains", "theme_letter": "E"},  # a capital from a phone counts
        BOARD,
        lambda word: "e" in word,
        ["went", "quiet"],
        {"cat": "has no E", "dog": "has no E"},
    ),
    "starts_with": (
        {"theme": "starts_with", "theme_letter": "c"},
        BOARD,
        lambda word: word.startswith("c"),
        ["cat", "cats"],
        {"dog": "does not start with C"},
    ),
    "common": (
        {"theme": "common"},
        BOARD,
        is_common,
        ["cat", "quiet"],
        {"diquat": "not a common word"},
    ),
    "list": (
        {"theme": "list", "theme_list": "animals"},
        BOARD,
        lambda word: word in {"cat", "dog", "narwhal", "zebra"},
        ["cat", "dog"],
        {"cats": "not in the theme list Animals", "went": "not in the theme list Animals"},
    ),
}


async def make_animals() -> ThemeList:
    return await sync_to_async(ThemeList.objects.create)(
        name="animals", title="Animals", language="en", words="\n".join(ANIMALS)
    )


def board_words(
    round_: Round, board: str, rule: Callable[[str], bool]
) -> tuple[dict[str, int], dict[str, int]]:
    """Every word of the round's dictionary on ``board`` with its points, and those the
    ``rule`` counts."""
    word_list = word_list_for_round(round_)
    found = {found.word: found.points for found in solve(parse_board(board), word_list, 3).words}
    return found, {word: points for word, points in found.items() if rule(word)}


@pytest.mark.parametrize("name", CASES)
async def test_each_theme_counts_only_its_words(name: str) -> None:
    settings, board, rule, good, off = CASES[name]
    if name == "list":
        await make_animals()
    ann, bob = await two_players(**settings)
    round_ = await start_round(ann, bob, board=board)
    everything, themed = await sync_to_async(board_words)(round_, board, rule)
    assert set(good) <= set(themed) and set(off) <= set(everything) - set(themed)
    # The round's solution, counts and maximum hold the theme's words only.
    assert {entry[0] for entry in round_.solution} == set(themed)
    assert round_.max_points == sum(themed.values())
    state = (await ask(bob.comm, "sync"))["state"]
    assert sum(row["total"] for row in state["round"]["word_counts"]) == len(themed)
    assert sum(row["total"] for row in state["words_left"]["by_length"]) == len(themed)
    theme = state["round"]["theme"]
    assert theme["rule"] == settings["theme"]
    assert theme["letter"] == ((settings.get("theme_letter") or "").lower() or None)
    assert (theme["list"], theme["title"]) == (
        ("animals", "Animals") if name == "list" else (None, None)
    )

    for word in good:
        assert (await submit(ann.comm, word))["verdict"] == "accepted", word
    for word, reason in off.items():
        verdict = await submit(bob.comm, word)
        assert (verdict["verdict"], verdict["accepted"], verdict["reason"]) == (
            "off_theme",
            False,
            reason,
        )
    mine = (await ask(bob.comm, "sync"))["state"]["my_words"]
    assert {entry["word"]: entry["reason"] for entry in mine} == off

    assert (await ask(ann.comm, "end_round"))["type"] == "ok"
    ended = await receive_until(bob.comm, "round.ended")
    results = await whole_results(bob.comm, ended, bob.id)
    assert {entry["word"] for entry in results["solution"]} == set(themed)
    assert (results["word_count"], results["max_points"]) == (len(themed), sum(themed.values()))
    by_name = {entry["nickname"]: entry for entry in results["players"]}
    assert {word["word"] for word in by_name["Ann"]["words"]} == set(good)
    assert by_name["Bob"]["words"] == []
    assert {
        (item["word"], item["verdict"], item["reason"]) for item in by_name["Bob"]["rejected"]
    } == {(word, "off_theme", reason) for word, reason in off.items()}


async def test_the_theme_is_the_last_check() -> None:
    """Not a word, too short, already entered, not on the board and not in the dictionary
    all come first: off_theme names a word that would count without the theme."""
    ann, bob = await two_players(theme="contains", theme_letter="e")
    await start_round(ann, bob)
    verdicts = {word: (await submit(ann.comm, word))["verdict"] for word in ("we", "c4t", "zebra")}
    verdicts["dogz"] = (await submit(ann.comm, "dogz"))["verdict"]  # no E, not a word either
    verdicts["cat"] = (await submit(ann.comm, "cat"))["verdict"]
    assert (await submit(ann.comm, "went"))["verdict"] == "accepted"
    verdicts["went"] = (await submit(ann.comm, "went"))["verdict"]
    assert verdicts == {
        "we": "too_short",
        "c4t": "not_a_word",
        "zebra": "not_on_board",  # has an E, in the dictionary, not on the board
        "dogz": "not_in_dictionary",
        "cat": "off_theme",
        "went": "already_entered",
    }


async def test_a_typed_board_is_played_as_typed() -> None:
    """A board the host typed (or photographed) is not dealt again, however few of the
    theme's words it holds."""
    ann, bob = await two_players(theme="palindromes")
    round_ = await start_round(ann, bob, board=BOARD)
    assert round_.board == BOARD
    assert len(round_.solution) < MIN_ROUND_WORDS


def test_a_rolled_board_is_dealt_for_the_theme_before_the_transaction(monkeypatch) -> None:
    """A rolled board holds enough of the theme's words (solver.deal), and its many rolls
    happen before the round's transaction, which holds the database's write lock."""
    calls = []
    deal = rounds.deal_round_board

    def watched(*args, **kwargs):
        calls.append((connection.in_atomic_block, kwargs["allows"]))
        return deal(*args, **kwargs)

    monkeypatch.setattr(rounds, "deal_round_board", watched)
    _, host = rooms.do_create_room("Ann", {"theme": "contains", "theme_letter": "e"})
    round_ = rounds.do_start_round(host)
    round_.refresh_from_db()  # prepared on commit (tasks run eagerly)
    assert round_.status == Round.Status.RUNNING
    assert [in_transaction for in_transaction, _ in calls] == [False]
    assert calls[0][1] is not None
    words = [entry[0] for entry in round_.solution]
    assert len(words) >= MIN_ROUND_WORDS and all("e" in word for word in words)


async def test_a_round_never_plays_a_theme_list_that_is_gone() -> None:
    animals = await make_animals()
    ann, bob = await two_players(theme="list", theme_list="animals")
    await sync_to_async(animals.delete)()
    reply = await ask(ann.comm, "start_round")
    assert (reply["type"], reply["code"]) == ("error", "invalid"), reply
    assert "the theme list 'animals' is no longer offered" in reply["message"]
    # The host picks another theme; the room plays on.
    reply = await ask(ann.comm, "update_settings", settings={"theme": "none"})
    assert reply["type"] == "ok" and reply["settings"]["theme"] == "none"
    assert (await start_round(ann, bob)).theme is None


async def test_the_state_offers_the_enabled_theme_lists() -> None:
    await make_animals()
    await sync_to_async(ThemeList.objects.create)(name="birds", title="Birds", enabled=False)
    ann = await create_room()
    response = await sync_to_async(ann.client.get)(f"/api/rooms/{ann.code}")
    assert response.json()["room"]["theme_lists"] == {"animals": "Animals"}


async def test_an_off_theme_word_is_not_worth_a_challenge() -> None:
    """A word the dictionary refused may be challenged, but not one the theme refuses
    anyway: accepting it would change nothing."""
    ann, bob = await two_players(theme="contains", theme_letter="e")
    await start_round(ann, bob)
    assert (await submit(bob.comm, "dogz"))["verdict"] == "not_in_dictionary"
    assert (await ask(ann.comm, "end_round"))["type"] == "ok"
    await receive_until(bob.comm, "round.ended")
    reply = await ask(bob.comm, "challenge", word="dogz", round_number=1)
    assert (reply["type"], reply["code"]) == ("error", "invalid"), reply
    assert (
        reply["message"]
        == "'dogz' is off the round's theme (has no E): accepting it changes nothing"
    )


async def test_house_words_go_through_the_theme_too() -> None:
    """A word the room accepted on a challenge counts in later rounds when the theme
    allows it, and is off the theme when it does not."""
    ann, bob = await two_players()
    await start_round(ann, bob)
    assert (await submit(bob.comm, "dogz"))["verdict"] == "not_in_dictionary"
    assert (await ask(ann.comm, "end_round"))["type"] == "ok"
    await receive_until(bob.comm, "round.ended")
    challenge = (await ask(bob.comm, "challenge", word="dogz", round_number=1))["challenge"]
    ruled = await ask(ann.comm, "rule_challenge", challenge_id=challenge["id"], accept=True)
    assert ruled["type"] == "ok", ruled

    for letter, verdict in (("z", "accepted"), ("e", "off_theme")):
        reply = await ask(
            ann.comm, "update_settings", settings={"theme": "contains", "theme_letter": letter}
        )
        assert reply["type"] == "ok", reply
        round_ = await start_round(ann, bob)
        assert ("dogz" in {entry[0] for entry in round_.solution}) == (verdict == "accepted")
        assert (await submit(bob.comm, "dogz"))["verdict"] == verdict
        assert (await ask(ann.comm, "end_round"))["type"] == "ok"
        await receive_until(bob.comm, "round.ended")


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"theme": "rhymes"},
            "theme is one of none, palindromes, contains, starts_with, common, list",
        ),
        ({"theme": "contains"}, "the contains theme needs a theme_letter: one letter, a to z"),
        (
            {"theme": "starts_with", "theme_letter": ""},
            "the starts_with theme needs a theme_letter",
        ),
        ({"theme_letter": "ab"}, "theme_letter is one letter, a to z"),
        ({"theme_letter": "é"}, "theme_letter is one letter, a to z"),
        ({"theme_letter": 5}, "theme_letter is one letter, a to z"),
        ({"theme": "list"}, "theme_list names a theme list, and there is none yet"),
        ({"theme_list": "birds"}, "theme_list names a theme list, and there is none yet"),
    ],
)
async def test_theme_settings_are_checked(settings: dict, message: str) -> None:
    body = {"nickname": "Ann", "settings": settings}
    response = await post_json(Client(), "/api/rooms", body)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"
    assert message in response.json()["error"]["message"]


async def test_a_theme_list_must_be_one_the_room_may_choose() -> None:
    await make_animals()
    ann = await create_room()
    await connect(ann)
    reply = await ask(
        ann.comm, "update_settings", settings={"theme": "list", "theme_list": "birds"}
    )
    assert reply["type"] == "error" and reply["message"] == "theme_list is one of animals", reply
    reply = await ask(
        ann.comm, "update_settings", settings={"theme": "list", "theme_list": "animals"}
    )
    assert reply["type"] == "ok", reply
    assert (reply["settings"]["theme"], reply["settings"]["theme_list"]) == ("list", "animals")
