"""Migrations that give way to the running site on PostgreSQL (``manage.py migrate``).

An ALTER TABLE waits for its table's ACCESS EXCLUSIVE lock behind the site's transactions,
and every later statement of the site on that table queues behind the ALTER: the site
stalls for as long as the migration waits. And a migration that holds one table while it
waits for another deadlocks with the site's statements that lock them the other way round
(the deadline watchers' and the sweep's ``games_round JOIN games_room`` against a
migration that changed games_room first): PostgreSQL ends one of the two, perhaps the
site's, and a retry of the migration meets the same statements again.

So each atomic migration, in one transaction:
1. takes ACCESS EXCLUSIVE locks on every existing table its operations change, all in one
   ``LOCK TABLE ... NOWAIT``, tried again every few milliseconds for up to
   ``lock_timeout``: while it tries, nothing of the site waits for it, and it never holds
   one table while waiting for another; failing that, it queues for them, at most
   ``lock_timeout``;
2. runs under ``SET lock_timeout`` (``BOGGLE_MIGRATE_LOCK_TIMEOUT``, kept under PostgreSQL's
   ``deadlock_timeout``, 1 s by default, so that the migration gives up before a deadlock
   check could pick the site's transaction);
3. when it timed out on a lock or was a deadlock's victim, is rolled back and tried again
   after a pause that grows. A retry is safe: the migration and its row in
   django_migrations are one transaction here (Django records a migration with deferred
   SQL after its own transaction: ``_retried`` wraps both in one).
A non-atomic migration (CREATE INDEX CONCURRENTLY, say) only gets the lock_timeout.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import DatabaseError, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.migrations import operations
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.migration import Migration
from django.db.migrations.state import ProjectState

# SQLSTATEs a retry may clear: lock_not_available (lock_timeout), deadlock_detected.
RETRIED = {"55P03": "lock timeout", "40P01": "deadlock"}
ATTEMPTS = 6
FIRST_PAUSE_SECONDS = 0.5
# Between two NOWAIT tries for a migration's tables (seconds, at random in between).
NOWAIT_PAUSE = (0.005, 0.02)


def lock_failure(error: BaseException) -> str | None:
    """Which failure a retry may clear ``error`` is ("lock timeout", "deadlock"), or None."""
    sqlstate = getattr(error.__cause__, "sqlstate", None)
    return RETRIED.get(sqlstate) if isinstance(sqlstate, str) else None


@dataclass(frozen=True)
class GiveWay:
    """How a migration gives way: its longest wait for a lock (seconds), how many times it
    is tried, and the pause before the first retry (doubled each time, with jitter so
    that two runs do not retry in step)."""

    lock_timeout: float
    attempts: int = ATTEMPTS
    first_pause: float = FIRST_PAUSE_SECONDS

    def pause(self, retry: int) -> float:
        return self.first_pause * 2 ** (retry - 1) * random.uniform(0.75, 1.25)

    def set_lock_timeout(self, connection: BaseDatabaseWrapper) -> None:
        with connection.cursor() as cursor:
            cursor.execute("select set_config('lock_timeout', %s, false)", [self.milliseconds])

    @property
    def milliseconds(self) -> str:
        return f"{max(round(self.lock_timeout * 1000), 1)}ms"

    def deadlock_warning(self, connection: BaseDatabaseWrapper) -> str | None:
        """A warning when lock_timeout is not below the server's deadlock_timeout."""
        with connection.cursor() as cursor:
            cursor.execute(
                "select setting::float / 1000 from pg_settings where name = %s",
                ["deadlock_timeout"],
            )
            row = cursor.fetchone()
        if row is None or self.lock_timeout < row[0]:
            return None
        return (
            f"BOGGLE_MIGRATE_LOCK_TIMEOUT ({self.lock_timeout:g} s) is not below PostgreSQL's"
            f" deadlock_timeout ({row[0]:g} s): a deadlock may end the site's transaction"
            " instead of the migration's."
        )


class GivingWayExecutor(MigrationExecutor):
    """Django's executor, with each atomic migration (forwards or backwards) retried as
    ``GiveWay`` says; ``report`` tells the operator (the command's output)."""

    def __init__(
        self,
        connection: BaseDatabaseWrapper,
        progress_callback: Callable[..., Any] | None = None,
        *,
        give_way: GiveWay,
        report: Callable[[str], None],
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(connection, progress_callback)
        self.give_way = give_way
        self.report = report
        self.sleep = sleep
        self.retries: dict[str, int] = {}  # failures retried, by kind

    def apply_migration(
        self,
        state: ProjectState,
        migration: Migration,
        fake: bool = False,
        fake_initial: bool = False,
    ) -> ProjectState:
        def apply(attempt_state: ProjectState) -> ProjectState:
            return super(GivingWayExecutor, self).apply_migration(
                attempt_state, migration, fake=fake, fake_initial=fake_initial
            )

        return self._retried(migration, state, apply, fake)

    def unapply_migration(
        self, state: ProjectState, migration: Migration, fake: bool = False
    ) -> ProjectState:
        def unapply(attempt_state: ProjectState) -> ProjectState:
            return super(GivingWayExecutor, self).unapply_migration(
                attempt_state, migration, fake=fake
            )

        return self._retried(migration, state, unapply, fake)

    def _retried(
        self,
        migration: Migration,
        state: ProjectState,
        run: Callable[[ProjectState], ProjectState],
        fake: bool,
    ) -> ProjectState:
        if fake or not migration.atomic:
            return run(state)
        for attempt in range(1, self.give_way.attempts + 1):
            try:
                # One transaction for the migration, its deferred SQL and its record. Each
                # attempt starts from a copy: applying a migration changes the state given.
                with transaction.atomic(using=self.connection.alias):
                    self.lock_tables(tables_changed(migration, state))
                    return run(state.clone())
            except DatabaseError as error:
                failure = lock_failure(error)
                if failure is None:
                    raise
                self.retries[failure] = self.retries.get(failure, 0) + 1
                if attempt == self.give_way.attempts:
                    self.report(
                        f" {failure} ({migration}): rolled back, given up after {attempt} tries"
                    )
                    raise
                pause = self.give_way.pause(attempt)
                waited = (
                    f"no lock within {self.give_way.lock_timeout:g} s"
                    if failure == "lock timeout"
                    else "chosen as a deadlock's victim"
                )
                self.report(
                    f" {waited} ({migration}): rolled back; try {attempt + 1} of"
                    f" {self.give_way.attempts} in {pause:.1f} s"
                )
                self.sleep(pause)
        raise AssertionError("unreachable")  # the loop returns or raises

    def lock_tables(self, tables: list[str]) -> None:
        """ACCESS EXCLUSIVE locks on ``tables``, all at once (see the module's docstring)."""
        if not tables:
            return
        with self.connection.cursor() as cursor:
            existing = set(self.connection.introspection.table_names(cursor))
        tables = [table for table in tables if table in existing]  # not one being made again
        if not tables:
            return
        names = ", ".join(self.connection.ops.quote_name(table) for table in tables)
        statement = f"lock table {names} in access exclusive mode"
        deadline = time.monotonic() + self.give_way.lock_timeout
        with self.connection.cursor() as cursor:
            while time.monotonic() < deadline:
                try:
                    with transaction.atomic(using=self.connection.alias):  # a savepoint
                        cursor.execute(f"{statement} nowait")
                    return
                except DatabaseError as error:
                    if lock_failure(error) != "lock timeout":
                        raise
                self.sleep(random.uniform(*NOWAIT_PAUSE))
            cursor.execute(statement)  # in the queue, for at most lock_timeout


def tables_changed(migration: Migration, state: ProjectState) -> list[str]:
    """The existing tables (in ``state``, the schema before the migration runs, or before
    it is undone) of the models the migration's operations change; models it creates
    have none yet, and RunSQL and RunPython name none."""
    models = set()
    for operation in migration.operations:
        if isinstance(operation, operations.CreateModel):
            continue
        if isinstance(operation, operations.RenameModel):
            models.add(operation.old_name)
        name = getattr(operation, "model_name", None)
        if name is None and isinstance(operation, operations.models.ModelOperation):
            name = operation.name
        if name is not None:
            models.add(name)
    tables = set()
    for name in models:
        try:
            tables.add(state.apps.get_model(migration.app_label, name)._meta.db_table)
        except LookupError:  # created earlier in this same migration
            continue
    return sorted(tables)
