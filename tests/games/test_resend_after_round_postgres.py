"""tests/games/test_resend_after_round.py on real PostgreSQL: a resend (same ``client_id``,
same word) after the round ended answers as the first time, also in a process that never
saw the first copy (its memory of the round cleared), while a late new entry is answered
``round_over``.

The scenario runs in a subprocess (this file run as a script) with Django on a throwaway
PostgreSQL database, and prints what it found as one JSON line.
"""

from __future__ import annotations

import json

import pytest

from tests.servers import run_script_on_postgres

pytestmark = pytest.mark.integration


def test_postgres_answers_a_resend_after_the_round_as_the_first_time(postgres_url: str) -> None:
    found = run_script_on_postgres(postgres_url, __file__)
    assert found["first"] == [["quiet", "accepted"], ["dogz", "not_in_dictionary"]]
    assert found["resent_after_end"] == found["first"]
    assert found["resent_in_another_process"] == found["first"]
    assert found["late_new_entry"] == "round_over"


def scenario() -> dict:
    import django

    django.setup()

    from games import live, rooms, rounds
    from tests.games.words_helpers import running_round, submit_word

    room, ann = rooms.do_create_room("Ann", {})
    bob = rooms.do_join_room(room, "Bob")
    round_ = running_round(ann, "cats qiex dogz went")
    entries = [("quiet", "b1"), ("dogz", "b2")]

    def send_all() -> list[list[str]]:
        answers = [submit_word(bob, word, client_id) for word, client_id in entries]
        return [[answer.word, answer.verdict] for answer in answers]

    found: dict = {"first": send_all()}
    assert rounds.do_end_round(round_.id)
    found["resent_after_end"] = send_all()
    live.clear()  # a process that never held the round
    found["resent_in_another_process"] = send_all()
    found["late_new_entry"] = submit_word(bob, "cats", "b3").verdict
    return found


if __name__ == "__main__":
    print(json.dumps(scenario()))
