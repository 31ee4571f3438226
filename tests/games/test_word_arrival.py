"""When a word arrived, not when it was written (issue 48: defect 13 and the start time's
mutant): an entry that reaches the server exactly at ``starts_at`` counts, a millisecond
before it is refused; "fastest first word" goes to the word that arrived first after the
start, whichever row the word path wrote first (``web.writers`` queues words in lanes)."""

from __future__ import annotations

import pytest

from games import awards, rounds
from games.exceptions import WrongRoundState
from games.models import Room, Submission
from tests.games.test_rounds_and_words import make_room, running_round
from tests.games.words_helpers import submit_word

pytestmark = pytest.mark.django_db


def test_a_word_that_reaches_the_server_exactly_at_starts_at_counts():
    """docs/api.md, "countdown": entries before ``starts_at`` are refused; at it, judged."""
    ann, bob = make_room()
    round_ = running_round(ann)
    assert round_.starts_at is not None
    start = round_.starts_at.timestamp()
    with pytest.raises(WrongRoundState):
        submit_word(bob, "went", "early", received_at=start - 0.001)
    assert submit_word(bob, "went", "at-start", received_at=start).accepted


def test_the_fastest_first_word_is_the_one_that_arrived_first():
    """Bob's word arrived 5 s after the start and was written first; Ann's arrived 2 s
    after it and was written after Bob's (her lane was busy): Ann was faster."""
    ann, bob = make_room()
    round_ = running_round(ann)
    assert round_.starts_at is not None
    start = round_.starts_at.timestamp()
    assert submit_word(bob, "went", "b1", received_at=start + 5.0).accepted
    assert submit_word(ann, "cats", "a1", received_at=start + 2.0).accepted
    written = list(Submission.objects.filter(round=round_).order_by("id"))
    assert [s.player_id for s in written] == [bob.id, ann.id]
    assert rounds.do_end_round(round_.id)
    room = Room.objects.get(pk=ann.room_id)
    fastest = {a["award"]: a["winners"] for a in awards.game_awards(room, room.game)}[
        "fastest_first_word"
    ]
    assert fastest == [
        {"id": ann.id, "word": "cats", "round": round_.number, "seconds": 2.0, "nickname": "Ann"}
    ]
