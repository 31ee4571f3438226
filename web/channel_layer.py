"""The Redis channel layer, made to wait for a free connection and to survive Redis restarts.

channels_redis's default pool raises "Too many connections" as soon as its limit is reached,
so a crowd connecting (or leaving) at once got sockets closed with 1011 and presence left
behind. Here each process holds at most ``max_connections`` to Redis and a burst waits up
to ``pool_timeout`` seconds for a free one.

A Redis restart (or a dropped connection) used to break the websockets: the pool's
connections had no retry at all, so the first command on each stale connection failed
(every socket whose receive hit one was closed with 1011, and so was any socket connecting
then); and as Redis keeps the groups, a restart emptied them, so sockets that stayed open
received nothing more, and events published meanwhile were lost. Now:

- every command is retried with a short backoff (``RETRIES``, ``BACKOFF_*``): a stale
  connection is replaced, a Redis down for a moment is waited for;
- a socket's receive loop never fails because of Redis: it waits and tries again;
- ``group_add`` and ``group_send`` that fail even so do not fail their caller (a socket
  connecting, a round ending): the membership or message is kept here and delivered when
  Redis answers again; while Redis is known to be down they do not even wait for it;
- each process remembers its sockets' groups and the messages it sent lately
  (``_Recovery``); a watcher thread checks Redis every ``CHECK_SECONDS`` and, when Redis
  came back from an outage or restarted (its ``run_id`` changed: its data is gone), puts
  this process's sockets back in their groups, then sends again the messages that may have
  been lost: the ones that failed, and after a restart all those sent since shortly before
  it. Clients drop a room event whose version they already have (docs/api.md), so a
  message delivered twice is harmless. Every process does the same, so after a restart
  every socket is in its groups again within about ``CHECK_SECONDS`` and has every event
  within about ``REPLAY_AFTER_SECONDS[1]`` more.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import threading
import time
from typing import Any

from channels_redis.core import RedisChannelLayer
from redis import asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff, NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)

# What a Redis outage raises (redis-py wraps socket errors in these; BusyLoadingError, while
# a restarted Redis loads its data, is a ConnectionError).
REDIS_ERRORS = (RedisConnectionError, RedisTimeoutError)

# Each command is retried this many times on a connection or timeout error, after pauses
# growing from BACKOFF_BASE_SECONDS to at most BACKOFF_CAP_SECONDS (with jitter): about
# 1.5 s in all before the error reaches the layer (a Redis restart takes well under that).
RETRIES = 6
BACKOFF_BASE_SECONDS = 0.02
BACKOFF_CAP_SECONDS = 0.5
# Opening a connection to a Redis that does not answer fails after this long.
CONNECT_TIMEOUT_SECONDS = 2.0
# A receive loop that could not reach Redis waits this long before trying again.
RECEIVE_RETRY_SECONDS = 0.25
# How often the watcher thread checks Redis, and how long it waits for an answer (seconds).
CHECK_SECONDS = 0.5
CHECK_TIMEOUT_SECONDS = 1.0
# After a repair, the messages that may have been lost are sent again at once (for the
# sockets already back in their groups), then after these pauses (seconds): every process
# has put its sockets back by the first (it sees Redis again within CHECK_SECONDS), and the
# second is for a process that was slow to.
REPLAY_AFTER_SECONDS = (0.0, 0.75, 2.25)
# Messages sent within this long before the last good check are sent again after a restart:
# they may have been waiting in Redis, unread, when it went down.
REPLAY_MARGIN_SECONDS = 1.0
# Sent messages are remembered this long while Redis is well (longer during an outage, up
# to HISTORY_MAX of them).
HISTORY_SECONDS = 10.0
# A process refreshes its memberships in the groups of its sockets this often (web.fanout),
# and a member not refreshed for MEMBERSHIP_STALE_SECONDS is a process that died without
# leaving: nothing is carried to it.
MEMBERSHIP_REFRESH_SECONDS = 30.0
MEMBERSHIP_STALE_SECONDS = 120.0
HISTORY_MAX = 20_000


class PooledRedisChannelLayer(RedisChannelLayer):
    membership_refresh_seconds = MEMBERSHIP_REFRESH_SECONDS

    def __init__(self, *args: Any, pool_timeout: float = 10.0, **kwargs: Any) -> None:
        self.pool_timeout = pool_timeout
        super().__init__(*args, **kwargs)
        self.recovery = _Recovery(self)

    def create_pool(self, index: int) -> aioredis.ConnectionPool:
        host = dict(self.hosts[index])
        address = host.pop("address")
        host.setdefault("socket_connect_timeout", CONNECT_TIMEOUT_SECONDS)
        host.setdefault(
            "retry",
            Retry(
                ExponentialWithJitterBackoff(cap=BACKOFF_CAP_SECONDS, base=BACKOFF_BASE_SECONDS),
                RETRIES,
            ),
        )
        return aioredis.BlockingConnectionPool.from_url(address, timeout=self.pool_timeout, **host)

    # ------------------------------------------------------------ receiving

    async def receive(self, channel: str) -> dict:
        self.recovery.ensure_watching()
        return await super().receive(channel)

    async def _brpop_with_clean(self, index: int, channel: str, timeout: float) -> Any:
        """One blocking read; None (the caller reads again) when Redis cannot be reached,
        after a pause: the socket waits for Redis instead of being closed."""
        try:
            return await super()._brpop_with_clean(index, channel, timeout)
        except REDIS_ERRORS as error:
            self.recovery.failed(error)
            await asyncio.sleep(RECEIVE_RETRY_SECONDS)
            return None

    async def _clean_receive_backup(self, index: int, channel: str) -> None:
        try:
            await super()._clean_receive_backup(index, channel)
        except REDIS_ERRORS as error:  # the message was delivered; Redis forgets the copy
            self.recovery.failed(error)

    # ------------------------------------------------------------ groups

    async def group_add(self, group: str, channel: str) -> None:
        self.recovery.ensure_watching()
        self.recovery.join(group, channel)
        if self.recovery.down:  # added with the others when Redis answers again
            return
        try:
            await super().group_add(group, channel)
        except REDIS_ERRORS as error:
            self.recovery.failed(error)
            logger.warning(
                "channel layer: adding %s to %s failed (%s); done when Redis answers again",
                channel,
                group,
                error,
            )

    async def group_discard(self, group: str, channel: str) -> None:
        self.recovery.leave(group, channel)
        if self.recovery.down:  # a membership left behind only costs a few messages
            return
        try:
            await super().group_discard(group, channel)
        except REDIS_ERRORS as error:  # a membership left behind only costs a few messages
            self.recovery.failed(error)

    async def group_send(self, group: str, message: dict) -> None:
        await self._send_recorded(group, message, None)

    async def group_send_elsewhere(self, group: str, message: dict, here: str) -> None:
        """``group_send`` to a group's members other than ``here`` (the sending process's
        channel, whose sockets had the message from memory: ``web.fanout``): after one
        ZRANGEBYSCORE, nothing more when ``here`` is its only live member, as it nearly
        always is. Members not refreshed for ``MEMBERSHIP_STALE_SECONDS`` are processes
        that died without leaving: not counted. Recorded for replays as ``group_send``."""
        await self._send_recorded(group, message, here)

    async def _send_recorded(self, group: str, message: dict, here: str | None) -> None:
        """Send to the group (but to ``here`` alone), remembered for a replay; a Redis that
        is down or fails only marks the message to be sent again when it answers."""
        self.recovery.ensure_watching()
        entry = self.recovery.record(group, message)
        if self.recovery.down:  # do not wait for a Redis known to be down: sent when back
            entry.failed = True
            return
        try:
            if here is None or await self._has_others(group, here):
                await super().group_send(group, message)
        except REDIS_ERRORS as error:
            entry.failed = True
            self.recovery.failed(error)
            logger.warning(
                "channel layer: sending to %s failed (%s); sent again when Redis answers",
                group,
                error,
            )

    async def _has_others(self, group: str, here: str) -> bool:
        """Whether the group has a live member besides ``here``."""
        connection = self.connection(self.consistent_hash(group))
        live_since = time.time() - MEMBERSHIP_STALE_SECONDS
        members = await connection.zrangebyscore(self._group_key(group), live_since, "+inf")
        return any(member.decode() != here for member in members)

    async def refresh_groups(self, groups: list[str], channel: str) -> None:
        """Mark ``channel`` (a process's) alive in its groups, and drop the members of those
        groups that nobody refreshed for ``MEMBERSHIP_STALE_SECONDS`` (processes that died
        without leaving); one pipeline per Redis."""
        now = time.time()
        by_connection: dict[int, list[str]] = {}
        for group in groups:
            by_connection.setdefault(self.consistent_hash(group), []).append(group)
        for index, some in by_connection.items():
            pipe = self.connection(index).pipeline(transaction=False)
            for group in some:
                key = self._group_key(group)
                pipe.zadd(key, {channel: now})
                pipe.zremrangebyscore(key, 0, now - MEMBERSHIP_STALE_SECONDS)
                pipe.expire(key, self.group_expiry)
            await pipe.execute()

    async def raw_group_send(self, group: str, message: dict) -> None:
        """channels_redis's group_send: no record, errors raised (the watcher's replays)."""
        await super().group_send(group, message)

    async def rejoin(self, group: str, channels: list[str]) -> None:
        """Put channels back in a group, at once (group_add's ZADD and EXPIRE, for many)."""
        connection = self.connection(self.consistent_hash(group))
        key = self._group_key(group)
        now = time.time()
        await connection.zadd(key, dict.fromkeys(channels, now))
        await connection.expire(key, self.group_expiry)


class _Sent:
    """A message this process sent to a group, remembered for a replay."""

    __slots__ = ("at", "failed", "group", "message")

    def __init__(self, group: str, message: dict) -> None:
        self.at = time.monotonic()
        self.group = group
        self.message = message
        self.failed = False


class _Recovery:
    """One process's memory of its sockets' groups and of its recent messages, and the
    watcher thread that repairs both after a Redis outage or restart.

    Used from several threads (Daphne's event loop, the threads that send events from sync
    code, the watcher), hence the lock; a forked child (a Celery pool process) starts
    afresh with a watcher of its own.
    """

    def __init__(self, layer: PooledRedisChannelLayer) -> None:
        self.layer = layer
        self.lock = threading.Lock()
        self.groups: dict[str, set[str]] = {}
        self.sent: collections.deque[_Sent] = collections.deque(maxlen=HISTORY_MAX)
        # Failures seen since the last repair (any thread), and when Redis last answered
        # with the run_id it still has.
        self.failures = 0
        self.last_good = time.monotonic()
        self.run_ids: dict[int, str] = {}
        # Redis is known to be unreachable (a command failed after its retries, or the
        # watcher's check did): groups are changed and messages sent here only, and go to
        # Redis when the watcher sees it again. Senders (a round's end, a socket
        # connecting) do not wait for it meanwhile.
        self.down = False
        self.pid: int | None = None
        self.thread: threading.Thread | None = None
        self.stopping = threading.Event()

    # ---------------------------------------------------------------- bookkeeping

    def ensure_watching(self) -> None:
        if self.pid == os.getpid() and self.thread is not None and self.thread.is_alive():
            return
        if self.pid != os.getpid():
            # First use in this process, or a forked child: its parent's sockets, messages
            # and watcher are not its own (and a lock copied while held would stay held).
            self.lock = threading.Lock()
            self.groups = {}
            self.sent = collections.deque(maxlen=HISTORY_MAX)
            self.failures = 0
            self.run_ids = {}
            self.down = False
            self.thread = None
            self.pid = os.getpid()
        with self.lock:
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(
                    target=self._run, name="channel-layer-watcher", daemon=True
                )
                self.thread.start()

    def join(self, group: str, channel: str) -> None:
        if not self._local(channel):
            return
        with self.lock:
            self.groups.setdefault(group, set()).add(channel)

    def leave(self, group: str, channel: str) -> None:
        with self.lock:
            channels = self.groups.get(group)
            if channels is not None:
                channels.discard(channel)
                if not channels:
                    del self.groups[group]

    def record(self, group: str, message: dict) -> _Sent:
        entry = _Sent(group, message)
        with self.lock:
            self.sent.append(entry)
            if self.failures == 0:
                cutoff = entry.at - HISTORY_SECONDS
                while self.sent and self.sent[0].at < cutoff and not self.sent[0].failed:
                    self.sent.popleft()
        return entry

    def failed(self, error: Exception) -> None:
        with self.lock:
            self.failures += 1
            self.down = True
        logger.debug("channel layer: Redis error: %s", error)

    def _local(self, channel: str) -> bool:
        return "!" in channel and self.layer.client_prefix in channel

    # ---------------------------------------------------------------- the watcher

    def _run(self) -> None:
        asyncio.run(self._watch())

    def stop(self) -> None:
        """Stop the watcher (tests; a process's watcher otherwise lives as long as it)."""
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(timeout=10)

    async def _watch(self) -> None:
        # The checks use connections of their own, without retries: one check is one try,
        # so Redis's return is seen within CHECK_SECONDS.
        probes = [
            aioredis.Redis.from_url(
                host["address"],
                socket_connect_timeout=CHECK_TIMEOUT_SECONDS,
                socket_timeout=CHECK_TIMEOUT_SECONDS,
                retry=Retry(NoBackoff(), 0),
            )
            for host in self.layer.hosts
        ]
        try:
            while not self.stopping.is_set():
                await asyncio.sleep(CHECK_SECONDS)
                try:
                    await self._check(probes)
                except Exception:  # the watcher must outlive any surprise
                    logger.exception("channel layer: watcher check failed")
        finally:
            for probe in probes:
                await probe.aclose()

    async def _check(self, probes: list[aioredis.Redis]) -> None:
        with self.lock:
            failures = self.failures
        try:
            run_ids = {
                i: str(
                    (await asyncio.wait_for(probe.info("server"), CHECK_TIMEOUT_SECONDS))["run_id"]
                )
                for i, probe in enumerate(probes)
            }
        except (*REDIS_ERRORS, TimeoutError) as error:
            self.failed(error)
            return
        self.down = False
        # A new run_id: Redis restarted and lost its data. Failures before Redis was ever
        # seen (no run_id known) may have hidden a restart too.
        restarted = any(old != run_ids[i] for i, old in self.run_ids.items()) or (
            failures > 0 and not self.run_ids
        )
        self.run_ids = run_ids
        if not restarted and failures == 0:
            self.last_good = time.monotonic()
            return
        since = self.last_good - REPLAY_MARGIN_SECONDS
        if restarted:
            logger.warning("channel layer: Redis restarted; restoring groups, resending events")
        else:
            logger.info("channel layer: Redis answers again; resending what failed")
        try:
            await self._rejoin()
            for delay in REPLAY_AFTER_SECONDS:
                await asyncio.sleep(delay)
                await self._replay(since if restarted else None)
        except REDIS_ERRORS as error:  # down again: the next check starts over
            self.failed(error)
            return
        with self.lock:
            self.failures -= failures
        self.last_good = time.monotonic()

    async def _rejoin(self) -> None:
        """Put this process's sockets back in their groups (ZADD: harmless if still in)."""
        with self.lock:
            groups = [(group, list(channels)) for group, channels in self.groups.items()]
        for group, channels in groups:
            await self.layer.rejoin(group, channels)
        if groups:
            count = sum(len(channels) for _, channels in groups)
            logger.info("channel layer: %d memberships restored in %d groups", count, len(groups))

    async def _replay(self, since: float | None) -> None:
        """Send again the messages that failed, and with ``since`` every one sent after it."""
        with self.lock:
            entries = [e for e in self.sent if e.failed or (since is not None and e.at >= since)]
        for entry in entries:
            await self.layer.raw_group_send(entry.group, entry.message)
            entry.failed = False
        if entries:
            logger.info("channel layer: %d messages sent again", len(entries))
