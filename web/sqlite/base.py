"""Django's SQLite backend, with the process's write transactions taken in turn.

SQLite allows one writer at a time. When several threads of a process want to write at
once (a crowd's words, many rounds ending together), SQLite's busy handler makes the losers
sleep and retry with growing pauses (up to 100 ms each), which shows up as slow verdicts and
late results. Here a write transaction (``BEGIN IMMEDIATE``, settings' ``transaction_mode``)
first takes a lock shared by the process's threads, so they queue without sleeping; the
busy timeout still arbitrates between processes (``manage.py`` commands, a second server).
Waiting longer than the busy timeout fails as SQLite would: "database is locked".
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

from django.db import OperationalError, connection
from django.db.backends.sqlite3 import base

logger = logging.getLogger(__name__)

_write_lock = threading.Lock()


def checkpoint_wal(database: Any = None) -> None:
    """Copy the pages written since the last checkpoint from the WAL into the database,
    waiting for no reader or writer (PASSIVE), so that no commit has to do it under the
    write lock (see boggle_site.env.SQLITE_WAL_AUTOCHECKPOINT_PAGES). Called once a second
    from a background thread of each web process, on its ``connection`` unless
    ``database`` is given; nothing on other databases or an in-memory one (tests)."""
    database = database if database is not None else connection
    if database.vendor != "sqlite" or database.is_in_memory_db():
        return
    try:
        with database.cursor() as cursor:
            cursor.execute("PRAGMA wal_checkpoint(PASSIVE)")
    except OperationalError:  # busy right now: the next second's try does it
        logger.debug("WAL checkpoint skipped", exc_info=True)


if TYPE_CHECKING:

    class _SQLiteDatabaseWrapper(base.DatabaseWrapper):
        """Django's private transaction hooks overridden below, which django-stubs leaves
        out of its stubs (Django's own signatures)."""

        def _start_transaction_under_autocommit(self) -> None: ...
        def _commit(self) -> Any: ...
        def _rollback(self) -> Any: ...
        def _close(self) -> Any: ...

else:
    _SQLiteDatabaseWrapper = base.DatabaseWrapper


class DatabaseWrapper(_SQLiteDatabaseWrapper):
    _holds_write_lock = False

    def _start_transaction_under_autocommit(self) -> None:
        timeout = float(self.settings_dict.get("OPTIONS", {}).get("timeout", 5))
        if not _write_lock.acquire(timeout=timeout):
            raise OperationalError("database is locked (another thread kept writing)")
        self._holds_write_lock = True
        try:
            super()._start_transaction_under_autocommit()
        except BaseException:
            self._release_write_lock()
            raise

    def _commit(self) -> Any:
        try:
            return super()._commit()
        finally:
            self._release_write_lock()

    def _rollback(self) -> Any:
        try:
            return super()._rollback()
        finally:
            self._release_write_lock()

    def _close(self) -> Any:
        try:
            return super()._close()
        finally:
            self._release_write_lock()

    def _release_write_lock(self) -> None:
        if self._holds_write_lock:
            self._holds_write_lock = False
            _write_lock.release()
