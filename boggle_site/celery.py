"""The Celery app: ``celery -A boggle_site worker`` and ``celery -A boggle_site beat``.

Options come from Django settings named ``CELERY_*``; tasks from each app's ``tasks.py``.
Worker processes load the board reader as they start (``PHOTOS_PRELOAD_READER``): the main
process imports its libraries before it forks the pool, each child loads the models.

Surviving a Redis restart (the broker) takes two repairs here:

- ``_close_channel_whose_poll_read_failed``: with kombu 5.7 a worker holding an unacknowledged
  message (any ``end_round`` waiting for its ``eta``, any ``acks_late`` task running) died
  when the broker went away ("Unrecoverable error: AttributeError: 'NoneType' object has no
  attribute 'hostname'"), see the function.
- ``Consumer``: the worker reconnects every ``RECONNECT_MAX_SECONDS`` at most, for ever,
  instead of kombu's growing 2, 4, 6 ... 30 s pauses (a minute late after a longer outage)
  and a shutdown after 100 tries.
"""

from __future__ import annotations

import functools
import logging
import os
from typing import Any

from celery import Celery
from celery.signals import worker_init, worker_process_init
from celery.worker.consumer import Consumer as CeleryConsumer
from kombu.transport import redis as kombu_redis

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "boggle_site.settings")

logger = logging.getLogger(__name__)

# The worker's pauses between attempts to reach the broker again: from the first, growing
# by the step, to at most the last (seconds). A round waits for its preparation no longer
# than this after Redis is back (web processes also step in: games.tasks).
RECONNECT_FIRST_SECONDS = 0.2
RECONNECT_STEP_SECONDS = 0.4
RECONNECT_MAX_SECONDS = 1.0

app = Celery("boggle_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


class Consumer(CeleryConsumer):
    """The worker's broker consumer, reconnecting quickly after a connection loss (set as
    ``worker_consumer`` in production; the number of tries is ``broker_connection_max_retries``,
    None: for ever)."""

    def ensure_connected(self, conn: Any) -> Any:
        conn.ensure_connection = functools.partial(
            conn.ensure_connection,
            interval_start=RECONNECT_FIRST_SECONDS,
            interval_step=RECONNECT_STEP_SECONDS,
            interval_max=RECONNECT_MAX_SECONDS,
        )
        return super().ensure_connected(conn)


def _close_channel_whose_poll_read_failed(close: Any) -> Any:
    """Make kombu's Redis channel close even when reading its pending BRPOP reply fails.

    An idle worker always has a BRPOP in flight. When Redis goes away, the consumer's
    clean-up closes the channel; ``Channel.close`` first reads that BRPOP's reply, which
    raises ConnectionError before anything is closed. The connection is then torn down
    regardless (its transport forgets the broker URL), and the second ``close`` of the same
    channel, made by Celery right after, tries to restore the unacknowledged messages
    through a pool it must rebuild from that forgotten URL: AttributeError, which is no
    connection error, so it killed the worker. Here a failed read (which has already
    cleared the in-poll flag) is followed by the real close at once, while the broker URL
    is still known; the restore then fails like any command to a dead broker, which kombu
    and Celery expect. Messages that could not be restored stay in Redis's unacked set
    (redelivered after the visibility timeout) or, when Redis lost its data, are gone: the
    rounds they were about are ended and prepared by the web processes and beat anyway.
    """

    @functools.wraps(close)
    def wrapper(channel: Any) -> None:
        try:
            close(channel)
        except channel.connection_errors:
            if channel.closed:
                raise
            close(channel)
            raise

    wrapper.__boggle_patched__ = True  # type: ignore[attr-defined]
    return wrapper


if not getattr(kombu_redis.Channel.close, "__boggle_patched__", False):
    kombu_redis.Channel.close = _close_channel_whose_poll_read_failed(  # type: ignore[method-assign]
        kombu_redis.Channel.close
    )


@worker_init.connect
def _import_board_reader(**_: Any) -> None:
    """The worker's main process imports the reader's libraries (TensorFlow) before it
    forks its pool, whose children then share them (``photos.reading.import_reader_libraries``;
    docs/operations.md, "Capacity"); each child loads the models itself, below."""
    from django.conf import settings

    if not getattr(settings, "PHOTOS_PRELOAD_READER", True):
        return
    from photos.reading import import_reader_libraries

    try:
        import_reader_libraries()
    except Exception:  # the worker still serves rounds; its children try again, and say why
        logger.exception("importing the board reader's libraries failed")


@worker_process_init.connect
def _preload_board_reader(**_: Any) -> None:
    """Each worker process (prefork pool, Celery's default; the solo pool's one process sends
    the signal too) loads the board reader as it starts, in a thread: the process must
    report ready within seconds, TensorFlow takes longer."""
    from games.warm_up import start_warm_up
    from photos.reading import preload_reader

    preload_reader()
    start_warm_up()  # the rounds this worker prepares: the first one warm too
