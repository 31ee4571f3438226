"""``boggle_site.asgi:application``, warmed up on import as ``production.serve`` warms a
Daphne before it listens, for ``bench/load.py --server uvicorn|granian`` (bench.crowd.servers):
both servers import the application before they serve it. Without this, their first round
would load the word lists and word frequencies (seconds of CPU) inside the measured window,
which Daphne's processes loaded at their start.

``production.serve`` itself is not imported: it installs Twisted's reactor for Daphne.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.db import connection

from boggle_site.asgi import application
from games.warm_up import warm_round_preparation

__all__ = ["application"]

logger = logging.getLogger("bench.crowd.warm_asgi")

_started = time.monotonic()
if getattr(settings, "GAMES_WARM_UP_ROUNDS", True):
    warm_round_preparation()
# As production.serve: the thread that imported this becomes the event loop's, which never
# uses the database itself.
connection.close()
logger.info("warmed up in %.1f s", time.monotonic() - _started)
