"""Learning from the boards hosts confirm: the receiver of ``photos.signals.board_confirmed``
(connected in ``DicesetsConfig.ready`` once the photos app sends it).

The signal comes with ``photo``, a ``photos.models.BoardPhoto`` whose ``result`` holds the
reading (``"corners"``, ``"rows"``, ``"cols"``), and ``faces``, the confirmed faces row by
row. Nothing is done in the sender's thread but copying them: after its transaction
commits, ``remember_confirmed_board`` runs in a Celery worker, or without a broker on a
thread of this process, and there re-reads the photo and cuts its dice
(``dicesets.services.remember_board``: kept only when the room's host consents).
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.conf import settings
from django.db import close_old_connections, transaction

from dicesets import services, tasks

logger = logging.getLogger(__name__)

# One thread, always the same (the C allocator keeps memory per thread), when there is no
# broker: cutting a board's dice is some 50-150 ms of OpenCV, never in a player's request.
_threads = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dice-memory")


def on_board_confirmed(sender: Any, photo: Any = None, faces: Any = None, **kwargs: Any) -> None:
    """Queue the confirmed board's dice for the room's set. Never raises: learning must not
    stop a host confirming a board."""
    try:
        photo_id = int(photo.pk)
        rows = [[str(face) for face in row] for row in faces]
    except Exception:
        logger.warning("board_confirmed without a saved photo and rows of faces; nothing kept")
        return
    transaction.on_commit(lambda: enqueue_remember(photo_id, rows))


def enqueue_remember(photo_id: int, faces: list[list[str]]) -> None:
    """Queue the task. Without a broker (eager Celery, the embedded default) it runs on this
    process's thread; ``DICESETS_REMEMBER_IN_THREAD = False`` runs it inline (tests)."""
    in_thread = getattr(settings, "DICESETS_REMEMBER_IN_THREAD", settings.CELERY_TASK_ALWAYS_EAGER)
    if not in_thread:
        tasks.remember_confirmed_board.delay(photo_id, faces)
        return

    def run() -> None:
        try:
            # The task's body, not an eager .delay(): Celery's eager run flips a flag of
            # the whole process, and two at once in threads can leave it set.
            services.remember_photo(photo_id, faces)
        except Exception:
            logger.exception("keeping the dice of board photo %s failed", photo_id)
        finally:
            close_old_connections()

    _threads.submit(run)
