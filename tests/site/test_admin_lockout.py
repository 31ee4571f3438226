"""Nobody can lock staff out of /admin/ (issue 48, hole 6): failed logins are counted per
account and address, and a lockout never refuses the right password from an address that
has not failed. In production the counts are in Redis, one for every web process."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.fake_clock import FakeClock
from web import admin_throttle, limits_redis
from web.admin_throttle import ACCOUNT_FAILURE_LIMIT, FAILURE_LIMIT, WINDOW_SECONDS

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"


@pytest.fixture(autouse=True)
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeClock]:
    """A fresh, empty failure log on a clock the test moves (in memory and in Redis)."""
    fake = FakeClock()
    monkeypatch.setattr(admin_throttle, "FAILURES", admin_throttle.FailureLog(clock=fake))
    monkeypatch.setattr(limits_redis, "wall_clock", fake)
    limits_redis.reset()
    yield fake
    limits_redis.reset()


@pytest.fixture(autouse=True)
def staff(settings) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    get_user_model().objects.create_superuser("boss", "boss@example.org", PASSWORD)


@pytest.fixture
def shared(settings, redis_url: str, redis_prefix: str) -> str:
    settings.BOGGLE_LIMITS_REDIS_URL = redis_url
    settings.BOGGLE_REDIS_PREFIX = redis_prefix
    return redis_prefix


def attempt(password: str, address: str, username: str = "boss") -> Any:
    return Client(REMOTE_ADDR=address).post(
        "/admin/login/?next=/admin/", {"username": username, "password": password}
    )


def logged_in(response: Any) -> bool:
    return response.status_code == 302 and response["Location"] == "/admin/"


def refused(response: Any) -> bool:
    return response.status_code == 429 and "Too many failed logins" in response.content.decode()


def test_wrong_passwords_from_six_addresses_do_not_lock_out_a_seventh() -> None:
    """The issue's attack: six wrong passwords from six addresses blocked the right one
    from every address for 5 minutes."""
    for n in range(6):
        assert not refused(attempt("wrong", f"198.51.100.{n}"))
    assert logged_in(attempt(PASSWORD, "192.0.2.99"))


def test_one_wrong_password_a_minute_never_locks_out_an_address_that_has_not_failed(
    clock: FakeClock,
) -> None:
    for minute in range(15):
        attempt("wrong", f"198.51.100.{minute}")
        clock.now += 60
        assert logged_in(attempt(PASSWORD, f"192.0.2.{minute}")), minute


def test_an_account_under_attack_refuses_the_addresses_that_failed_at_it() -> None:
    """Past ACCOUNT_FAILURE_LIMIT failures at the account, an address that failed at it gets
    no more tries (a botnet gets one each), even with the right password."""
    for n in range(ACCOUNT_FAILURE_LIMIT):
        attempt("wrong", f"198.51.100.{n}")
    assert refused(attempt(PASSWORD, "198.51.100.0"))
    assert refused(attempt("another guess", "198.51.100.1"))
    assert logged_in(attempt(PASSWORD, "192.0.2.99"))


def test_below_the_accounts_limit_a_failed_address_may_still_log_in() -> None:
    for n in range(ACCOUNT_FAILURE_LIMIT - 1):
        attempt("wrong", f"198.51.100.{n}")
    assert logged_in(attempt(PASSWORD, "198.51.100.0"))


def test_the_account_is_matched_whatever_its_case() -> None:
    for n in range(ACCOUNT_FAILURE_LIMIT):
        attempt("wrong", f"198.51.100.{n}", username="BOSS" if n % 2 else "Boss")
    assert refused(attempt(PASSWORD, "198.51.100.1"))
    assert logged_in(attempt(PASSWORD, "192.0.2.99"))


def test_one_address_is_still_limited_to_its_failures(clock: FakeClock) -> None:
    for _ in range(FAILURE_LIMIT):
        attempt("wrong", "198.51.100.7")
    assert refused(attempt(PASSWORD, "198.51.100.7"))
    assert logged_in(attempt(PASSWORD, "192.0.2.99"))
    clock.now += WINDOW_SECONDS + 1
    assert logged_in(attempt(PASSWORD, "198.51.100.7"))


def test_failures_are_counted_once_for_every_web_process(
    shared: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Production: another process (its memory empty) refuses an address that failed
    FAILURE_LIMIT times through this one, and still lets a fresh address in."""
    for n in range(FAILURE_LIMIT):
        attempt("wrong", "198.51.100.7", username=f"guess{n}")
    monkeypatch.setattr(admin_throttle, "FAILURES", admin_throttle.FailureLog())
    assert refused(attempt(PASSWORD, "198.51.100.7"))
    assert logged_in(attempt(PASSWORD, "192.0.2.99"))


def test_an_unreachable_redis_falls_back_to_this_process(settings) -> None:
    settings.BOGGLE_LIMITS_REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    for _ in range(FAILURE_LIMIT):
        assert attempt("wrong", "198.51.100.7").status_code == 200
    assert refused(attempt(PASSWORD, "198.51.100.7"))
    assert logged_in(attempt(PASSWORD, "192.0.2.99"))
