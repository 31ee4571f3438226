"""A throttle on failed admin logins, per client address and per username.

After ``FAILURE_LIMIT`` failed logins within ``WINDOW_SECONDS`` from one address, or for one
username from any address, further attempts are refused (429, with a message) without
checking the password, until the oldest of those failures is ``WINDOW_SECONDS`` old; refused
attempts do not count, so the block ends on time. A successful login clears its username's
failures (not its address's).

The log is in memory, per web process: with N Daphne processes behind the proxy a guesser
gets at most N x FAILURE_LIMIT tries per window, and a restart forgets. The address is the
API's (web.throttle: ``BOGGLE_TRUSTED_PROXIES``, IPv6 per /64); loopback is not
counted per address (an undeclared proxy would otherwise make one guesser lock every
client out), only per username.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.http import HttpRequest, HttpResponse

from web.throttle import bucket_key, client_address

FAILURE_LIMIT = 5
WINDOW_SECONDS = 300.0
# Keys kept at most; expired ones are dropped first, then the oldest (a flood of made-up
# usernames cannot grow the process without bound).
MAX_KEYS = 10_000
THROTTLED = "throttled"


class FailureLog:
    """Times of recent failures per key, thread-safe (Daphne runs sync views in threads)."""

    def __init__(
        self,
        limit: int = FAILURE_LIMIT,
        window: float = WINDOW_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def retry_after(self, keys: list[str]) -> float:
        """Seconds until any of ``keys`` may try again; 0 when none is blocked."""
        now = self.clock()
        wait = 0.0
        with self._lock:
            for key in keys:
                times = self._recent(key, now)
                if len(times) >= self.limit:
                    wait = max(wait, times[-self.limit] + self.window - now)
        return wait

    def fail(self, keys: list[str]) -> None:
        now = self.clock()
        with self._lock:
            if len(self._failures) >= MAX_KEYS:
                self._prune(now)
            for key in keys:
                times = self._recent(key, now)
                times.append(now)
                while len(times) > self.limit:  # older ones no longer decide anything
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


FAILURES = FailureLog()


def throttle_keys(request: HttpRequest | None, username: str | None) -> list[str]:
    """The username's key first, then the address's (none for loopback)."""
    keys = [f"username:{(username or '').strip().casefold()}"]
    address = bucket_key(client_address(request)) if request is not None else None
    if address is not None:
        keys.append(f"address:{address}")
    return keys


class ThrottledAdminAuthenticationForm(AdminAuthenticationForm):
    """The admin's login form, refusing without a password check while throttled and
    counting every failure (wrong password, unknown user, not staff)."""

    def clean(self) -> dict[str, Any]:
        keys = throttle_keys(self.request, self.cleaned_data.get("username"))
        wait = FAILURES.retry_after(keys)
        if wait > 0:
            minutes = max(1, math.ceil(wait / 60))
            raise ValidationError(
                "Too many failed logins from this address or for this username: "
                f"try again in {minutes} minute{'s' if minutes > 1 else ''}.",
                code=THROTTLED,
            )
        try:
            cleaned = super().clean()
        except ValidationError:
            FAILURES.fail(keys)
            raise
        FAILURES.clear(keys[0])  # the username's: a success says nothing of the address
        return cleaned


def login(request: HttpRequest) -> HttpResponse:
    """The admin site's login view (with ``ThrottledAdminAuthenticationForm`` as its
    ``login_form``, see urls.py), answering 429 instead of 200 when it refused."""
    response = admin.site.login(request)
    form = (getattr(response, "context_data", None) or {}).get("form")
    if form is not None and form.is_bound and form.has_error(NON_FIELD_ERRORS, THROTTLED):
        response.status_code = 429
    return response
