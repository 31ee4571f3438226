"""Events fanned out from memory: a process's sockets get a group's events straight from it,
and the channel layer carries each event once to each *other* process with sockets there.

lila (lichess) and Phoenix work this way: a room's sockets sit on the process that nginx's
room affinity sends them to, so nearly every event is delivered without leaving the
process. Before, every event went to Redis and back once per socket (Channels' groups hold
sockets), and each copy was decoded, queued and dispatched on its own.

Here the channel layer's groups hold *processes*: a process joins a group (its channel,
``here``) when its first socket joins and leaves it with its last. Publishing an event:

1. the sockets of this process in the group get it, in the order it was published, from
   one delivery task on the event loop (from another thread, it is handed to the loop);
2. when the group has live members elsewhere (one ZRANGEBYSCORE tells: a process refreshes
   its memberships every 30 s, and one silent for 120 s, killed, no longer counts), the
   layer carries it to them, once per process, tagged with its origin; each delivers it
   to its own sockets, and the origin drops its own copy (Redis recovery replays resend
   to everyone: ``web.channel_layer``).

A process with no event loop of sockets (a Celery worker, a management command) sends
through the layer to every process in the group, as before. The embedded default has one
process and an in-memory layer: nothing goes through the layer at all.

Order and versions: each process delivers in publication order. Events published by
different processes can interleave differently on different processes, as they always
could; clients order room events by ``version`` and ask for a ``sync`` on a gap
(docs/api.md).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import threading
import uuid
from typing import Any, Protocol

from asgiref.sync import async_to_sync
from channels.layers import BaseChannelLayer, InMemoryChannelLayer, get_channel_layer

logger = logging.getLogger(__name__)

# Keys a message carries through the layer: the group it was published to and the
# publishing process's channel (its own copy is dropped).
GROUP_KEY = "fanout_group"
ORIGIN_KEY = "fanout_origin"


class Member(Protocol):
    """A socket in groups: ``deliver`` is awaited for each event, in order."""

    async def deliver(self, message: dict[str, Any]) -> None: ...


class Hub:
    """One process's groups of sockets, and its place in the channel layer's groups.

    Its sockets live on one event loop (Daphne's); a hub that sees another loop (a test's
    next loop) starts afresh, forgetting members of the old one."""

    def __init__(self, layer: BaseChannelLayer | None = None) -> None:
        # The channel layer: Django's default unless given (tests: two hubs, two layers).
        self._given_layer = layer
        self._members: dict[str, dict[int, Member]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self._local: collections.deque[tuple[str, dict[str, Any]]] = collections.deque()
        self._remote: collections.deque[tuple[str, dict[str, Any]]] = collections.deque()
        self._local_ready: asyncio.Event | None = None
        self._remote_ready: asyncio.Event | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        # The layer's groups this process is in, and a lock per group for joining and
        # leaving one at a time (a leave and a join crossing in Redis would lose the join).
        self._joined: set[str] = set()
        self._group_locks: dict[str, asyncio.Lock] = {}
        self.here: str | None = None  # this process's channel on the layer (remote only)
        self._layer: BaseChannelLayer | None = None
        self._start_lock = threading.Lock()

    # ------------------------------------------------------------ sockets

    @staticmethod
    def socket_name() -> str:
        """A name for a socket, unique across processes (presence keeps it)."""
        return f"ws.{uuid.uuid4().hex}"

    async def join(self, group: str, member: Member) -> None:
        """Put a socket of this process in a group; once this returns, it gets every event
        published to the group, from any process."""
        await self._start()
        self._members.setdefault(group, {})[id(member)] = member
        if self._remote_layer() is not None:
            await self._settle_membership(group)

    async def leave(self, group: str, member: Member) -> None:
        members = self._members.get(group)
        if members is not None:
            members.pop(id(member), None)
            if not members:
                del self._members[group]
        if self._remote_layer() is not None and self._loop is asyncio.get_running_loop():
            await self._settle_membership(group)

    def forget(self, member: Member) -> None:
        """Take a socket out of every group, without waiting (its application ended without
        a disconnect: a failed connect, a cancelled task); the layer's memberships follow
        in the background."""
        emptied = []
        for group, members in list(self._members.items()):
            if members.pop(id(member), None) is not None and not members:
                del self._members[group]
                emptied.append(group)
        if emptied and self._remote_layer() is not None and self._loop is not None:
            for group in emptied:
                self._spawn(self._settle_membership(group))

    def members(self, group: str) -> int:
        """This process's sockets in a group."""
        return len(self._members.get(group, ()))

    # ------------------------------------------------------------ publishing

    def publish(self, group: str, message: dict[str, Any]) -> None:
        """Send an event to every socket in the group, here and in other processes; from
        any thread, without waiting (the event loop sends it), or, in a process without
        sockets, through the layer before returning."""
        loop = self._loop
        if loop is None or loop.is_closed():
            self._publish_without_loop(group, message)
            return
        if threading.get_ident() == self._loop_thread:
            self._enqueue(group, message)
        else:
            loop.call_soon_threadsafe(self._enqueue, group, message)

    def publish_many(self, sends: list[tuple[str, dict[str, Any]]]) -> None:
        """``publish`` for several (group, event), handed to the loop at once: waking the
        loop from another thread is a system call, and a busy process's live counts go to
        a hundred rooms a second."""
        loop = self._loop
        if loop is None or loop.is_closed() or threading.get_ident() == self._loop_thread:
            for group, message in sends:
                self.publish(group, message)
        elif sends:
            loop.call_soon_threadsafe(self._enqueue_many, sends)

    def _enqueue_many(self, sends: list[tuple[str, dict[str, Any]]]) -> None:
        for group, message in sends:
            self._enqueue(group, message)

    def _enqueue(self, group: str, message: dict[str, Any]) -> None:
        """On the loop: queue the event for this process's sockets and for the others."""
        if group in self._members and self._local_ready is not None:
            self._local.append((group, message))
            self._local_ready.set()
        if self._remote_layer() is not None and self._remote_ready is not None:
            self._remote.append((group, message))
            self._remote_ready.set()

    def _publish_without_loop(self, group: str, message: dict[str, Any]) -> None:
        layer = self._given_layer or get_channel_layer()
        if layer is None or isinstance(layer, InMemoryChannelLayer):
            return  # one process, and no socket in it
        async_to_sync(layer.group_send)(group, {**message, GROUP_KEY: group})

    # ------------------------------------------------------------ the loop's tasks

    async def _start(self) -> None:
        loop = asyncio.get_running_loop()
        if self._loop is loop:
            return
        with self._start_lock:
            self._reset()
            self._loop = loop
            self._loop_thread = threading.get_ident()
            self._local_ready = asyncio.Event()
            self._remote_ready = asyncio.Event()
            layer = self._given_layer or get_channel_layer()
            self._layer = layer
            self._spawn(self._deliver_forever())
            if self._remote_layer() is not None:
                assert layer is not None
                self.here = await layer.new_channel("fanout")
                self._spawn(self._send_forever())
                self._spawn(self._receive_forever())
                self._spawn(self._refresh_forever())

    def _spawn(self, coroutine: Any) -> None:
        assert self._loop is not None
        task = self._loop.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _reset(self) -> None:
        """Forget an old loop's sockets and tasks (tests run one loop after another)."""
        for task in list(self._tasks):
            if not task.get_loop().is_closed():
                task.get_loop().call_soon_threadsafe(task.cancel)
        self._tasks.clear()
        self._members.clear()
        self._joined.clear()
        self._group_locks.clear()
        self._local.clear()
        self._remote.clear()
        self.here = None

    def _remote_layer(self) -> Any:
        """The layer that reaches other processes (it has ``group_send_elsewhere``), or
        None: the embedded default's in-memory layer reaches none."""
        layer = self._layer
        return layer if hasattr(layer, "group_send_elsewhere") else None

    async def _deliver_forever(self) -> None:
        ready = self._local_ready
        assert ready is not None
        while True:
            await ready.wait()
            ready.clear()
            while self._local:
                group, message = self._local.popleft()
                for member in list(self._members.get(group, {}).values()):
                    try:
                        await member.deliver(message)
                    except Exception:  # one socket's failure must not cost the others
                        logger.exception("delivering %s to a socket failed", message.get("type"))

    async def _send_forever(self) -> None:
        """Carry events to the other processes in their groups, in order."""
        ready = self._remote_ready
        assert ready is not None
        while True:
            await ready.wait()
            ready.clear()
            while self._remote:
                group, message = self._remote.popleft()
                layer = self._remote_layer()
                try:
                    await layer.group_send_elsewhere(
                        group, {**message, GROUP_KEY: group, ORIGIN_KEY: self.here}, self.here
                    )
                except Exception:  # the layer keeps what it could not send (its recovery)
                    logger.exception("sending %s to other processes failed", group)

    async def _receive_forever(self) -> None:
        """Deliver what other processes published to this process's sockets."""
        layer = self._remote_layer()
        while True:
            try:
                message = await layer.receive(self.here)
            except asyncio.CancelledError:
                raise
            except Exception:  # the layer waits for Redis itself; a bug must not stop this
                logger.exception("receiving events from other processes failed")
                await asyncio.sleep(0.25)
                continue
            if message.get(ORIGIN_KEY) == self.here:
                continue  # a replay of this process's own: its sockets had it from memory
            group = message.get(GROUP_KEY)
            if isinstance(group, str) and group in self._members and self._local_ready:
                self._local.append((group, message))
                self._local_ready.set()

    async def _settle_membership(self, group: str) -> None:
        """Make the layer's group hold this process exactly while it has sockets there."""
        layer = self._remote_layer()
        lock = self._group_locks.setdefault(group, asyncio.Lock())
        async with lock:
            wanted = group in self._members
            if wanted and group not in self._joined:
                await layer.group_add(group, self.here)
                self._joined.add(group)
            elif not wanted and group in self._joined:
                self._joined.discard(group)
                await layer.group_discard(group, self.here)
        if group not in self._members and group not in self._joined and not lock.locked():
            self._group_locks.pop(group, None)

    async def _refresh_forever(self) -> None:
        """Tell the layer now and then that this process is alive in its groups: it drops
        members that stop doing so (a process killed without leaving its groups)."""
        layer = self._remote_layer()
        while True:
            await asyncio.sleep(layer.membership_refresh_seconds)
            if not self._joined:
                continue
            try:
                await layer.refresh_groups(sorted(self._joined), self.here)
            except Exception:  # Redis down: its recovery puts the memberships back
                logger.warning("refreshing this process's groups failed", exc_info=True)


hub = Hub()
