"""Celery tasks of the dictionaries app: thin, idempotent, by id (eager in development)."""

from __future__ import annotations

from celery import shared_task

from dictionaries import compiling


@shared_task(acks_late=True)
def compile_dictionary(dictionary_id: int, revision: int | None = None) -> bool:
    """Compile a dictionary to a new version and switch to it. Does nothing if the row is
    gone or a newer compile was requested since (``revision``); a failure is recorded on the
    dictionary, whose current version stays in use. True if a version is now current."""
    return compiling.compile_dictionary(dictionary_id, revision) is not None
