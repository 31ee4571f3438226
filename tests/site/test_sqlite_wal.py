"""SQLite's write-ahead log is checkpointed in the background, not inside players' commits."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection

from boggle_site import env
from games import background
from web.sqlite.base import DatabaseWrapper, checkpoint_wal


@pytest.fixture
def site_database(tmp_path: Path, django_db_blocker) -> Iterator[DatabaseWrapper]:
    """A connection to a file database with the embedded setup's options."""
    settings = {**connection.settings_dict, "NAME": str(tmp_path / "site.sqlite3")}
    database = DatabaseWrapper({**settings, "OPTIONS": env.SQLITE_OPTIONS})
    with django_db_blocker.unblock():
        try:
            yield database
        finally:
            database.close()


def test_commits_leave_the_checkpoint_to_the_background(site_database) -> None:
    """A connection of the embedded setup checkpoints only a WAL far larger than SQLite's
    1,000 pages: a checkpoint inside a commit holds every writer of the process."""
    with site_database.cursor() as cursor:
        cursor.execute("PRAGMA wal_autocheckpoint")
        assert cursor.fetchone()[0] == env.SQLITE_WAL_AUTOCHECKPOINT_PAGES > 1000
        cursor.execute("PRAGMA journal_mode")
        assert cursor.fetchone()[0] == "wal"


def test_checkpoint_wal_copies_the_log_into_the_database(site_database) -> None:
    """Written pages sit in the WAL until a checkpoint copies them into the database file."""
    database_file = Path(site_database.settings_dict["NAME"])
    with site_database.cursor() as cursor:
        cursor.execute("CREATE TABLE words (word TEXT)")
        cursor.executemany(
            "INSERT INTO words VALUES (?)", [(f"w{i:05}" * 20,) for i in range(2000)]
        )
    before = database_file.stat().st_size
    checkpoint_wal(site_database)
    assert database_file.stat().st_size > before + 100_000


def test_the_flusher_checkpoints_once_a_second(monkeypatch) -> None:
    """The flusher's once-a-second pass checkpoints; its ten-times-a-second passes do not."""
    checkpoints: list[None] = []
    monkeypatch.setattr(background, "checkpoint_wal", lambda: checkpoints.append(None))
    monkeypatch.setattr(background.live, "flush_refused", lambda: None)
    monkeypatch.setattr(background.live_counts, "publish_changed", lambda spread: 0)
    monkeypatch.setattr(background.ready, "recheck_waiting", lambda: 0)
    background.flush_once(chores=False)
    assert checkpoints == []
    background.flush_once(chores=True)
    assert checkpoints == [None]
