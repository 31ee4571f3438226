"""Count the SQL statements a server process sends, for ``bench/load.py``.

Why this exists: issue 11 sets a budget of database statements per accepted word, and the
load client, which speaks only the public protocol, cannot see the database. When the
environment variable ``BOGGLE_STATEMENT_STATS_DIR`` is set, every database connection of
this process (every thread's, on Django's ``connection_created`` signal) gets an execute
wrapper that counts statements by kind, and a daemon thread writes the totals to
``<dir>/statements-<pid>.json`` every 0.5 s (written to a temporary file, then renamed), so
the load client can read them between two moments and divide by the words accepted.
Unset, nothing is installed and nothing runs: zero cost.

What is seen: every statement that goes through a Django cursor (``SELECT``, ``INSERT``,
``UPDATE``, ``DELETE``, anything else as ``other``; ``executemany`` counts once). Transaction
control is kept apart in ``transaction``: ``SAVEPOINT``/``RELEASE``/``ROLLBACK TO`` of
nested atomic blocks and SQLite's ``BEGIN IMMEDIATE`` go through cursors and are seen;
PostgreSQL's ``BEGIN`` is implicit in the driver and never seen; ``COMMIT`` and ``ROLLBACK``
are sent by ``connection.commit()``/``rollback()``, not through cursors, so they are counted
by wrapping the connection's commit and rollback (a per-connection wrapper, no global patch).
"""

from __future__ import annotations

import atexit
import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ENV_VARIABLE = "BOGGLE_STATEMENT_STATS_DIR"
WRITE_INTERVAL_SECONDS = 0.5
QUERY_KINDS = ("SELECT", "INSERT", "UPDATE", "DELETE", "other")
TRANSACTION_KINDS = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")
_MARK = "_boggle_statement_stats"

_lock = threading.Lock()
_counts: dict[str, int] = {}
_directory: Path | None = None


def _reset_counts() -> None:
    _counts.clear()
    _counts.update({kind: 0 for kind in QUERY_KINDS + TRANSACTION_KINDS})


def _kind(sql: object) -> str:
    text = sql if isinstance(sql, str) else str(sql)
    word = text.lstrip(" \t\r\n(")[:10].split(None, 1)
    first = word[0].upper() if word else ""
    # "ROLLBACK TO SAVEPOINT" (through a cursor) counts as ROLLBACK.
    return first if first in QUERY_KINDS or first in TRANSACTION_KINDS else "other"


def _add(kind: str) -> None:
    with _lock:
        _counts[kind] += 1


def _execute_wrapper(
    execute: Callable[..., Any], sql: Any, params: Any, many: bool, context: dict[str, Any]
) -> Any:
    _add(_kind(sql))
    return execute(sql, params, many, context)


def _counting(method: Callable[[], Any], kind: str) -> Callable[[], Any]:
    def wrapped() -> Any:
        _add(kind)
        return method()

    setattr(wrapped, _MARK, True)
    return wrapped


def _on_connection_created(sender: Any, connection: Any, **kwargs: Any) -> None:
    """Install the counters on one connection object (once: it may reconnect)."""
    if _execute_wrapper not in connection.execute_wrappers:
        connection.execute_wrappers.append(_execute_wrapper)
    for attribute, kind in (("_commit", "COMMIT"), ("_rollback", "ROLLBACK")):
        method = getattr(connection, attribute, None)
        if method is not None and not getattr(method, _MARK, False):
            setattr(connection, attribute, _counting(method, kind))


def snapshot() -> dict[str, Any]:
    """This process's totals, as written to its file."""
    with _lock:
        counts = dict(_counts)
    return {
        "pid": os.getpid(),
        "time": time.time(),
        "statements": sum(counts[kind] for kind in QUERY_KINDS),
        "by_kind": {kind: counts[kind] for kind in QUERY_KINDS},
        "transaction": {kind: counts[kind] for kind in TRANSACTION_KINDS},
    }


def _write() -> None:
    if _directory is None:
        return
    data = snapshot()
    target = _directory / f"statements-{data['pid']}.json"
    temporary = target.with_suffix(".json.tmp")
    try:
        temporary.write_text(json.dumps(data))
        os.replace(temporary, target)
    except OSError:
        pass  # the directory went away (the load client cleaned up): nothing to report to


def _writer() -> None:
    while True:
        time.sleep(WRITE_INTERVAL_SECONDS)
        _write()


def _start_writer() -> None:
    threading.Thread(target=_writer, name="statement-stats", daemon=True).start()


def _after_fork_in_child() -> None:
    # A forked child (a Celery pool process) has no writer thread and its parent's totals,
    # and the lock may have been held by a thread that does not exist here.
    global _lock
    _lock = threading.Lock()
    _reset_counts()
    _write()
    _start_writer()


def install_from_env() -> None:
    """Start counting if ``BOGGLE_STATEMENT_STATS_DIR`` is set; otherwise do nothing."""
    global _directory
    configured = os.environ.get(ENV_VARIABLE)
    if not configured or _directory is not None:
        return
    from django.db.backends.signals import connection_created

    _directory = Path(configured)
    _directory.mkdir(parents=True, exist_ok=True)
    _reset_counts()
    connection_created.connect(_on_connection_created, dispatch_uid=_MARK)
    os.register_at_fork(after_in_child=_after_fork_in_child)
    atexit.register(_write)
    _write()
    _start_writer()
