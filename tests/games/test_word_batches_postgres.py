"""Batches of judged entries (``games.words.store``) on real PostgreSQL, where the round's row
is share-locked by the INSERT and a refused value fails the whole statement: the checks of
word_batches.py run in a subprocess (this file run as a script) with Django on a throwaway
database, and it prints which passed as one JSON line."""

from __future__ import annotations

import json

import pytest

from tests.servers import run_script_on_postgres

pytestmark = pytest.mark.integration

CHECKS = (
    "check_a_batch_of_accepted_words_is_one_insert",
    "check_each_entry_of_a_mixed_batch_gets_its_outcome",
    "check_a_batch_waits_for_a_round_end_and_writes_nothing_for_it",
    "check_one_bad_entry_fails_only_itself",
    "check_each_row_is_checked_once",
)


def test_word_batches_on_postgres(postgres_url: str) -> None:
    found = run_script_on_postgres(postgres_url, __file__)
    assert found == {"passed": list(CHECKS)}


def scenario() -> dict:
    import django

    django.setup()
    from tests.games import word_batches

    for name in CHECKS:
        getattr(word_batches, name)()
    return {"passed": list(CHECKS)}


if __name__ == "__main__":
    print(json.dumps(scenario()))
