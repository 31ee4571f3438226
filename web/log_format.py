"""How the site's log lines look: one JSON object per line in production, and the request id
each line carries.

``JsonFormatter`` writes ``time``, ``level``, ``logger``, ``message``, the ``request_id`` of
the request or socket the line was written for (``RequestIdFilter``, from
``web.request_log``), the record's ``fields`` (``extra={"fields": {...}}``: the request
lines' method, path, status...) and, for an exception, its traceback as one string. A
newline in a message stays inside its JSON string: one record is always one line, which
log shippers and ``jq`` read as it is. ``BOGGLE_LOG_FORMAT`` chooses it (settings:
``json`` by default in production, ``text`` in the embedded default).
"""

from __future__ import annotations

import contextvars
import json
import logging
from datetime import UTC, datetime
from typing import Any

import orjson

# The request id of the request or socket being served (set by web.request_log around
# it); copied into tasks and threads started meanwhile with the context.
request_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "request_id", default=None
)

# Attributes every LogRecord has: not copied into a line as fields.
_BASE_KEYS = ("time", "level", "logger", "message")


class RequestIdFilter(logging.Filter):
    """Puts the current request id on each record (``record.request_id``; None outside a
    request or socket). Attached to the handlers, so it sees every logger's records."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = request_id_var.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line (see the module's docstring)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            line.update((key, value) for key, value in fields.items() if key not in _BASE_KEYS)
        request_id = getattr(record, "request_id", None)
        if request_id is not None:
            line.setdefault("request_id", request_id)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        try:
            return orjson.dumps(line, default=str).decode()
        except TypeError:  # a lone surrogate (orjson refuses it): escaped by the json module
            return json.dumps(line, default=str)
