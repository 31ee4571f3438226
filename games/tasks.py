"""Celery tasks: thin wrappers that take ids, re-read the rows and call ``games.rounds`` and
``games.housekeeping``.

Each is idempotent: a round is prepared once and ended once, however often a task runs.

A round must not wait for the broker or a worker: when Redis is down or restarting, or the
worker died (its unacknowledged messages come back only after Redis's visibility timeout,
an hour), the process that asked for the task does the work instead.

- ``prepare_round``: if the broker refuses the task, the asking (web) process prepares the
  round at once; if the round is still preparing ``PREPARE_FALLBACK_SECONDS`` after it was
  enqueued (no worker took it: dead, busy, reconnecting), it prepares it then. Whichever
  of it and a worker comes second finds the round prepared.
- ``end_round``: if the broker refuses the task, nothing more is done: the web processes'
  deadline watchers and beat's sweep end the round anyway, a little later
  (``games.deadlines.WORKER_FALLBACK_SECONDS``).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from celery import Task, shared_task
from django.db import connections

from games import housekeeping, rounds

logger = logging.getLogger(__name__)

# A web process prepares a round itself when no worker has done it this long after it was
# enqueued (seconds): solving takes a fraction of a second, so a worker that has not done it
# by then is dead, busy or cut off from Redis.
PREPARE_FALLBACK_SECONDS = 3.0


def _round_id(args: Any, kwargs: Any) -> int:
    return int(args[0] if args else kwargs["round_id"])


class PrepareRoundTask(Task):
    """``prepare_round``, with the asking process as its fallback (see the module)."""

    def apply_async(self, args: Any = None, kwargs: Any = None, **options: Any) -> Any:
        if self.app.conf.task_always_eager:
            return super().apply_async(args, kwargs, **options)
        round_id = _round_id(args, kwargs)
        try:
            result = super().apply_async(args, kwargs, **options)
        except Exception as error:  # the broker is unreachable: do not wait for it
            logger.warning(
                "round %s: the broker refused prepare_round (%s); preparing it here",
                round_id,
                error,
            )
            _prepare_later(round_id, 0.0)
            return None
        _prepare_later(round_id, PREPARE_FALLBACK_SECONDS)
        return result


class EndRoundTask(Task):
    """``end_round``, sent on a best-effort basis (see the module)."""

    def apply_async(self, args: Any = None, kwargs: Any = None, **options: Any) -> Any:
        try:
            return super().apply_async(args, kwargs, **options)
        except Exception as error:
            if self.app.conf.task_always_eager:
                raise
            logger.warning(
                "round %s: the broker refused end_round (%s); the deadline watchers end it",
                _round_id(args, kwargs),
                error,
            )
            return None


def _prepare_later(round_id: int, delay: float) -> None:
    """Prepare the round in a thread of this process after ``delay`` seconds unless a worker
    has by then (the caller is a request's thread: it must not wait)."""
    timer = threading.Timer(delay, _prepare_if_still_preparing, (round_id,))
    timer.daemon = True
    timer.name = f"prepare-round-{round_id}"
    timer.start()


def _prepare_if_still_preparing(round_id: int) -> None:
    try:
        if rounds.do_prepare_round(round_id):
            logger.warning("round %s: prepared here, not by a worker", round_id)
    except Exception:
        # rounds.prepare_stalled_rounds (deadline watchers, beat) tries again later.
        logger.exception("round %s: preparing it here failed", round_id)
    finally:
        connections.close_all()  # this thread's connections go back to the pool


@shared_task(base=PrepareRoundTask, acks_late=True, ignore_result=True)
def prepare_round(round_id: int) -> bool:
    """Solve a new round's board and start its countdown."""
    return rounds.do_prepare_round(round_id)


@shared_task(base=EndRoundTask, acks_late=True)
def end_round(round_id: int) -> bool:
    """End and score a round at its deadline (scheduled with ``eta``), and with it every
    other round already due (``rounds.end_due_rounds``). It waits for a word being stored
    right then (a single INSERT share-locks the round's row): the web processes' watchers
    end the round only when no worker has (``games.deadlines``)."""
    return rounds.end_due_rounds(round_id)


@shared_task(ignore_result=True)
def end_overdue_rounds() -> int:
    """Safety net run by beat: end rounds whose scheduled task was lost with its worker."""
    return rounds.end_overdue_rounds() + rounds.prepare_stalled_rounds()


@shared_task(ignore_result=True)
def cleanup_idle_rooms() -> int:
    """Delete rooms that nobody has used for a day."""
    return housekeeping.cleanup_idle_rooms()


@shared_task(ignore_result=True)
def delete_unused_files() -> dict[str, int]:
    """Delete dictionary versions, word-list uploads and photo files nothing needs any more
    (after their retention period); returns how many of each."""
    return housekeeping.delete_unused_files()
