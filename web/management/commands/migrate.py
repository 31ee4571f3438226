"""``manage.py migrate``, Django's own, giving way to the running site on PostgreSQL: each
migration waits at most ``BOGGLE_MIGRATE_LOCK_TIMEOUT`` for a lock and is retried when it
timed out or was a deadlock's victim (``web.migration_locks``; docs/operations.md,
"Upgrading"). On SQLite, or with the variable at 0, it is Django's command unchanged.

Django runs a command from the first app in INSTALLED_APPS that has one, and its own last:
no app before ``web`` has a ``migrate``, so this one runs (tests/deploy/test_migrations_safe.py
checks it).
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any
from unittest import mock

from django.conf import settings
from django.core.management.commands import migrate as django_migrate
from django.db import DatabaseError, connections

from web.migration_locks import GiveWay, GivingWayExecutor


class Command(django_migrate.Command):
    help = (
        django_migrate.Command.help
        + " On PostgreSQL each migration waits at most BOGGLE_MIGRATE_LOCK_TIMEOUT seconds for"
        " a lock, and is rolled back and retried when it timed out or was a deadlock's victim."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        connection = connections[options["database"]]
        give_way = GiveWay(lock_timeout=settings.BOGGLE_MIGRATE_LOCK_TIMEOUT)
        if connection.vendor != "postgresql" or give_way.lock_timeout <= 0:
            super().handle(*args, **options)
            return
        warning = give_way.deadlock_warning(connection)
        if warning:
            self.stderr.write(warning)
        give_way.set_lock_timeout(connection)
        # Django's command makes its executor from this module's global, with no other hook.
        executor = functools.partial(GivingWayExecutor, give_way=give_way, report=self.stdout.write)
        try:
            with mock.patch.object(django_migrate, "MigrationExecutor", executor):
                super().handle(*args, **options)
        finally:
            with contextlib.suppress(DatabaseError), connection.cursor() as cursor:
                cursor.execute("reset lock_timeout")  # for a caller that goes on (call_command)
