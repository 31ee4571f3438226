"""A throttle on failed logins (the admin's, and players' accounts: profiles.accounts), per
address and per account, that nobody can use to lock staff or players out.

Failures within ``WINDOW_SECONDS`` are counted per client address (any account), per
account (any address) and per account and address. An attempt is refused (429, with a
message) without checking the password while

- its address failed ``FAILURE_LIMIT`` times (at any accounts): one guesser's budget; or
- its account failed ``ACCOUNT_FAILURE_LIMIT`` times (from any addresses) and its address
  is one of those that failed at it: a guessing botnet gets one try per address.

So a lockout never refuses the right password from an address that has not failed: six
wrong passwords from six addresses (issue 48) lock out those six, not the staff member at
a seventh. Refused attempts do not count, so a block ends on time. A successful login clears
its account-and-address failures (not the address's, not the account's).

In production (Redis configured) the failures are kept in Redis (``web.shared_windows``),
one count for every web process; the embedded default, and any process while Redis cannot
be reached, keeps them in memory (``FailureLog``), which a restart forgets.

The address is the API's (web.throttle: ``BOGGLE_TRUSTED_PROXIES``, IPv6 per /64).
Loopback is not counted per address (an undeclared proxy would otherwise make one guesser
lock every client out of every account), only as one address of an account under attack.
"""

from __future__ import annotations

import math
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.http import HttpRequest, HttpResponse
from django.utils.translation import ngettext

from web import limits_redis, shared_windows
from web.throttle import bucket_key, client_address

FAILURE_LIMIT = 5  # per address
ACCOUNT_FAILURE_LIMIT = 5  # per account, before the addresses that failed at it are refused
WINDOW_SECONDS = 300.0
# Failure times kept per key: older ones no longer decide anything.
KEEP = max(FAILURE_LIMIT, ACCOUNT_FAILURE_LIMIT)
# Keys kept in memory at most; expired ones are dropped first, then the oldest (a flood of
# made-up usernames cannot grow the process without bound).
MAX_KEYS = 10_000
THROTTLED = "throttled"
# Loopback's name in the account-and-address keys (see the docstring).
LOOPBACK = "loopback"
SHARED_WINDOW = "admin_login"


class Failures(Protocol):
    def now(self) -> float: ...

    def times(self, key: str) -> list[float]: ...

    def fail(self, keys: list[str]) -> None: ...

    def clear(self, key: str) -> None: ...


class FailureLog:
    """Times of recent failures per key in this process, thread-safe (Daphne runs sync views
    in threads)."""

    def __init__(
        self, window: float = WINDOW_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.window = window
        self.clock = clock
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def now(self) -> float:
        return self.clock()

    def times(self, key: str) -> list[float]:
        with self._lock:
            return list(self._recent(key, self.clock()))

    def fail(self, keys: list[str]) -> None:
        now = self.clock()
        with self._lock:
            if len(self._failures) >= MAX_KEYS:
                self._prune(now)
            for key in keys:
                times = self._recent(key, now)
                times.append(now)
                while len(times) > KEEP:
                    times.popleft()
                self._failures[key] = times

    def clear(self, key: str) -> None:
        with self._lock:
            self._failures.pop(key, None)

    def _recent(self, key: str, now: float) -> deque[float]:
        times = self._failures.get(key, deque())
        while times and times[0] <= now - self.window:
            times.popleft()
        return times

    def _prune(self, now: float) -> None:
        for key in [k for k, t in self._failures.items() if not t or t[-1] <= now - self.window]:
            del self._failures[key]
        while len(self._failures) >= MAX_KEYS:  # dicts keep insertion order: oldest first
            del self._failures[next(iter(self._failures))]


class SharedFailureLog:
    """The same in Redis, for every web process; errors are ``limits_redis.Unavailable``."""

    def now(self) -> float:
        return limits_redis.wall_clock()

    def times(self, key: str) -> list[float]:
        return shared_windows.times(SHARED_WINDOW, key, WINDOW_SECONDS)

    def fail(self, keys: list[str]) -> None:
        for key in keys:
            shared_windows.add(SHARED_WINDOW, key, uuid.uuid4().hex, WINDOW_SECONDS, KEEP)

    def clear(self, key: str) -> None:
        shared_windows.clear(SHARED_WINDOW, key)


FAILURES = FailureLog()
SHARED = SharedFailureLog()


def _logs() -> list[Failures]:
    """Where failures are kept, best first: Redis in production, then this process."""
    return [SHARED, FAILURES] if limits_redis.configured() else [FAILURES]


class Keys:
    """The keys one attempt is counted under."""

    def __init__(self, request: HttpRequest | None, username: str | None) -> None:
        account = (username or "").strip().casefold()
        address = bucket_key(client_address(request)) if request is not None else None
        self.account = f"account:{account}"
        self.address = f"address:{address}" if address is not None else None
        self.pair = f"pair:{address or LOOPBACK}|{account}"  # no address holds a "|"

    def all(self) -> list[str]:
        return [self.account, self.pair, *([self.address] if self.address else [])]


def _wait(log: Failures, keys: Keys) -> float:
    """Seconds until the attempt may be made; 0 when it may now."""
    now = log.now()
    wait = 0.0
    if keys.address is not None:
        times = log.times(keys.address)
        if len(times) >= FAILURE_LIMIT:
            wait = times[-FAILURE_LIMIT] + WINDOW_SECONDS - now
    account = log.times(keys.account)
    if len(account) >= ACCOUNT_FAILURE_LIMIT:
        pair = log.times(keys.pair)
        if pair:  # this address failed at the account: refused while both hold
            until = min(account[-ACCOUNT_FAILURE_LIMIT], pair[-1]) + WINDOW_SECONDS - now
            wait = max(wait, until)
    return max(0.0, wait)


def _counted(action: Callable[[Failures], Any]) -> Any:
    """``action`` on the first log that answers."""
    logs = _logs()
    for log in logs[:-1]:
        try:
            return action(log)
        except limits_redis.Unavailable:
            continue  # web.limits_redis logs the outage
    return action(logs[-1])


class ThrottledLogin:
    """A login form's ``clean`` (mixed in before an ``AuthenticationForm``), refusing without
    a password check while throttled and counting every failure (wrong password, unknown
    user, not staff on the admin's form)."""

    request: HttpRequest | None
    cleaned_data: dict[str, Any]

    def clean(self) -> dict[str, Any]:
        keys = Keys(self.request, self.cleaned_data.get("username"))
        wait = _counted(lambda log: _wait(log, keys))
        if wait > 0:
            minutes = max(1, math.ceil(wait / 60))
            raise ValidationError(
                ngettext(
                    "Too many failed logins from this address or for this account: "
                    "try again in %(minutes)s minute.",
                    "Too many failed logins from this address or for this account: "
                    "try again in %(minutes)s minutes.",
                    minutes,
                )
                % {"minutes": minutes},
                code=THROTTLED,
            )
        try:
            cleaned = super().clean()  # type: ignore[misc]
        except ValidationError:
            _counted(lambda log: log.fail(keys.all()))
            raise
        _counted(lambda log: log.clear(keys.pair))  # not the address's, not the account's
        return cleaned


class ThrottledAdminAuthenticationForm(ThrottledLogin, AdminAuthenticationForm):
    """The admin's login form, throttled."""


def login(request: HttpRequest) -> HttpResponse:
    """The admin site's login view (with ``ThrottledAdminAuthenticationForm`` as its
    ``login_form``, see urls.py), answering 429 instead of 200 when it refused."""
    response = admin.site.login(request)
    form = (getattr(response, "context_data", None) or {}).get("form")
    if form is not None and form.is_bound and form.has_error(NON_FIELD_ERRORS, THROTTLED):
        response.status_code = 429
    return response
