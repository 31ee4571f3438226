"""A long word is a moment (games.live_counts, docs/api.md "Room events"): the counts frame
after an accepted word of 8 letters or more names who found one and its length, never the
word; with hidden verdicts it says nothing (that would give a verdict away)."""

from __future__ import annotations

import pytest

from tests.games.ws_helpers import receive_until, start_round, submit, two_players

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]

# "generate" (8 letters) and "gene" are on it.
BOARD = "gene etar snow bike"


async def test_the_counts_after_a_long_word_name_its_finder_and_length():
    ann, bob = await two_players()
    await start_round(ann, bob, board=BOARD)
    assert (await submit(ann.comm, "generate"))["verdict"] == "accepted"
    counts = await receive_until(bob.comm, "round.counts")
    assert counts["long_words"] == [{"player_id": ann.id, "letters": 8}]
    assert "generate" not in str(counts)
    assert (await submit(bob.comm, "gene"))["verdict"] == "accepted"
    later = await receive_until(ann.comm, "round.counts", counts={str(ann.id): 1, str(bob.id): 1})
    assert "long_words" not in later


async def test_with_hidden_verdicts_a_long_word_is_not_announced():
    ann, bob = await two_players(instant_verdicts=False)
    await start_round(ann, bob, board=BOARD)
    assert (await submit(ann.comm, "generate"))["verdict"] == "received"
    counts = await receive_until(bob.comm, "round.counts")
    assert counts["counts"] == {str(ann.id): 1}
    assert "long_words" not in counts
