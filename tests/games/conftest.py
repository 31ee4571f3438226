"""Fixtures shared by the websocket tests of the games app (helpers are in ws_helpers)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from games import live_counts
from web import socket_limits, throttle


@pytest.fixture
async def close_sockets() -> AsyncIterator[None]:
    """After the test: close the sockets it opened and forget its rate-limit buckets
    (``ws_helpers.tear_down``). A module whose tests open sockets uses it for every test:
    ``pytestmark = [..., pytest.mark.usefixtures("close_sockets")]``."""
    # Imported here, not at the top: ws_helpers imports boggle_site.asgi, and this file is
    # loaded before tests/conftest.py turns off the photo reader's preloading.
    from tests.games.ws_helpers import tear_down

    yield
    await tear_down()


@pytest.fixture
def no_refill(monkeypatch: pytest.MonkeyPatch) -> None:
    """Buckets that never refill: what is limited does not depend on how fast tests run."""
    frozen = throttle.clock()
    monkeypatch.setattr(throttle, "clock", lambda: frozen)
    monkeypatch.setattr(socket_limits, "FLOOD_REFILL_PER_SECOND", 0.0)


@pytest.fixture
def no_live_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """No live counts: each goes out on the flusher's clock with a version of its own, so
    how many a round sends depends on the machine's speed; a test that reads versions
    counts only the events it caused."""
    monkeypatch.setattr(live_counts, "publish_changed", lambda spread=False: 0)
