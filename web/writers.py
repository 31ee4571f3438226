"""A few threads per process for database work on a hot path, each keeping its connection
(the word path's: ``games.words``). Part of the toolkit: it knows nothing of Boggle.

``database_sync_to_async`` hands every call to a thread and, before and after it, closes the
thread's connection if it is "obsolete", which with a connection pool (PostgreSQL) is always:
each accepted word checked a connection out (with a health-check round trip) and back in.
These threads keep theirs, so an accepted word costs its INSERT and nothing more; a
connection that died (PostgreSQL restarted) is replaced and the call made once more, so the
player never sees the restart.

The words themselves are written in batches (``GroupCommit``): every word waiting when a
thread comes free goes in one transaction. Each batch takes at most ``CALLS_PER_ADDRESS`` of
one client address's words (its ``lane``), the rest wait on the event loop for the next: a
client that joined a room many times over, or spends its whole message budget at once,
queues behind itself, not in front of every other player's words.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Generic, ParamSpec, TypeVar

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connection
from django.utils import translation

logger = logging.getLogger(__name__)

# Threads per process: each holds one database connection (see DATABASE_POOL_SIZE).
WRITER_THREADS = 4
# One address's items in one batch of writes (GroupCommit): the rest wait for the next,
# so one address never fills a batch (a household's or a classroom's words still flow: a
# batch takes milliseconds).
CALLS_PER_ADDRESS = 2
# Items in one batch of writes at most: one transaction stays short.
MAX_BATCH = 64

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")

_executor = ThreadPoolExecutor(max_workers=WRITER_THREADS, thread_name_prefix="word-path")


async def run(func: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """Run ``func`` on a word-path thread and wait for it without blocking the event loop."""
    # In the caller's interface language (the socket's, games.consumers): the pool's
    # threads are plain threads, where Django's active language is thread-local.
    call = functools.partial(_call_in_language, translation.get_language(), func, *args, **kwargs)
    if _on_calling_thread.get():
        return await sync_to_async(call, thread_sensitive=True)()
    return await asyncio.get_running_loop().run_in_executor(_executor, call)


# Set by ``on_calling_thread``: the word path's database work runs on the thread that waits
# for it (in ``async_to_sync``) instead of the pool's.
_on_calling_thread: ContextVar[bool] = ContextVar("word_path_on_calling_thread", default=False)


@contextmanager
def on_calling_thread() -> Iterator[None]:
    """Within the block, the word path's database work runs on the calling thread, on its
    connection: for synchronous callers whose rows live in a transaction still open on that
    connection (tests under pytest-django's ``db`` fixture), which another thread's
    connection cannot see."""
    token = _on_calling_thread.set(True)
    try:
        yield
    finally:
        _on_calling_thread.reset(token)


class GroupCommit(Generic[T, R]):
    """Writes from many sockets, made together: ``write_batch(items)`` runs on a word-path
    thread with every item waiting when it starts, and returns one outcome per item (its
    value, or the exception for that item alone).

    Why: a crowd's words, one write call each, paid each a thread hop, a wake-up of the
    event loop and, on SQLite, a ``BEGIN IMMEDIATE`` and ``COMMIT`` under the process's
    write lock, for which the other writer threads queued (SQLite takes one writer at a
    time). Together, a batch pays them once. A batch of one (a quiet room) costs what a
    single call did.

    Fairness: a batch takes at most ``per_lane`` items of one lane (a client address,
    ``web.throttle.bucket_key``; None, this machine, is not held back), lanes in turn, so
    one address's backlog waits behind itself and never in front of other players' words.
    A batch that the database refuses as a whole (one item's value that it will not store)
    is written again one item at a time, so one player's bad entry fails only that entry.
    """

    def __init__(
        self,
        write_batch: Callable[[list[T]], list[R | Exception]],
        per_lane: int = CALLS_PER_ADDRESS,
        max_batch: int = MAX_BATCH,
    ) -> None:
        self.write_batch = write_batch
        self.per_lane = per_lane
        self.max_batch = max_batch
        self._lanes: dict[str | None, deque[_Waiting[T, R]]] = {}
        self._writing = 0  # batches on the threads now
        self._loop: asyncio.AbstractEventLoop | None = None
        # A start of batches is scheduled for the loop's next turn (``write``).
        self._start_scheduled = False

    async def write(self, lane: str | None, item: T) -> R:
        """Write ``item`` with the next batch and return its outcome (or raise its error)."""
        if _on_calling_thread.get():
            outcome = (await sync_to_async(self._write, thread_sensitive=True)([item]))[0]
        else:
            loop = asyncio.get_running_loop()
            if loop is not self._loop:  # a new loop (tests): the old one's batches are gone
                self._loop, self._lanes, self._writing = loop, {}, 0
                self._start_scheduled = False
            waiting: _Waiting[T, R] = _Waiting(item, loop.create_future())
            self._lanes.setdefault(lane, deque()).append(waiting)
            # Started on the loop's next turn, not now: the words that other sockets' frames
            # bring in this turn join the same batch (one hop to a thread and one
            # transaction for all of them instead of one each while threads are free).
            if not self._start_scheduled:
                self._start_scheduled = True
                loop.call_soon(self._start_batches_now)
            outcome = await waiting.future
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    def waiting(self) -> int:
        """Items waiting for a batch (tests, benchmarks)."""
        return sum(len(queue) for queue in self._lanes.values())

    def _start_batches_now(self) -> None:
        self._start_scheduled = False
        self._start_batches()

    def _start_batches(self) -> None:
        while self._writing < _batches_at_once() and self._lanes:
            batch = self._take()
            if not batch:
                return
            self._writing += 1
            items = [waiting.item for waiting in batch]
            job = asyncio.get_running_loop().run_in_executor(
                _executor, functools.partial(self._write, items)
            )
            job.add_done_callback(functools.partial(self._finish, batch))

    def _take(self) -> list[_Waiting[T, R]]:
        """The next batch: up to ``per_lane`` of each lane, lanes in turn (a lane that keeps
        items goes to the back of the turn)."""
        batch: list[_Waiting[T, R]] = []
        for lane in list(self._lanes):
            queue = self._lanes.pop(lane)
            share = self.max_batch if lane is None else self.per_lane
            while queue and share and len(batch) < self.max_batch:
                waiting = queue.popleft()
                if waiting.future.cancelled():  # nobody waits for it any more
                    continue
                batch.append(waiting)
                share -= 1
            if queue:
                self._lanes[lane] = queue
            if len(batch) >= self.max_batch:
                break
        return batch

    def _finish(
        self, batch: list[_Waiting[T, R]], job: asyncio.Future[list[R | Exception]]
    ) -> None:
        if job.get_loop() is not self._loop:
            return  # a batch of a loop since replaced
        self._writing -= 1
        error = RuntimeError("the write was cancelled") if job.cancelled() else job.exception()
        outcomes: list[R | Exception] = (
            [error] * len(batch) if isinstance(error, Exception) else job.result()
        )
        for waiting, outcome in zip(batch, outcomes, strict=True):
            if not waiting.future.done():
                waiting.future.set_result(outcome)
        self._start_batches()

    def _write(self, items: list[T]) -> list[R | Exception]:
        """Worker thread: the batch in one call, else (refused as a whole by the database)
        each item on its own."""
        try:
            return _call(self.write_batch, items)
        except DatabaseError:
            if len(items) == 1:
                raise
            logger.warning("a batch of %s writes was refused; writing them one by one", len(items))
        outcomes: list[R | Exception] = []
        for item in items:
            try:
                outcomes.extend(_call(self.write_batch, [item]))
            except Exception as error:  # this item's own failure, answered to its player
                outcomes.append(error)
        return outcomes


class _Waiting(Generic[T, R]):
    __slots__ = ("future", "item")

    def __init__(self, item: T, future: asyncio.Future[R | Exception]) -> None:
        self.item = item
        self.future = future


@functools.cache
def _batches_at_once() -> int:
    """SQLite writes one transaction at a time: a second batch would only wait for the
    write lock while words pile up that could have joined it. PostgreSQL writes side by
    side (a batch's round trips leave the thread idle)."""
    return 1 if connection.vendor == "sqlite" else WRITER_THREADS // 2


@contextmanager
def in_language(language: str | None) -> Iterator[None]:
    """Within the block, Django's active language is ``language`` (the word-path threads
    are plain threads, where it is thread-local); free when it is the default."""
    if language == settings.LANGUAGE_CODE:  # these threads only ever activate it back
        yield
        return
    with translation.override(language):
        yield


def _call_in_language(
    language: str | None, func: Callable[..., R], *args: object, **kwargs: object
) -> R:
    with in_language(language):
        return _call(func, *args, **kwargs)


def _call(func: Callable[..., R], *args: object, **kwargs: object) -> R:
    try:
        return func(*args, **kwargs)
    except (OperationalError, InterfaceError):
        if not _connection_died():
            raise  # the database refused the statement: not a connection problem
        # The kept connection died (PostgreSQL restarted): once more on a fresh one. Safe
        # for the word path: loading reads, and a repeated INSERT of an entry that did get
        # stored meets its unique constraint and is answered as stored.
        connection.close()
        return func(*args, **kwargs)


def _connection_died() -> bool:
    return connection.connection is not None and not connection.is_usable()
