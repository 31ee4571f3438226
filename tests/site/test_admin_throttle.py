"""Failed admin logins are throttled per client address and per username: after
FAILURE_LIMIT failures within WINDOW_SECONDS, further attempts from that address (or, for
the username, from the addresses that failed at it) are refused, even with the right
password, until the window has passed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.fake_clock import FakeClock
from web import admin_throttle
from web.admin_throttle import FAILURE_LIMIT, WINDOW_SECONDS

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"


@pytest.fixture(autouse=True)
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeClock]:
    """A fresh, empty failure log on a clock the test moves."""
    fake = FakeClock()
    monkeypatch.setattr(admin_throttle, "FAILURES", admin_throttle.FailureLog(clock=fake))
    yield fake


@pytest.fixture(autouse=True)
def staff(settings) -> None:
    # A fast hasher: these tests make dozens of login attempts.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    get_user_model().objects.create_superuser("boss", "boss@example.org", PASSWORD)
    get_user_model().objects.create_superuser("deputy", "deputy@example.org", PASSWORD)


def attempt(username: str, password: str, address: str = "203.0.113.7") -> Any:
    return Client(REMOTE_ADDR=address).post(
        "/admin/login/?next=/admin/", {"username": username, "password": password}
    )


def logged_in(response: Any) -> bool:
    return response.status_code == 302 and response["Location"] == "/admin/"


def refused(response: Any) -> bool:
    return response.status_code == 429 and "Too many failed logins" in response.content.decode()


def test_the_right_password_logs_in() -> None:
    assert logged_in(attempt("boss", PASSWORD))


def test_after_the_limit_even_the_right_password_is_refused() -> None:
    for _ in range(FAILURE_LIMIT):
        response = attempt("boss", "wrong")
        assert response.status_code == 200 and not refused(response)
    response = attempt("boss", PASSWORD)
    assert refused(response)
    assert "_auth_user_id" not in response.client.session


def test_failures_below_the_limit_do_not_block() -> None:
    for _ in range(FAILURE_LIMIT - 1):
        attempt("boss", "wrong")
    assert logged_in(attempt("boss", PASSWORD))


def test_a_username_is_throttled_from_every_address_that_failed_at_it() -> None:
    """An address that has not failed is never refused (issue 48: anyone could lock staff
    out); tests/site/test_admin_lockout.py has the rest."""
    for n in range(FAILURE_LIMIT):
        attempt("boss", "wrong", address=f"198.51.100.{n}")
    assert refused(attempt("boss", PASSWORD, address="198.51.100.0"))
    assert logged_in(attempt("boss", PASSWORD, address="192.0.2.99"))
    assert logged_in(attempt("deputy", PASSWORD, address="198.51.100.1"))


def test_an_address_is_throttled_for_every_username() -> None:
    for n in range(FAILURE_LIMIT):
        attempt(f"guess{n}", "wrong")
    assert refused(attempt("deputy", PASSWORD))
    assert logged_in(attempt("deputy", PASSWORD, address="192.0.2.99"))


def test_the_username_is_matched_whatever_its_case() -> None:
    for n in range(FAILURE_LIMIT):
        attempt("BOSS", "wrong", address=f"198.51.100.{n}")
    assert refused(attempt("boss", PASSWORD, address="198.51.100.1"))


def test_logins_work_again_once_the_window_has_passed(clock: FakeClock) -> None:
    for _ in range(FAILURE_LIMIT):
        attempt("boss", "wrong")
    clock.now += WINDOW_SECONDS - 1
    assert refused(attempt("boss", PASSWORD))
    clock.now += 2
    assert logged_in(attempt("boss", PASSWORD))


def test_refused_attempts_do_not_extend_the_block(clock: FakeClock) -> None:
    for _ in range(FAILURE_LIMIT):
        attempt("boss", "wrong")
    for _ in range(10):
        clock.now += WINDOW_SECONDS / 20
        assert refused(attempt("boss", "wrong"))
    clock.now += WINDOW_SECONDS / 2 + 1
    assert logged_in(attempt("boss", PASSWORD))


def test_a_thirty_guess_burst_gets_only_the_limit_of_tries() -> None:
    """The reported attack: 30 wrong passwords in seconds, then the right one."""
    refusals = sum(refused(attempt("boss", f"guess{n}")) for n in range(30))
    assert refusals == 30 - FAILURE_LIMIT
    assert refused(attempt("boss", PASSWORD))


def test_loopback_is_throttled_per_username_only() -> None:
    """A proxy not declared in BOGGLE_TRUSTED_PROXIES shows every client as loopback:
    one guesser must not lock every staff member out."""
    for n in range(FAILURE_LIMIT):
        attempt(f"guess{n}", "wrong", address="127.0.0.1")
    assert logged_in(attempt("deputy", PASSWORD, address="127.0.0.1"))


def test_behind_a_declared_proxy_the_forwarded_address_counts(settings) -> None:
    settings.BOGGLE_TRUSTED_PROXIES = ["127.0.0.1/32"]
    for n in range(FAILURE_LIMIT):
        Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.9").post(
            "/admin/login/", {"username": f"guess{n}", "password": "wrong"}
        )
    blocked = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.9").post(
        "/admin/login/", {"username": "deputy", "password": PASSWORD}
    )
    assert refused(blocked)
    assert logged_in(attempt("deputy", PASSWORD, address="127.0.0.1"))
