"""A database cursor that sends its parameters apart from the statement, for the hot path.

Django runs psycopg with client-side binding: psycopg quotes every parameter into the SQL
text in Python before sending it. For the word path's batched INSERT (a dozen parameters
per word, hundreds of statements a second) that quoting was a twentieth of a web process's
CPU (``bench/load.py --profile``, docs/performance.md). A server-side binding cursor sends the
parameters as they are, and psycopg prepares a statement it has run a few times on that
connection, so PostgreSQL parses and plans it once. Django's setting for it
(``server_side_binding``) would change every query of the site; this changes the few that
ask for it. Other databases get Django's own cursor.

The cursor is made and wrapped as Django makes and wraps its own (the connection's time
zone for timestamps read, its execute wrappers such as ``web.statement_stats``, its error
translation, its query log under DEBUG).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.postgresql.psycopg_any import register_tzloader
from django.db.backends.utils import CursorWrapper


@contextmanager
def bound_cursor(db: BaseDatabaseWrapper) -> Iterator[CursorWrapper]:
    """A cursor of ``db`` with server-side binding on PostgreSQL, Django's elsewhere; in a
    ``with`` block, closed at its end."""
    if db.vendor != "postgresql":
        with db.cursor() as cursor:
            yield cursor
        return
    db.close_if_health_check_failed()
    db.ensure_connection()
    db.validate_thread_sharing()
    with db.wrap_database_errors:
        raw = psycopg.Cursor(db.connection)
        timestamptz = psycopg.adapters.types["timestamptz"].oid
        loader = db.connection.adapters.get_loader(timestamptz, psycopg.pq.Format.TEXT)
        if db.timezone != getattr(loader, "timezone", None):  # as Django's create_cursor
            register_tzloader(db.timezone, raw)
    wrapped = db.make_debug_cursor(raw) if db.queries_logged else db.make_cursor(raw)
    with wrapped as cursor:
        yield cursor
