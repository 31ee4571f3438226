"""In production every per-address limit is one budget for the whole site, kept in Redis
(web.shared_buckets for the token buckets, web.shared_windows for the strict windows):
a second web process does not give an address a second burst. Without Redis (the embedded
default) each process counts in its own memory; while Redis cannot be reached, too.

"Another process" is this one with its memory emptied (``throttle.reset()``): what it
counted in memory is gone, what it counted in Redis is not.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
import redis

from daily import limits as daily_limits
from tests.fake_clock import FakeClock
from web import limits_redis, throttle

CLIENT = "203.0.113.61"


@pytest.fixture(autouse=True)
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeClock]:
    fake = FakeClock()
    monkeypatch.setattr(throttle, "clock", fake)
    monkeypatch.setattr(limits_redis, "wall_clock", fake)
    throttle.reset()
    limits_redis.reset()
    yield fake
    throttle.reset()
    limits_redis.reset()


@pytest.fixture
def shared(settings, redis_url: str, redis_prefix: str) -> str:
    settings.BOGGLE_LIMITS_REDIS_URL = redis_url
    settings.BOGGLE_REDIS_PREFIX = redis_prefix
    return redis_prefix


def taken_across_processes(limit: throttle.Limit, count: int, address: str = CLIENT) -> int:
    """``count`` requests, each in a fresh "process": how many were let through."""
    let_through = 0
    for _ in range(count):
        throttle.reset()
        let_through += throttle.allows(limit, address)
    return let_through


def test_room_creations_are_one_burst_for_every_process(shared: str) -> None:
    """The issue's hole: 40 of 45 creations got through two Daphnes."""
    assert taken_across_processes(throttle.CREATE, 45) == throttle.CREATE.burst


def test_the_shared_bucket_refills_at_the_limits_rate(shared: str, clock: FakeClock) -> None:
    assert taken_across_processes(throttle.JOIN, throttle.JOIN.burst + 5) == throttle.JOIN.burst
    with pytest.raises(throttle.Throttled) as refused:
        throttle.take(throttle.JOIN, CLIENT)
    assert refused.value.retry_after == 1  # a join a second
    clock.now += 2 / throttle.JOIN.per_second
    assert taken_across_processes(throttle.JOIN, 5) == 2


def test_check_counts_nothing_and_sees_other_processes(shared: str) -> None:
    assert taken_across_processes(throttle.CREATE, throttle.CREATE.burst) == throttle.CREATE.burst
    throttle.reset()
    with pytest.raises(throttle.Throttled):
        throttle.check(throttle.CREATE, CLIENT)
    throttle.check(throttle.CREATE, "203.0.113.62")  # another address: its own budget
    assert taken_across_processes(throttle.CREATE, 1, "203.0.113.62") == 1


def test_daily_attempts_are_one_burst_for_every_process(shared: str) -> None:
    """The issue's hole: 24 of 25 daily attempts got through two Daphnes (docs/performance.md, bench/hostile.py: 12)."""
    let_through = 0
    for device in range(25):
        throttle.reset()
        try:
            daily_limits.take_attempt(CLIENT, f"device-{device}")
        except throttle.Throttled:
            continue
        let_through += 1
    assert let_through == daily_limits.DAILY_ADDRESS.burst


def test_keys_live_under_the_sites_prefix_and_expire(shared: str, redis_url: str) -> None:
    throttle.take(throttle.CREATE, CLIENT)
    with redis.Redis.from_url(redis_url) as client:
        keys = [key.decode() for key in client.scan_iter(match=shared + "*")]
        assert keys and all(key.startswith(shared) for key in keys)
        assert all(0 < client.ttl(key) <= 121 for key in keys)  # a full bucket: gone


def test_loopback_and_the_switch_count_nothing(shared: str, settings) -> None:
    assert taken_across_processes(throttle.CREATE, 45, "127.0.0.1") == 45
    settings.BOGGLE_RATE_LIMITS = False
    assert taken_across_processes(throttle.CREATE, 45) == 45


def test_without_redis_each_process_counts_its_own() -> None:
    """The embedded default: one process, counted in memory."""
    assert taken_across_processes(throttle.CREATE, 45) == 45  # every "process" a burst
    throttle.reset()
    statuses = [throttle.allows(throttle.CREATE, CLIENT) for _ in range(45)]
    assert statuses.count(True) == throttle.CREATE.burst


def test_an_unreachable_redis_counts_in_this_process_and_says_so(
    settings, caplog: pytest.LogCaptureFixture
) -> None:
    """An outage never fails a request (no 500, no long wait): each process keeps its own
    budget meanwhile, and the log says why once."""
    settings.BOGGLE_LIMITS_REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    with caplog.at_level(logging.WARNING, logger="web.limits_redis"):
        statuses = [throttle.allows(throttle.CREATE, CLIENT) for _ in range(45)]
    assert statuses.count(True) == throttle.CREATE.burst
    warnings = [r for r in caplog.records if "Redis unreachable" in r.getMessage()]
    assert len(warnings) == 1  # not one a request
