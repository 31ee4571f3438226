"""A web process that is stopping hands its sockets over before it exits (``drain``, then
``stop_work``: called by ``production.serve`` on SIGTERM).

Each open room socket (held here by ``games.consumers`` as it opens) first gets the answers
to what it sent, then is closed with 1012, "service restart": the page reconnects at once,
to another process (docs/api.md, "Close codes"), and resends what is still unanswered. The
words still being written finish, and the refused entries waiting in memory
(``games.live``) are written: nothing the players sent is lost with the process.
"""

from __future__ import annotations

import asyncio
import logging
import math
import weakref
from typing import Protocol

from games import background, live
from web.threads import in_thread

logger = logging.getLogger(__name__)

CLOSE_SERVICE_RESTART = 1012
# Frames a client sent just before the signal are read before anything closes.
FRAMES_ON_THEIR_WAY_SECONDS = 0.1
HAND_ON_TURNS = 5  # event loop turns from a frame read to its consumer's receive
# The sockets are closed over this long, a share every CLOSE_EVERY_SECONDS, not all at once:
# the process that takes them over joins each (a few database reads and its state), and
# joins arriving together wait behind each other. bench/load.py --faults rolling, 35
# sockets: all at once, 1.1 s from drop to state at the median and 1.9 s at worst; spread,
# 0.35 to 0.73 s and 0.64 to 1.2 s (docs/operations.md, "Stopping and draining").
SPREAD_SECONDS = 2.0
CLOSE_EVERY_SECONDS = 0.1
# How long the words in flight may take to be answered on their sockets, beyond the spread,
# before the sockets are closed all the same (the page resends them elsewhere, with the
# same client_id).
ANSWER_WITHIN_SECONDS = 2.0


class Socket(Protocol):
    """What a drain needs of a room socket (``games.consumers.RoomConsumer``)."""

    closed: bool
    in_flight: set[asyncio.Task[None]]

    async def close(self, code: int | None = None, reason: str | None = None) -> None: ...


# This process's room sockets; a socket that is gone is dropped with its consumer.
_sockets: weakref.WeakSet[Socket] = weakref.WeakSet()
# Set once a drain has begun: a socket that finishes its handshake after that is sent away.
_draining = False
_late_closes: set[asyncio.Task[None]] = set()


def hold(socket: Socket) -> None:
    """The socket is open in this process (called on the event loop once it is accepted):
    a drain will close it, or closes it now if one has begun."""
    _sockets.add(socket)
    if _draining:
        task = asyncio.get_running_loop().create_task(socket.close(code=CLOSE_SERVICE_RESTART))
        _late_closes.add(task)
        task.add_done_callback(_late_closes.discard)


def open_sockets() -> list[Socket]:
    return [socket for socket in list(_sockets) if not socket.closed]


def words_in_flight() -> list[asyncio.Task[None]]:
    return [task for socket in list(_sockets) for task in list(socket.in_flight) if not task.done()]


async def drain() -> None:
    """Close every socket with 1012 once its words in flight are answered, a share of them
    every ``CLOSE_EVERY_SECONDS`` over ``SPREAD_SECONDS``, then wait for the words still being
    written. Unbounded: the caller bounds it."""
    global _draining
    _draining = True
    loop = asyncio.get_running_loop()
    await asyncio.sleep(FRAMES_ON_THEIR_WAY_SECONDS)
    for _ in range(HAND_ON_TURNS):  # a frame read just now reaches its consumer
        await asyncio.sleep(0)
    answers_until = loop.time() + SPREAD_SECONDS + ANSWER_WITHIN_SECONDS
    per_wave = math.ceil(len(open_sockets()) / round(SPREAD_SECONDS / CLOSE_EVERY_SECONDS))
    closed = 0
    # Until none is left: one accepted meanwhile joins a later wave.
    while sockets := open_sockets():
        wave = sockets[: max(1, per_wave)]
        answers = [task for socket in wave for task in list(socket.in_flight)]
        if answers:
            await asyncio.wait(answers, timeout=max(0.0, answers_until - loop.time()))
        await asyncio.gather(
            *(socket.close(code=CLOSE_SERVICE_RESTART) for socket in wave),
            return_exceptions=True,
        )
        closed += len(wave)
        await asyncio.sleep(CLOSE_EVERY_SECONDS)
    while writing := words_in_flight():
        await asyncio.wait(writing)
    logger.info("drain: %d sockets sent elsewhere, their words written", closed)


async def stop_work() -> None:
    """Once no socket or request is left: stop the process's own loops (the deadline
    watcher, the flusher, the presence beat: ``games.background``; other processes and the
    workers do that work) and write the refused entries waiting in memory. Work they had
    started on a thread goes on: the caller lets it finish before the event loop stops."""
    await background.stop()
    written = await in_thread(live.flush_refused)()
    logger.info("drain: the background loops stopped, %d refused entries written", written)
