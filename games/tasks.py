"""Celery tasks: thin wrappers that take ids, re-read the rows and call ``games.rounds`` and
``games.housekeeping``.

Each is idempotent: a round is prepared once and ended once, however often a task runs.
"""

from __future__ import annotations

from celery import shared_task

from games import housekeeping, rounds


@shared_task(acks_late=True)
def prepare_round(round_id: int) -> bool:
    """Solve a new round's board and start its countdown."""
    return rounds.do_prepare_round(round_id)


@shared_task(acks_late=True)
def end_round(round_id: int) -> bool:
    """End and score a round at its deadline (scheduled with ``eta``)."""
    return rounds.do_end_round(round_id, wait=False)


@shared_task
def end_overdue_rounds() -> int:
    """Safety net run by beat: end rounds whose scheduled task was lost with its worker."""
    return rounds.end_overdue_rounds() + rounds.prepare_stalled_rounds()


@shared_task
def cleanup_idle_rooms() -> int:
    """Delete rooms that nobody has used for a day."""
    return housekeeping.cleanup_idle_rooms()
