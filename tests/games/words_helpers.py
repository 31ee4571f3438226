"""The word path for synchronous tests: ``submit_word`` enters a word through
``games.words.submit``, the coroutine a player's socket calls (``games.consumers``), with its
database work on the test's own thread (``web.writers.on_calling_thread``), where the
test's open transaction (pytest-django's ``db`` fixture) is visible and
``CaptureQueriesContext(connection)`` counts it. Everything else is the players' path: the
entry check, the round from memory, judging on the event loop, the lane, the late answers.
``running_round`` starts a round to enter them into, on a board of the test's choosing.
"""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

from asgiref.sync import async_to_sync
from django.utils import timezone

from games import rooms, rounds, words
from games.models import Player, Round
from games.words import SubmitResult
from web import writers


def submit_word(
    player: Player, entry: Any, client_id: Any = "", received_at: float | None = None
) -> SubmitResult:
    """``player`` enters ``entry`` as their socket would: ``games.words.submit``, received
    now unless ``received_at`` (epoch seconds) says when; its answer, or its exception."""
    arrived = time.time() if received_at is None else received_at
    with writers.on_calling_thread():
        return async_to_sync(words.submit)(player.room_id, player.id, entry, client_id, arrived)


def running_round(host: Player, board: str, seconds: float = 120) -> Round:
    """Start a round on ``board`` as the host would, prepared at once (tasks run eagerly in
    tests), its countdown over and ``seconds`` left to play."""
    rooms.do_set_next_board(host, board)
    round_ = rounds.do_start_round(host)
    now = timezone.now()
    Round.objects.filter(pk=round_.pk, status=Round.Status.RUNNING).update(
        starts_at=now - timedelta(seconds=1), ends_at=now + timedelta(seconds=seconds)
    )
    round_.refresh_from_db()
    return round_
