"""Warm round preparation up as a process starts, so that the first round after a start does
not spend seconds on "Shaking the dice".

A process's first ``rounds.do_prepare_round`` loads what every later one finds in memory:
wordfreq and the common-word frequencies of the dictionary's language
(``games.common_words``, some 1.8 s of the 1.9 s measured), the dictionary's word list and
the solver. ``start_warm_up`` does that work once in a background thread, as
``photos.reading.preload_reader`` does for the board reader, in the processes that prepare
rounds: the embedded Daphne (``boggle_site.asgi``) and Celery's worker processes
(``boggle_site.celery``). ``GAMES_WARM_UP_ROUNDS`` (env ``BOGGLE_WARM_UP_ROUNDS``) turns it
off. ``bench/first_round.py`` measures the first round with and without it.
"""

from __future__ import annotations

import logging
import threading

from django.conf import settings
from django.db import DatabaseError, connection

logger = logging.getLogger(__name__)

# A board to solve once with each dictionary's list (docs/api.md's example board): the
# solve itself is quick; what is slow the first time is loading what it needs.
WARM_UP_BOARD = "aeol iejm pdls orkf"


def warm_round_preparation() -> list[str]:
    """Load what preparing a round needs for every dictionary a room may play with: its word
    list, a solve of a board with it, and its language's common words. Returns the names
    of the dictionaries warmed. Uses the calling thread's database connection."""
    from games import common_words
    from games.room_dictionaries import (
        available_dictionaries,
        current_version,
        word_list_for_version,
    )
    from solver.board import parse_board
    from solver.solve import solve

    board = parse_board(WARM_UP_BOARD)
    warmed = []
    for name in available_dictionaries():
        word_list = word_list_for_version(current_version(name))
        words = [found.word for found in solve(board, word_list, 3).words]
        # An empty list returns before loading anything: look one word up at least.
        common_words.common_in(words or ["a"], name)
        warmed.append(name)
    return warmed


def start_warm_up() -> threading.Thread | None:
    """Warm round preparation up in a background thread (None when the setting is off). A
    failure is logged: the first round then loads what it needs itself, as before."""
    if not getattr(settings, "GAMES_WARM_UP_ROUNDS", True):
        return None

    def run() -> None:
        try:
            warmed = warm_round_preparation()
        except DatabaseError as error:  # not migrated yet (a fresh install, a bare worker)
            logger.warning("round preparation not warmed up: the database is not ready (%s)", error)
        except Exception:
            logger.exception("warming round preparation up failed; the first round will")
        else:
            logger.info("round preparation warmed up: %s", ", ".join(warmed) or "no dictionary")
        finally:
            connection.close()  # this thread's own connection, not kept open

    thread = threading.Thread(target=run, name="warm-round-preparation", daemon=True)
    thread.start()
    return thread
