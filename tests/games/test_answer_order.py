"""What docs/api.md promises about the order of a socket's answers ("Messages"): every
message but ``submit`` and ``ping`` is answered before the next one is read, so it is
answered after the earlier such messages and before every later message; ``submit`` and
``ping`` are answered side by side, so a refused word or a ``pong`` may overtake an
accepted word still being written."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from games import socket_requests, words
from games.socket_requests import RequestingSocket
from tests.games.ws_helpers import NOT_A_DICTIONARY_WORD, receive, send, start_round, two_players

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]


async def answers_by_request_id(comm: Any, request_ids: list[str]) -> list[str]:
    """The request_ids of the answers, in the order they arrived (events skipped)."""
    order: list[str] = []
    while len(order) < len(request_ids):
        message = await receive(comm)
        if message.get("request_id") in request_ids:
            order.append(message["request_id"])
    return order


async def test_other_messages_are_answered_in_order_before_later_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A slow ``sync`` (its state takes a while to read) is still answered before the
    ``ping``, ``submit`` and ``set_board`` sent after it, and ``set_board`` before the
    ``sync`` after it."""
    ann, _bob = await two_players()
    await start_round(ann)
    original_sync = socket_requests.HANDLERS["sync"]
    slow_ids: set[str] = set()

    async def slow_sync(consumer: RequestingSocket, message: dict) -> dict | None:
        if message.get("request_id") in slow_ids:
            await asyncio.sleep(0.3)  # a database read that takes its time
        return await original_sync(consumer, message)

    monkeypatch.setitem(socket_requests.HANDLERS, "sync", slow_sync)
    slow_ids.update({"sync-1", "sync-2"})
    assert ann.comm is not None
    await send(ann.comm, "sync", request_id="sync-1")
    await send(ann.comm, "ping", request_id="ping")
    await send(ann.comm, "submit", word=NOT_A_DICTIONARY_WORD, request_id="submit")
    await send(ann.comm, "set_board", board="cats qiex dogz went", request_id="set_board")
    await send(ann.comm, "sync", request_id="sync-2")
    await send(ann.comm, "ping", request_id="ping-2")
    order = await answers_by_request_id(
        ann.comm, ["sync-1", "ping", "submit", "set_board", "sync-2", "ping-2"]
    )
    assert order[0] == "sync-1"
    assert order.index("set_board") < order.index("sync-2") < order.index("ping-2")


async def test_a_refused_word_and_a_pong_may_overtake_an_accepted_word(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Why clients match verdicts by request_id: an accepted word waits for its write;
    what comes after it is answered meanwhile."""
    ann, _bob = await two_players()
    await start_round(ann)
    write_may_go = asyncio.Event()
    original_write = words._writes.write

    async def held_write(*args: Any, **kwargs: Any) -> Any:
        await write_may_go.wait()
        return await original_write(*args, **kwargs)

    monkeypatch.setattr(words._writes, "write", held_write)
    assert ann.comm is not None
    await send(ann.comm, "submit", word="quiet", client_id="a1", request_id="accepted")
    await send(ann.comm, "submit", word=NOT_A_DICTIONARY_WORD, request_id="refused")
    await send(ann.comm, "ping", request_id="ping")
    overtaking = await answers_by_request_id(ann.comm, ["refused", "ping"])
    write_may_go.set()
    assert await answers_by_request_id(ann.comm, ["accepted"]) == ["accepted"]
    assert sorted(overtaking) == ["ping", "refused"]
