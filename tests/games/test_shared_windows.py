"""The unknown-room-code budget stays strict under parallel guesses, and in production is
one budget for every web process (web.shared_windows, kept in Redis)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from games import access
from games.exceptions import RoomNotFound
from tests.fake_clock import FakeClock
from web import limits_redis, throttle

GUESSER = "203.0.113.77"
BUDGET = throttle.ROOM_MISS.count


@pytest.fixture(autouse=True)
def clock(monkeypatch) -> Iterator[FakeClock]:
    fake = FakeClock()
    monkeypatch.setattr(throttle, "clock", fake)
    monkeypatch.setattr(limits_redis, "wall_clock", fake)
    throttle.reset()
    yield fake
    throttle.reset()


@pytest.fixture
def shared(settings, redis_url: str, redis_prefix: str) -> None:
    settings.BOGGLE_LIMITS_REDIS_URL = redis_url
    settings.BOGGLE_REDIS_PREFIX = redis_prefix


@pytest.fixture
def no_rooms(monkeypatch) -> None:
    """Every code is unknown (no database needed)."""

    def miss(code: str):
        raise RoomNotFound("no such room")

    monkeypatch.setattr(access.checks, "check_room", miss)


def guess(code: str = "nosuchroom") -> str:
    """What one look-up from the guesser's address answers: missed, refused or found."""
    try:
        access.find_room_from(code, GUESSER)
    except RoomNotFound:
        return "missed"
    except throttle.Throttled:
        return "refused"
    return "found"


def test_parallel_guesses_cannot_overrun_the_budget(monkeypatch) -> None:
    """Forty look-ups all in flight at once: a check made before looking and a count made
    after would let all forty miss; a slot taken before looking lets the budget through."""
    parallel = 2 * BUDGET
    state = threading.Condition()
    looking = 0
    answered = 0

    def slow_miss(code: str):
        nonlocal looking
        with state:
            looking += 1
            state.notify_all()
            # Every look-up waits until all forty were either let in or refused.
            state.wait_for(lambda: looking + answered >= parallel, timeout=30)
        raise RoomNotFound("no such room")

    monkeypatch.setattr(access.checks, "check_room", slow_miss)

    def one(_: int) -> str:
        nonlocal answered
        result = guess()
        if result == "refused":
            with state:
                answered += 1
                state.notify_all()
        return result

    with ThreadPoolExecutor(parallel) as pool:
        results = list(pool.map(one, range(parallel)))
    assert results.count("missed") == BUDGET
    assert results.count("refused") == parallel - BUDGET


def test_a_found_room_gives_its_slot_back(monkeypatch) -> None:
    monkeypatch.setattr(access.checks, "check_room", lambda code: object())
    assert all(guess() == "found" for _ in range(3 * BUDGET))


def test_every_process_shares_one_budget_in_redis(shared, no_rooms, clock: FakeClock) -> None:
    """Misses counted by one process (its memory then forgotten, as another process's
    would be empty) refuse the next look-up anywhere; a minute later they have left."""
    for _ in range(BUDGET):
        clock.now += 1
        assert guess() == "missed"
    throttle.reset()  # another Daphne: nothing counted in its own memory
    with pytest.raises(throttle.Throttled) as refused:
        access.find_room_from("nosuchroom", GUESSER)
    assert refused.value.retry_after == 60 - BUDGET + 1
    clock.now += 60 - BUDGET + 1  # the first miss has left the window
    assert guess() == "missed"
    assert guess() == "refused"
    assert throttle.tracked() == 0  # nothing was kept in this process


def test_an_unreachable_redis_counts_in_this_process(settings, no_rooms) -> None:
    """An outage never fails a look-up: each process keeps its own budget meanwhile."""
    settings.BOGGLE_LIMITS_REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    results = [guess() for _ in range(BUDGET + 3)]
    assert results == ["missed"] * BUDGET + ["refused"] * 3
