"""Live counts meeting a round's end on real PostgreSQL: a counts frame claimed while the
round's end holds the round row waits for the end, and then takes no version (it would
reach the room before ``round.ended``; tests/games/test_rounds_and_words.py has the same on
SQLite, where one writer at a time makes the wait).

The scenario runs in a subprocess (this file run as a script) with Django on a throwaway
PostgreSQL database, and prints what it found as one JSON line.
"""

from __future__ import annotations

import json

import pytest

from tests.servers import run_script_on_postgres

pytestmark = pytest.mark.integration

BOARD = "gene etar snow bike"


def test_a_counts_claim_that_meets_the_round_end_takes_no_version(postgres_url: str) -> None:
    found = run_script_on_postgres(postgres_url, __file__)
    assert found["claimed_while_running"] == found["version_before"] + 1
    assert found["claimed_during_end"] is None
    assert found["version_after"] == found["version_before"] + 2  # round.ended's, only


def scenario() -> dict:
    import threading

    import django

    django.setup()
    from django.db import connection, transaction
    from django.utils import timezone

    from games import live_counts, rooms
    from games.models import Room, Round
    from tests.games.words_helpers import running_round, submit_word

    room, ann = rooms.do_create_room("Ann", {})
    round_ = running_round(ann, BOARD)
    assert submit_word(ann, "gene").verdict == "accepted"
    found: dict = {"version_before": Room.objects.get(pk=room.pk).version}
    with transaction.atomic():
        found["claimed_while_running"] = live_counts._claim_counts_frame(room.pk, round_.id)
    Room.objects.filter(pk=room.pk).update(counts_sent_at=None)  # a period later

    holding, claiming = threading.Event(), threading.Event()

    def end_the_round() -> None:
        """As ``rounds.end_rounds``: lock the round row, end it, take the room's version;
        commit only once the claim has been sent to the server."""
        try:
            with transaction.atomic():
                Round.objects.select_for_update().filter(pk=round_.pk).update(
                    status=Round.Status.ENDED, ended_at=timezone.now()
                )
                Room.objects.filter(pk=room.pk).update(version=room_version() + 1)
                holding.set()
                claiming.wait(30)
        finally:
            connection.close()

    def room_version() -> int:
        return Room.objects.get(pk=room.pk).version

    ender = threading.Thread(target=end_the_round)
    ender.start()
    assert holding.wait(30)
    # The claim blocks on the ender's locks; the ender commits once it is on its way.
    threading.Timer(0.5, claiming.set).start()
    with transaction.atomic():
        found["claimed_during_end"] = live_counts._claim_counts_frame(room.pk, round_.id)
    ender.join(30)
    found["version_after"] = room_version()
    return found


if __name__ == "__main__":
    print(json.dumps(scenario()))
