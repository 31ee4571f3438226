"""A resend (the same ``client_id``, the same word) answers as the first time: also after
the round ended, and when another process answered the first copy (docs/api.md, "Retrying
a message"). A late entry that is no resend is answered ``round_over``."""

from __future__ import annotations

import time

import pytest

from games import live, words
from tests.games.test_consumer_round import end_by_host
from tests.games.ws_helpers import (
    NOT_A_DICTIONARY_WORD,
    ask,
    seconds_from_now,
    set_round_times,
    start_round,
    submit,
    two_players,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]


async def test_a_resend_after_the_round_ended_answers_as_the_first_time() -> None:
    ann, bob = await two_players()
    await start_round(ann, bob)
    first_accepted = await submit(bob.comm, "quiet", "b1")
    first_refused = await submit(bob.comm, NOT_A_DICTIONARY_WORD, "b2")
    assert first_accepted["verdict"] == "accepted"
    assert first_refused["verdict"] == "not_in_dictionary"
    await end_by_host(ann, bob)

    for first, client_id in ((first_accepted, "b1"), (first_refused, "b2")):
        again = await submit(bob.comm, first["word"].upper(), client_id)
        fields = ("word", "client_id", "verdict", "accepted", "reason")
        assert {k: again[k] for k in fields} == {k: first[k] for k in fields}
    # What my_words says agrees with the resend's answer.
    state = (await ask(bob.comm, "sync"))["state"]
    assert {w["client_id"]: w["verdict"] for w in state["my_words"]} == {
        "b1": "accepted",
        "b2": "not_in_dictionary",
    }
    # Not resends: a new entry, and an old client_id with another word, are too late.
    assert (await submit(bob.comm, "cats", "b3"))["verdict"] == "round_over"
    assert (await submit(bob.comm, "diet", "b1"))["verdict"] == "round_over"
    assert (await submit(bob.comm, "dog"))["verdict"] == "round_over"


async def test_a_late_resend_of_an_entry_another_process_answered() -> None:
    """This process holds the round but never saw the first copy (another process judged
    and stored it); the resend reaches it after the deadline, before the round is ended."""
    ann, bob = await two_players()
    round_ = await start_round(ann, bob)
    elsewhere = await words.submit(round_.room_id, bob.id, "quiet", "b1", time.time())
    assert elsewhere.verdict == "accepted"
    held = live.cached(round_.room_id)
    assert held is not None
    held.answered.pop((bob.id, "b1"))  # as if another process had answered it
    await set_round_times(round_, ends_at=seconds_from_now(-1))
    assert round_.ends_at is not None
    held.ends_at = round_.ends_at.timestamp()

    again = await submit(bob.comm, "quiet", "b1")
    assert (again["verdict"], again["accepted"]) == ("accepted", True)
    assert (await submit(bob.comm, "cats", "b2"))["verdict"] == "round_over"
