"""The room's latest event version as the sockets' pongs carry it, read from the database
at most once a second per room and process.
"""

from __future__ import annotations

import asyncio
import logging
import time

from games.models import Room
from web.threads import in_thread

logger = logging.getLogger(__name__)

# A pong carries the room's latest version (a client whose version is lower missed an
# event, perhaps the last one); read at most this often per room and process (seconds).
VERSION_TTL_SECONDS = 1.0
# A pong waits at most this long for the version (the database may be restarting): then it
# carries the last one read, or none, so that the client still hears the server is there.
VERSION_WAIT_SECONDS = 1.0
_versions: dict[int, tuple[float, int]] = {}


async def latest_version(room_id: int) -> int | None:
    now = time.monotonic()
    cached = _versions.get(room_id)
    if cached is not None and now - cached[0] < VERSION_TTL_SECONDS:
        return cached[1]
    try:
        version = await asyncio.wait_for(in_thread(_room_version)(room_id), VERSION_WAIT_SECONDS)
    except Exception as error:  # slow or unreachable database: answer all the same
        logger.warning("pong without a fresh version: %s", type(error).__name__)
        return None if cached is None else cached[1]
    if len(_versions) > 10_000:  # rooms come and go: forget them all now and then
        _versions.clear()
    _versions[room_id] = (now, version)
    return version


def _room_version(room_id: int) -> int:
    return Room.objects.values_list("version", flat=True).get(pk=room_id)


def clear() -> None:
    _versions.clear()
