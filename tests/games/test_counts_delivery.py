"""The live counts reach a typing player with their next verdict, anyone else on their own
(games.counts_delivery): the bookkeeping alone, then over the room's websocket."""

from __future__ import annotations

import asyncio

import pytest

from games import counts_delivery
from games.counts_delivery import SNAPSHOT_KEY, TYPING_SECONDS, CountsDelivery
from tests.games.ws_helpers import (
    NOT_A_DICTIONARY_WORD,
    collect,
    receive_until,
    start_round,
    submit,
    two_players,
)

SNAPSHOT = {"event_type": "round.counts", "text": '{"type":"round.counts"}', SNAPSHOT_KEY: True}


# ---------------------------------------------------------------- the bookkeeping


def test_counts_go_out_at_once_to_a_socket_whose_player_is_not_typing() -> None:
    delivery = CountsDelivery()
    assert delivery.hold(SNAPSHOT, now=100.0) is False  # never typed
    delivery.typed(100.0)
    assert delivery.hold(SNAPSHOT, now=100.0 + TYPING_SECONDS + 0.1) is False  # stopped
    assert delivery.take() is None


def test_a_typing_player_keeps_only_the_newest_counts_until_taken() -> None:
    delivery = CountsDelivery()
    delivery.typed(100.0)
    older, newer = {**SNAPSHOT, "text": "older"}, {**SNAPSHOT, "text": "newer"}
    assert delivery.hold(older, now=100.5) is True
    assert delivery.hold(newer, now=101.0) is True
    assert delivery.take() is newer
    assert delivery.take() is None  # taken once


def test_counts_with_news_are_never_held_and_replace_what_was() -> None:
    """Long words and a co-op team's new words are not repeated by the next frame: they go
    out at once, and the older counts held before them are dropped (these are newer)."""
    delivery = CountsDelivery()
    delivery.typed(100.0)
    assert delivery.hold(SNAPSHOT, now=100.2) is True
    news = {"event_type": "round.counts", "text": '{"long_words":[]}'}  # no snapshot mark
    assert delivery.hold(news, now=100.4) is False
    assert delivery.take() is None


def test_a_round_change_drops_held_counts() -> None:
    delivery = CountsDelivery()
    delivery.typed(100.0)
    delivery.hold(SNAPSHOT, now=100.1)
    delivery.drop()
    assert delivery.take() is None


# ---------------------------------------------------------------- over the socket


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_sockets")
async def test_a_typing_players_counts_ride_on_their_next_verdict(monkeypatch) -> None:
    """Bob types: the counts his word raised reach Ann (not typing) on their own, and Bob
    only with his next verdict (``counts_event``: the same event, its own server_time)."""
    monkeypatch.setattr(counts_delivery, "HOLD_SECONDS", 30.0)  # only a verdict takes them
    ann, bob = await two_players()
    await start_round(ann, bob)
    assert (await submit(bob.comm, "quiet"))["accepted"] is True
    alone = await receive_until(ann.comm, "round.counts", counts={str(bob.id): 1})
    assert "version" not in alone and isinstance(alone["counted_at"], int)
    await asyncio.sleep(0.2)  # Bob's socket has had the same frame
    assert [m for m in await collect(bob.comm) if m["type"] == "round.counts"] == []
    verdict = await submit(bob.comm, NOT_A_DICTIONARY_WORD)
    assert verdict["verdict"] == "not_in_dictionary"
    riding = verdict["counts_event"]
    assert riding["type"] == "round.counts" and "version" not in riding
    assert riding["counts"] == {str(bob.id): 1}
    assert riding["counted_at"] == alone["counted_at"]
    assert isinstance(riding["server_time"], int)
    later = await submit(bob.comm, "went")  # taken once: this verdict has nothing to carry
    assert later["accepted"] is True and "counts_event" not in later


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_sockets")
async def test_counts_no_verdict_takes_go_out_on_their_own(monkeypatch) -> None:
    """A player who stops typing still gets the counts, at most ``HOLD_SECONDS`` late."""
    monkeypatch.setattr(counts_delivery, "HOLD_SECONDS", 0.3)
    ann, bob = await two_players()
    await start_round(ann, bob)
    assert (await submit(bob.comm, "quiet"))["accepted"] is True
    alone = await receive_until(bob.comm, "round.counts", counts={str(bob.id): 1})
    assert "version" not in alone and isinstance(alone["server_time"], int)
