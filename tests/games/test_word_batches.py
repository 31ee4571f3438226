"""Batches of judged entries (``games.words.store``) on SQLite: one INSERT for a batch's words,
and each entry of a mixed batch answered as it would be alone (the checks: word_batches.py;
on PostgreSQL: test_word_batches_postgres.py)."""

from __future__ import annotations

import pytest
from django.db import connection

from tests.games import word_batches

pytestmark = pytest.mark.django_db


def test_a_batch_of_accepted_words_is_one_insert():
    word_batches.check_a_batch_of_accepted_words_is_one_insert()


def test_each_entry_of_a_mixed_batch_gets_its_outcome():
    word_batches.check_each_entry_of_a_mixed_batch_gets_its_outcome()


def test_without_returning_each_entry_is_written_alone_with_the_same_outcomes(monkeypatch):
    """SQLite before 3.35 has no RETURNING: one INSERT per entry, as before batches."""
    monkeypatch.setattr(connection.features, "can_return_columns_from_insert", False)
    word_batches.check_each_entry_of_a_mixed_batch_gets_its_outcome()
