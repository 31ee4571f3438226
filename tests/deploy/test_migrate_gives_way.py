"""``manage.py migrate`` gives way to the running site on PostgreSQL (issue 49): 2 of 4
migrate runs during play deadlocked with the sweep or the deadline watcher, and a
migration waiting for a lock stalls every statement of the site queued behind it. Each
migration now waits at most BOGGLE_MIGRATE_LOCK_TIMEOUT for a lock, and is rolled back and
tried again when it timed out or was a deadlock's victim (web.migration_locks)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import IO, Any

import psycopg
import pytest
from django.db import OperationalError, connection
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.state import ProjectState

from tests.servers import throwaway_postgres_database
from web.migration_locks import GiveWay, GivingWayExecutor, lock_failure, tables_changed

REPO = Path(__file__).resolve().parents[2]
WAIT = 60.0


class FakeCause(Exception):
    def __init__(self, sqlstate: str) -> None:
        super().__init__(sqlstate)
        self.sqlstate = sqlstate


def database_error(sqlstate: str) -> OperationalError:
    """An error as Django raises it from psycopg's, which carries the SQLSTATE."""
    error = OperationalError(sqlstate)
    error.__cause__ = FakeCause(sqlstate)
    return error


def failing(*sqlstates: str) -> Callable[[ProjectState], ProjectState]:
    """A migration's run that fails with each of ``sqlstates`` in turn, then succeeds."""
    left = list(sqlstates)

    def run(state: ProjectState) -> ProjectState:
        if left:
            raise database_error(left.pop(0))
        return state

    return run


@pytest.fixture
def executor(db: None) -> Iterator[tuple[GivingWayExecutor, list[str], list[float]]]:
    reports: list[str] = []
    pauses: list[float] = []
    yield (
        GivingWayExecutor(
            connection,
            give_way=GiveWay(lock_timeout=0.5, attempts=4),
            report=reports.append,
            sleep=pauses.append,
        ),
        reports,
        pauses,
    )


def test_lock_failures_are_known_by_their_sqlstate() -> None:
    assert lock_failure(database_error("55P03")) == "lock timeout"
    assert lock_failure(database_error("40P01")) == "deadlock"
    assert lock_failure(database_error("23505")) is None  # a unique violation: no retry
    assert lock_failure(OperationalError("no cause")) is None


def test_a_migration_that_timed_out_or_lost_a_deadlock_is_retried(executor: Any) -> None:
    giving_way, reports, pauses = executor
    migration: Any = SimpleNamespace(atomic=True, operations=[])
    state = ProjectState()
    result = giving_way._retried(migration, state, failing("55P03", "40P01"), fake=False)
    assert isinstance(result, ProjectState) and result is not state  # each try on a copy
    assert giving_way.retries == {"lock timeout": 1, "deadlock": 1}
    assert len(reports) == 2 and "no lock within 0.5 s" in reports[0], reports
    assert "deadlock's victim" in reports[1] and "try 3 of 4" in reports[1], reports
    assert len(pauses) == 2 and pauses[1] > pauses[0] > 0  # a pause that grows


def test_it_gives_up_after_its_tries(executor: Any) -> None:
    giving_way, reports, _ = executor
    migration: Any = SimpleNamespace(atomic=True, operations=[])
    with pytest.raises(OperationalError):
        giving_way._retried(migration, ProjectState(), failing(*["55P03"] * 4), fake=False)
    assert giving_way.retries == {"lock timeout": 4}
    assert "given up after 4 tries" in reports[-1]


def test_other_errors_and_non_atomic_migrations_are_not_retried(executor: Any) -> None:
    giving_way, reports, _ = executor
    with pytest.raises(OperationalError):
        giving_way._retried(
            SimpleNamespace(atomic=True, operations=[]), ProjectState(), failing("23505"), False
        )
    # A migration outside a transaction may have done part of its work: never run twice.
    with pytest.raises(OperationalError):
        giving_way._retried(
            SimpleNamespace(atomic=False, operations=[]), ProjectState(), failing("55P03"), False
        )
    assert giving_way.retries == {} and reports == []


def test_a_migration_takes_the_tables_it_changes() -> None:
    loader = MigrationLoader(None, ignore_no_migrations=True)
    before = loader.project_state(("games", "0019_submission_received_at"), at_end=True)
    migration = loader.get_migration("games", "0020_database_defaults")
    assert tables_changed(migration, before) == ["games_room", "games_round"]


# ---------------------------------------------------------------- on PostgreSQL


def manage(database_url: str, *args: str, **extra: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "BOGGLE_"))}
    env |= {
        "DATABASE_URL": database_url,
        "DJANGO_SECRET_KEY": "test-only-key",
        "DJANGO_SETTINGS_MODULE": "boggle_site.settings",
        "PYTHONUNBUFFERED": "1",
        **extra,
    }
    return subprocess.Popen(
        [sys.executable, "manage.py", *args, "--noinput"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def finished(process: subprocess.Popen[str]) -> str:
    output, _ = process.communicate(timeout=WAIT)
    assert process.returncode == 0, output
    return output


class Running:
    """A ``manage.py`` command running, its output read as it comes."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, args=(process.stdout,))
        self.reader.start()

    def _read(self, stdout: IO[str]) -> None:
        for line in stdout:
            self.lines.append(line)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def wait_until(self, ready: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + WAIT
        while not ready():
            assert self.process.poll() is None, f"exited before {what}:\n{self.output}"
            assert time.monotonic() < deadline, f"not {what} within {WAIT} s:\n{self.output}"
            time.sleep(0.02)

    def finish(self) -> str:
        self.process.wait(timeout=WAIT)
        self.reader.join(timeout=WAIT)
        assert self.process.returncode == 0, self.output
        return self.output


def deadlocks(database_url: str) -> int:
    with psycopg.connect(database_url) as connection:
        row = connection.execute(
            "select deadlocks from pg_stat_database where datname = current_database()"
        ).fetchone()
    assert row is not None
    return int(row[0])


@pytest.mark.integration
def test_migrate_waits_for_the_site_a_bounded_time_and_retries(postgres_url: str) -> None:
    """A transaction of the site holds games_round (as a word's batch does) while
    ``migrate games 0019`` would change that table: the migration times out on the lock,
    is rolled back, retried once the site's transaction is over, and applied once. Django's
    own command waited as long as the transaction (and the site queued behind it)."""
    with throwaway_postgres_database(postgres_url) as database_url:
        finished(manage(database_url, "migrate"))
        with psycopg.connect(database_url) as site:
            site.execute("lock table games_round in access share mode")
            migrate = Running(
                manage(database_url, "migrate", "games", "0019", BOGGLE_MIGRATE_LOCK_TIMEOUT="0.2")
            )
            migrate.wait_until(lambda: "no lock within 0.2 s" in migrate.output, "a lock timeout")
            site.rollback()  # the site's transaction ends
            output = migrate.finish()
        assert "rolled back; try 2 of" in output, output
        assert output.count("Unapplying games.0020_database_defaults... OK") == 1, output
        with psycopg.connect(database_url) as check:
            applied = check.execute(
                "select count(*) from django_migrations where app = 'games' and name = %s",
                ["0020_database_defaults"],
            ).fetchone()
            default = check.execute(
                "select column_default from information_schema.columns"
                " where table_name = 'games_round' and column_name = 'mode'"
            ).fetchone()
        assert applied == (0,) and default == (None,)
        assert "Applying games.0020_database_defaults... OK" in finished(
            manage(database_url, "migrate")
        )


@pytest.mark.integration
def test_migrate_never_deadlocks_with_the_site(postgres_url: str) -> None:
    """The issue's deadlock: games 0020 changes games_room, then games_round; the deadline
    watcher reads games_round JOIN games_room, locking them the other way round. Here a
    transaction of the site holds games_round, the migration starts, and once it waits (or
    has given way) the site's transaction reads games_room. Django's migrate held games_room
    while waiting for games_round: a deadlock, and PostgreSQL ended one of the two. Now the
    migration takes both tables at once or neither, waits less than deadlock_timeout, and
    the site's transaction goes on."""
    with throwaway_postgres_database(postgres_url) as database_url:
        finished(manage(database_url, "migrate"))
        finished(manage(database_url, "migrate", "games", "0019"))
        before = deadlocks(database_url)
        with psycopg.connect(database_url) as site, psycopg.connect(database_url) as watch:
            site.execute("select count(*) from games_round")
            migrate = Running(manage(database_url, "migrate", "games", "0020"))

            def migration_waits_or_gave_way() -> bool:
                waiting = watch.execute(
                    "select count(*) from pg_locks where not granted and pid <> %s",
                    [site.info.backend_pid],
                ).fetchone()
                watch.rollback()
                return bool(waiting and waiting[0]) or "no lock within" in migrate.output

            migrate.wait_until(migration_waits_or_gave_way, "waiting for games_round")
            site.execute("select count(*) from games_room")  # no DeadlockDetected
            site.commit()
            output = migrate.finish()
        assert output.count("Applying games.0020_database_defaults... OK") == 1, output
        assert deadlocks(database_url) == before
