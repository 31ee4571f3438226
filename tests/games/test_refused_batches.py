"""Refused entries wait in memory and are written in batches (``games.live``): a batch that
fails never costs another player's entries. An entry the database cannot store (a lone
surrogate, NUL on PostgreSQL) is set aside and logged, the others stored; a database away
for a moment (a restart, a lock) costs nothing, the batch waits in the queue. The entries
are injected below the edge check on purpose: this is the write path's own guarantee.
(tests/games/test_refused_batches_postgres.py runs the poisoned batch on PostgreSQL.)"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.db import OperationalError, connection
from django.db.models.query import QuerySet
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import live, rooms, rounds, state
from games.models import Player, Round, Submission
from tests.games.test_rounds_and_words import make_room, running_round
from tests.games.words_helpers import submit_word
from tests.games.ws_helpers import BOARD

pytestmark = pytest.mark.django_db

BOBS_REFUSALS = ["xyzzyq", "zzzz", "qqqq", "cacx", "dgdg"]
LONE_SURROGATE = "e\ud800"


@pytest.fixture(autouse=True)
def fresh_process():
    live.clear()
    yield
    live.clear()


def bob_refuses_five(bob: Player) -> live.LiveRound:
    for n, entry in enumerate(BOBS_REFUSALS):
        assert not submit_word(bob, entry, f"bob-{n}").accepted
    found = live.cached(bob.room_id)
    assert found is not None
    return found


def refused_words(player: Player, round_: Round) -> list[str]:
    return list(
        Submission.objects.filter(round=round_, player=player)
        .exclude(verdict="accepted")
        .values_list("word", flat=True)
    )


def failing_bulk_create(
    monkeypatch: pytest.MonkeyPatch, fails: Callable[[list[Submission]], bool]
) -> list[int]:
    """Make ``bulk_create`` raise a connection-type error for the batches ``fails`` picks;
    returns the list that counts the failures."""
    real = QuerySet.bulk_create
    failures: list[int] = []

    def bulk_create(self: QuerySet, objs: Any, *args: Any, **kwargs: Any) -> Any:
        objs = list(objs)
        if self.model is Submission and fails(objs):
            failures.append(len(objs))
            raise OperationalError("server closed the connection unexpectedly")
        return real(self, objs, *args, **kwargs)

    monkeypatch.setattr(QuerySet, "bulk_create", bulk_create)
    return failures


def test_a_poisoned_entry_costs_no_other_player_his_refused_words(caplog):
    ann, bob = make_room()
    round_ = running_round(ann)
    live_round = bob_refuses_five(bob)
    # Ann's entry that no database can store, queued in the same batch as Bob's.
    live.record(live_round, ann.id, LONE_SURROGATE, "qzqz", "not_on_board")
    with caplog.at_level(logging.ERROR, logger="games.live"):
        assert live.flush_refused() == len(BOBS_REFUSALS)
    assert sorted(refused_words(bob, round_)) == sorted(BOBS_REFUSALS)
    # Set aside and told to staff, not retried on every pass.
    [aside] = live.set_aside()
    assert (aside.round_id, aside.entry.player_id, aside.entry.client_id) == (
        round_.id,
        ann.id,
        LONE_SURROGATE,
    )
    assert "set aside" in caplog.text and repr(LONE_SURROGATE) in caplog.text
    assert live_round.pending == []
    assert live.flush_refused() == 0

    mine = state.room_state(bob.room, bob)["my_words"]
    assert sorted(w["word"] for w in mine) == sorted(BOBS_REFUSALS)
    assert rounds.do_end_round(round_.id)
    round_.refresh_from_db()
    [bobs] = [p for p in state.results(round_)["players"] if p["id"] == bob.id]
    assert sorted(r["word"] for r in bobs["rejected"]) == sorted(BOBS_REFUSALS)


def test_a_batch_that_fails_on_the_connection_stays_queued_and_is_written_next_pass(
    monkeypatch,
):
    ann, bob = make_room()
    round_ = running_round(ann)
    live_round = bob_refuses_five(bob)
    failures = failing_bulk_create(monkeypatch, lambda objs: True)
    with pytest.raises(OperationalError):
        live.flush_refused()  # the database restarting: this pass writes nothing
    assert failures == [len(BOBS_REFUSALS)]
    assert len(live_round.pending) == len(BOBS_REFUSALS)
    monkeypatch.undo()  # the database is back
    assert live.flush_refused() == len(BOBS_REFUSALS)
    assert sorted(refused_words(bob, round_)) == sorted(BOBS_REFUSALS)
    assert live.set_aside() == []


def test_entries_recorded_while_a_batch_waits_keep_their_order(monkeypatch):
    ann, bob = make_room()
    round_ = running_round(ann)
    live_round = bob_refuses_five(bob)
    failing_bulk_create(monkeypatch, lambda objs: True)
    with pytest.raises(OperationalError):
        live.flush_refused()
    monkeypatch.undo()
    assert not submit_word(bob, "xqxq", "bob-late").accepted
    assert [e.word for e in live_round.pending] == [*BOBS_REFUSALS, "xqxq"]
    assert live.flush_refused() == len(BOBS_REFUSALS) + 1
    stored = Submission.objects.filter(round=round_, player=bob).order_by("id")
    assert [s.word for s in stored] == [*BOBS_REFUSALS, "xqxq"]


def test_an_entry_that_keeps_failing_alone_is_set_aside_after_a_few_passes(monkeypatch):
    """A connection-type error while the database answers (SQLite's "locked", a timeout)
    that only one entry meets: the batch is retried, then split, and the entry set aside
    after ``ENTRY_ATTEMPTS`` tries, never retried for ever."""
    ann, bob = make_room()
    round_ = running_round(ann)
    live_round = bob_refuses_five(bob)
    live.record(live_round, ann.id, "poison", "qzqz", "not_on_board")
    failing_bulk_create(monkeypatch, lambda objs: any(o.client_id == "poison" for o in objs))
    passes = 0
    while live_round.pending:
        passes += 1
        assert passes <= live.RETRIES_BEFORE_SPLIT + live.ENTRY_ATTEMPTS
        try:
            live.flush_refused()
        except OperationalError:
            assert passes <= live.RETRIES_BEFORE_SPLIT  # only the whole batch's tries raise
    assert sorted(refused_words(bob, round_)) == sorted(BOBS_REFUSALS)
    assert [a.entry.client_id for a in live.set_aside()] == ["poison"]
    assert refused_words(ann, round_) == []


def test_a_room_whose_batch_fails_does_not_hold_back_another_rooms(monkeypatch):
    ann, bob = make_room()
    first = running_round(ann)
    first_live = bob_refuses_five(bob)  # loaded first: flushed first
    cy, dee = make_room()
    second = running_round(cy)
    assert not submit_word(dee, "xyzzyq", "dee-0").accepted
    failing_bulk_create(monkeypatch, lambda objs: objs[0].round_id == first.id)
    with pytest.raises(OperationalError):
        live.flush_refused()
    assert refused_words(dee, second) == ["xyzzyq"]
    assert len(first_live.pending) == len(BOBS_REFUSALS)


def test_the_refused_entries_of_many_rooms_go_in_one_statement():
    """A crowd's refusals are spread over many rooms: one pass writes them all together."""
    ann, bob = make_room()
    first = running_round(ann)
    bob_refuses_five(bob)
    cy, dee = make_room()
    second = running_round(cy)
    assert not submit_word(dee, "xyzzyq", "dee-0").accepted
    with CaptureQueriesContext(connection) as queries:
        assert live.flush_refused() == len(BOBS_REFUSALS) + 1
    inserts = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("INSERT")]
    assert len(inserts) == 1
    assert sorted(refused_words(bob, first)) == sorted(BOBS_REFUSALS)
    assert refused_words(dee, second) == ["xyzzyq"]


def test_a_poisoned_entry_in_one_room_costs_another_room_nothing(caplog):
    ann, bob = make_room()
    first = running_round(ann)
    first_live = bob_refuses_five(bob)
    cy, dee = make_room()
    second = running_round(cy)
    assert not submit_word(dee, "xyzzyq", "dee-0").accepted
    live.record(first_live, ann.id, LONE_SURROGATE, "qzqz", "not_on_board")
    with caplog.at_level(logging.ERROR, logger="games.live"):
        assert live.flush_refused() == len(BOBS_REFUSALS) + 1
    assert sorted(refused_words(bob, first)) == sorted(BOBS_REFUSALS)
    assert refused_words(dee, second) == ["xyzzyq"]
    assert [a.entry.client_id for a in live.set_aside()] == [LONE_SURROGATE]


@pytest.mark.django_db(transaction=True)
def test_a_reader_waits_for_the_batch_another_thread_is_writing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The flusher thread has taken Bob's refused entries out of the queue and not yet
    committed them when Bob's state is read: the reader's flush finds the queue empty, so
    it waits for that batch; else "my words" would show none of them (CI saw it once)."""
    ann, bob = make_room()
    rooms.do_set_next_board(ann, BOARD)
    round_ = rounds.do_start_round(ann)  # committed: the task prepares it at once
    Round.objects.filter(pk=round_.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    bob_refuses_five(bob)
    real = QuerySet.bulk_create
    inside, go = threading.Event(), threading.Event()

    def slow_bulk_create(self: QuerySet, objs: Any, *args: Any, **kwargs: Any) -> Any:
        if threading.current_thread().name == "flusher":
            inside.set()
            go.wait(10)
        return real(self, objs, *args, **kwargs)

    monkeypatch.setattr(QuerySet, "bulk_create", slow_bulk_create)
    seen: list[list[str]] = []

    def flusher() -> None:
        try:
            live.flush_refused()
        finally:
            connection.close()

    def reader() -> None:
        try:
            live.flush_refused(room_id=bob.room_id)
            seen.append(refused_words(bob, round_))
        finally:
            connection.close()

    flushing = threading.Thread(target=flusher, name="flusher")
    flushing.start()
    assert inside.wait(10)
    # The batch is let go once the reader waits for it, or has read without waiting.
    waiting = threading.Event()
    real_wait_for = live._flushed.wait_for

    def wait_for(predicate: Callable[[], bool], timeout: float | None = None) -> bool:
        waiting.set()
        return real_wait_for(predicate, timeout)

    monkeypatch.setattr(live._flushed, "wait_for", wait_for)
    reading = threading.Thread(target=reader)
    reading.start()
    while reading.is_alive() and not waiting.wait(0.01):
        pass
    go.set()
    reading.join(10)
    flushing.join(10)
    assert seen and sorted(seen[0]) == sorted(BOBS_REFUSALS)
