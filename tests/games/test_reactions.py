"""Reactions over real websockets (games.reactions, docs/api.md "Reactions"): an emoji on
a word someone found or on a player's score, or a quick phrase, goes to every socket of the
room and to its table screens, with no version; anything else is refused with the reason,
and a player's flood is cut without costing the others anything."""

from __future__ import annotations

import pytest

from tests.games.test_table_spectators import watch
from tests.games.ws_helpers import (
    ask,
    receive_until,
    send,
    start_round,
    submit,
    two_players,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]


async def ended_round(ann, bob) -> None:
    await start_round(ann, bob)
    assert (await submit(bob.comm, "quiet"))["verdict"] == "accepted"
    assert (await ask(ann.comm, "end_round"))["type"] == "ok"
    for player in (ann, bob):
        await receive_until(player.comm, "round.ended")


async def test_an_emoji_on_a_word_reaches_the_room_and_its_table_screen():
    ann, bob = await two_players()
    await ended_round(ann, bob)
    table, _ = await watch(ann.code)
    await send(ann.comm, "react", emoji="fire", word="QUIET")
    for comm in (ann.comm, bob.comm, table):
        event = await receive_until(comm, "reaction")
        assert event == {
            **event,
            "from_id": ann.id,
            "nickname": "Ann",
            "emoji": "fire",
            "word": "quiet",
            "player_id": None,
            "phrase": None,
        }
        assert "version" not in event  # not the room's state: nothing to sync
    await send(bob.comm, "react", emoji="clap", player_id=ann.id)
    event = await receive_until(ann.comm, "reaction")
    assert (event["from_id"], event["emoji"], event["player_id"]) == (bob.id, "clap", ann.id)


async def test_a_quick_phrase_needs_no_round():
    ann, bob = await two_players()
    await send(bob.comm, "react", phrase="one_more")
    event = await receive_until(ann.comm, "reaction")
    assert (event["nickname"], event["phrase"], event["emoji"]) == ("Bob", "one_more", None)


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"emoji": "poop", "word": "quiet"}, "emoji: one of"),
        ({"emoji": "🔥", "word": "quiet"}, "emoji: one of"),
        ({"emoji": "fire"}, "one of them"),
        ({"emoji": "fire", "word": "quiet", "player_id": 1}, "one of them"),
        ({"emoji": "fire", "word": "dog"}, "nobody found"),
        ({"emoji": "fire", "word": "you are all losers"}, "nobody found"),
        ({"emoji": "fire", "word": ["quiet"]}, "word:"),
        ({"emoji": "fire", "player_id": 999_999}, "player_id"),
        ({"emoji": "fire", "player_id": "1"}, "player_id"),
        ({"emoji": "fire", "player_id": True}, "player_id"),
        ({"phrase": "you stink"}, "phrase: one of"),
        ({"phrase": "nice", "emoji": "fire"}, "goes alone"),
    ],
)
async def test_anything_but_the_fixed_sets_is_refused(fields, why):
    ann, bob = await two_players()
    await ended_round(ann, bob)
    reply = await ask(bob.comm, "react", **fields)
    assert reply["type"] == "error" and reply["code"] == "invalid", reply
    assert why in reply["message"]
    assert await ann.comm.receive_nothing(timeout=0.3)


async def test_words_and_scores_wait_for_the_results():
    ann, bob = await two_players()
    await start_round(ann, bob)
    assert (await submit(bob.comm, "quiet"))["verdict"] == "accepted"
    reply = await ask(ann.comm, "react", emoji="wow", word="quiet")
    assert reply["code"] == "invalid" and "results" in reply["message"]


async def test_a_flood_of_reactions_is_cut_and_the_others_play_on():
    ann, bob = await two_players()
    await ended_round(ann, bob)
    refused = 0
    for _ in range(12):
        reply = await ask(bob.comm, "react", emoji="haha", player_id=ann.id)
        if reply.get("type") == "error":
            assert reply["code"] == "rate_limited"
            refused += 1
    assert refused >= 6  # a few at once, then one every 3 s
    reply = await ask(ann.comm, "react", emoji="like", player_id=bob.id)
    assert reply.get("type") != "error"
    event = await receive_until(bob.comm, "reaction", from_id=ann.id)
    assert event["emoji"] == "like"
