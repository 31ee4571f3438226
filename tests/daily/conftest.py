"""Fixtures of the daily board's tests: a fixed date, no sockets, fresh rate limits."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest

from daily import boards
from games import events
from tests.daily.helpers import DAY
from web import throttle


@pytest.fixture(autouse=True)
def fixed_day(monkeypatch: pytest.MonkeyPatch) -> list[date]:
    """Today is DAY until a test changes ``fixed_day[0]``."""
    today = [DAY]
    monkeypatch.setattr(boards, "today", lambda: today[0])
    return today


@pytest.fixture(autouse=True)
def fixed_board_secret(settings: Any) -> None:
    """DAY's board is the same on every machine: unset, the secret is random per checkout
    (var/daily_secret), and the fair-play tests judge what a script finds on one board."""
    settings.BOGGLE_DAILY_SECRET = "tests-of-the-daily-board"


@pytest.fixture(autouse=True)
def no_sockets(monkeypatch: pytest.MonkeyPatch) -> None:
    """Events go nowhere (sync tests have no channel layer listeners)."""
    monkeypatch.setattr(events, "_send_on_commit", lambda *args: None)
    monkeypatch.setattr(events, "_deliver", lambda *args: None)


@pytest.fixture(autouse=True)
def fresh_rate_limits() -> Iterator[None]:
    """Each test starts with full buckets (web.throttle keeps them per process)."""
    throttle.reset()
    yield
    throttle.reset()
