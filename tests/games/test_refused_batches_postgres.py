"""tests/games/test_refused_batches.py on real PostgreSQL, where NUL in a text column fails
too: a poisoned entry costs no other player's refused words, and a batch whose connection
the server cut (as a restart does) waits in the queue and is written on the next pass.

The scenario runs in a subprocess (this file run as a script) with Django on a throwaway
PostgreSQL database, and prints what it found as one JSON line.
"""

from __future__ import annotations

import json

import pytest

from tests.servers import run_script_on_postgres

pytestmark = pytest.mark.integration

BOARD = "cats qiex dogz went"
BOBS_REFUSALS = ["xyzzyq", "zzzz", "qqqq", "cacx", "dgdg"]
# (client_id, word) of entries PostgreSQL cannot store, queued with Bob's.
POISONS = [("e\x00", "qzqz"), ("e\ud800", "qzqz"), ("nul-word", "qz\x00qz")]


def test_postgres_keeps_every_other_entry_of_a_poisoned_or_cut_batch(postgres_url: str) -> None:
    found = run_script_on_postgres(postgres_url, __file__)
    assert sorted(found["bob_after_poison"]) == sorted(BOBS_REFUSALS)
    assert sorted(found["set_aside"]) == sorted(repr(c) for c, _ in POISONS)
    assert found["ann_stored"] == 0
    assert found["pending_after_poison"] == 0
    # The cut connection: the first pass fails, nothing is lost, the next one writes all.
    assert found["cut_pass_failed"]
    assert found["pending_after_cut"] == len(BOBS_REFUSALS)
    assert sorted(found["bob_after_cut"]) == sorted(BOBS_REFUSALS)
    # Two rooms' waiting refusals: one INSERT for both.
    assert found["written_together"] == found["stored_together"] == 2
    assert found["inserts_together"] == 1


def scenario() -> dict:
    import django

    django.setup()

    import psycopg
    from django.conf import settings
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games import live, rooms
    from games.models import Submission
    from tests.games.words_helpers import running_round, submit_word

    def make_room() -> tuple:
        room, ann = rooms.do_create_room("Ann", {})
        return ann, rooms.do_join_room(room, "Bob")

    def refused(player_id: int, round_id: int) -> list[str]:
        return list(
            Submission.objects.filter(round_id=round_id, player_id=player_id)
            .exclude(verdict="accepted")
            .values_list("word", flat=True)
        )

    found: dict = {}
    ann, bob = make_room()
    round_ = running_round(ann, BOARD)
    for n, entry in enumerate(BOBS_REFUSALS):
        assert not submit_word(bob, entry, f"bob-{n}").accepted
    queue = live.cached(bob.room_id)
    assert queue is not None
    for client_id, word in POISONS:
        live.record(queue, ann.id, client_id, word, "not_on_board")
    live.flush_refused()
    found["bob_after_poison"] = refused(bob.id, round_.id)
    found["set_aside"] = [repr(a.entry.client_id) for a in live.set_aside()]
    found["ann_stored"] = Submission.objects.filter(round=round_, player=ann).count()
    found["pending_after_poison"] = len(queue.pending)

    # A second room; the server cuts the flusher's connection before its batch is written.
    cy, dee = make_room()
    second = running_round(cy, BOARD)
    for n, entry in enumerate(BOBS_REFUSALS):
        assert not submit_word(dee, entry, f"dee-{n}").accepted
    own_pid = connection.cursor().connection.info.backend_pid
    database = settings.DATABASES["default"]
    with psycopg.connect(
        host=database["HOST"],
        port=database["PORT"] or 5432,
        user=database["USER"],
        password=database["PASSWORD"],
        dbname=database["NAME"],
        autocommit=True,
    ) as other:
        other.execute("select pg_terminate_backend(%s)", [own_pid])
    try:
        live.flush_refused()
        found["cut_pass_failed"] = False
    except Exception:
        found["cut_pass_failed"] = True
    second_queue = live.cached(dee.room_id)
    found["pending_after_cut"] = len(second_queue.pending) if second_queue else -1
    connection.close()  # what the flusher's thread does between passes (close_old_connections)
    live.flush_refused()
    found["bob_after_cut"] = refused(dee.id, second.id)

    # Two rooms' refusals in one pass: one statement writes both.
    for player in (bob, dee):
        assert not submit_word(player, "xqxqx", f"together-{player.id}").accepted
    with CaptureQueriesContext(connection) as queries:
        found["written_together"] = live.flush_refused()
    found["inserts_together"] = sum(
        query["sql"].startswith("INSERT") for query in queries.captured_queries
    )
    found["stored_together"] = Submission.objects.filter(client_id__startswith="together-").count()
    return found


if __name__ == "__main__":
    print(json.dumps(scenario()))
