"""``sync`` is limited by the bytes of state it sends, not only by the message count
(web.socket_limits.SyncBudget): a large state asked for again and again is refused."""

from __future__ import annotations

import pytest
from channels.testing import WebsocketCommunicator

from boggle_site.asgi import application
from tests.games.ws_helpers import _open_sockets, ask, connect, create_room, receive
from web import socket_limits

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]


@pytest.fixture
def one_byte_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sync budget of one byte that never refills: the first ``sync`` is answered (the
    bucket is not empty) and charged its full size; every later one is over the budget."""
    monkeypatch.setattr(socket_limits, "SYNC_BYTES_BURST", 1)
    monkeypatch.setattr(socket_limits, "SYNC_BYTES_PER_SECOND", 0.0)


async def test_a_players_sync_is_refused_past_its_byte_budget(one_byte_budget):
    """The second sync is refused rate_limited although only two messages were sent (the
    message limit allows 20 at once); other messages are still answered."""
    ann = await create_room()
    await connect(ann)  # the state sent on connect is not charged
    first = await ask(ann.comm, "sync")
    assert first["type"] == "state"
    second = await ask(ann.comm, "sync")
    assert (second["type"], second["code"], second["request"]) == ("error", "rate_limited", "sync")
    assert (await ask(ann.comm, "ping"))["type"] == "pong"


async def test_a_spectators_sync_is_refused_past_its_byte_budget(one_byte_budget):
    """The table screen's socket, which needs only the room code, has the same budget."""
    ann = await create_room()
    comm = WebsocketCommunicator(application, f"/ws/rooms/{ann.code}/watch/")
    _open_sockets.append(comm)
    assert (await comm.connect())[0]
    assert (await receive(comm))["type"] == "state"
    assert (await ask(comm, "sync"))["type"] == "state"
    refused = await ask(comm, "sync")
    assert (refused["type"], refused["code"]) == ("error", "rate_limited")


def test_the_budget_allows_bursts_then_refills_by_the_byte(monkeypatch) -> None:
    """Answered while the bucket holds anything, then charged in full: a 125 KB state five
    times at once, then refused until enough bytes have come back. The clock stands still
    (a busy machine's pauses would refill it between the syncs)."""
    monkeypatch.setattr(socket_limits.time, "monotonic", lambda: 1000.0)
    budget = socket_limits.SyncBudget()
    state_bytes = 125_000
    answered = 0
    while budget.wait_seconds() == 0.0:
        budget.spend(state_bytes)
        answered += 1
    assert answered == -(-socket_limits.SYNC_BYTES_BURST // state_bytes)  # 5: the last overdraws
    budget.last -= 10.0  # ten seconds later
    assert budget.wait_seconds() == 0.0
