"""Rounds ending at their deadline on real PostgreSQL, where several Celery workers end them at
once: a worker's batch leaves out the rounds another is ending right then (their rows held),
so each worker ends rounds of its own instead of waiting for the other's. The checks run in
a subprocess (this file run as a script) with Django on a throwaway database, and it prints
which passed as one JSON line."""

from __future__ import annotations

import json

import pytest

from tests.servers import run_script_on_postgres

pytestmark = pytest.mark.integration

CHECKS = ("check_a_batch_leaves_out_the_rounds_another_worker_holds",)


def test_round_end_batches_on_postgres(postgres_url: str) -> None:
    found = run_script_on_postgres(postgres_url, __file__)
    assert found == {"passed": list(CHECKS)}


def check_a_batch_leaves_out_the_rounds_another_worker_holds() -> None:
    import threading
    from datetime import timedelta

    from django.db import connection, transaction
    from django.utils import timezone

    from games import rounds
    from games.models import Round
    from tests.games.word_batches import room_of

    ids = []
    for n in range(3):
        players = room_of(f"H{n}", "Ann")
        ids.append(Round.objects.get(room_id=players[0].room_id).id)
    past = timezone.now() - timedelta(seconds=5)
    for offset, round_id in enumerate(ids):  # deadlines in this order
        Round.objects.filter(pk=round_id).update(ends_at=past + timedelta(seconds=offset))
    held, ending = ids[0], ids[1:]

    locked, release = threading.Event(), threading.Event()

    def another_worker_ending_it() -> None:
        with transaction.atomic():
            list(Round.objects.select_for_update().filter(pk=held).values_list("id"))
            locked.set()
            release.wait(30)
        connection.close()

    worker = threading.Thread(target=another_worker_ending_it)
    worker.start()
    try:
        assert locked.wait(30)
        assert rounds.overdue_round_ids() == ids  # earliest deadline first
        assert rounds.overdue_round_ids(unclaimed=True) == ending
        # Its own task for a round not held ends the others due with it, not the held one.
        assert rounds.end_due_rounds(ending[0]) is True
        statuses = dict(Round.objects.filter(pk__in=ids).values_list("id", "status"))
        assert statuses == {
            held: Round.Status.RUNNING,
            ending[0]: Round.Status.ENDED,
            ending[1]: Round.Status.ENDED,
        }, statuses
    finally:
        release.set()
        worker.join(30)
    assert rounds.end_due_rounds(held) is True  # let go: its own task ends it


def scenario() -> dict:
    import django

    django.setup()
    for name in CHECKS:
        globals()[name]()
    return {"passed": list(CHECKS)}


if __name__ == "__main__":
    print(json.dumps(scenario()))
