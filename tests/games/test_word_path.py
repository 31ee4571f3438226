"""The word path's cost and its time rule: judging reads nothing from the database, an
accepted word is one write, a refused one none (until a batch), and what counts is when an
entry reached the server. Query counts are pinned (a crowd pays them per word)."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import live, live_counts, words
from games.models import Round, Submission
from tests.games.test_rounds_and_words import make_room, running_round
from tests.games.words_helpers import submit_word

pytestmark = pytest.mark.django_db

# Transaction control is not the work being measured (the rule: BEGIN and COMMIT
# aside); Django's savepoints inside the test's transaction are the same thing.
CONTROL = ("SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK TO SAVEPOINT", "BEGIN", "COMMIT")


def statements(context: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in context.captured_queries if not q["sql"].startswith(CONTROL)]


def test_an_accepted_word_is_one_insert_and_a_refused_one_is_none():
    ann, bob = make_room()
    running_round(ann)
    submit_word(bob, "quiet", "warm-up")  # the first entry loads the round
    with CaptureQueriesContext(connection) as accepted:
        assert submit_word(bob, "went", "a1").verdict == "accepted"
    assert len(statements(accepted)) == 1
    assert statements(accepted)[0].startswith("INSERT")
    with CaptureQueriesContext(connection) as refused:
        assert submit_word(bob, "xyzzyq", "r1").verdict == "not_on_board"
        assert submit_word(bob, "went", "r2").verdict == "already_entered"
        assert submit_word(bob, "went", "a1").duplicate_resend  # a resend
    assert statements(refused) == []


def test_refused_entries_are_written_in_one_statement_and_reach_the_results():
    ann, bob = make_room()
    round_ = running_round(ann)
    for n, entry in enumerate(["xyzzyq", "zzzz", "qq"]):
        assert not submit_word(bob, entry, f"r{n}").accepted
    assert not Submission.objects.filter(round=round_).exists()  # waiting in memory
    with CaptureQueriesContext(connection) as flush:
        assert live.flush_refused() == 3
    assert len(statements(flush)) == 1
    assert Submission.objects.filter(round=round_).count() == 3


def test_counts_for_many_rooms_cost_a_fixed_number_of_queries():
    """One read of the rounds and one of the counts, however many rooms: never a query per
    word or per room (counts take no version: games.live_counts)."""
    rooms = []
    for _ in range(3):
        ann, bob = make_room()
        running_round(ann)
        for word in ("quiet", "went", "cats"):
            submit_word(bob, word)
        rooms.append(ann.room_id)
    with CaptureQueriesContext(connection) as publish:
        assert live_counts.publish_changed() == 3
    assert len(statements(publish)) == 2


def test_a_word_that_arrived_in_time_counts_even_if_judged_after_the_deadline():
    ann, bob = make_room()
    round_ = running_round(ann)
    deadline = timezone.now() - timedelta(milliseconds=10)  # passed; not yet ended
    Round.objects.filter(pk=round_.pk).update(ends_at=deadline)
    arrived = deadline.timestamp() - 0.5
    assert submit_word(bob, "quiet", "in-time", received_at=arrived).accepted
    late = submit_word(bob, "went", "late", received_at=time.time())
    assert late.verdict == words.ROUND_OVER


def test_a_word_that_reaches_the_server_exactly_at_ends_at_is_late():
    """docs/api.md, "play": an entry arriving at or after ``ends_at`` is round_over; one a
    millisecond before it counts."""
    ann, bob = make_room()
    round_ = running_round(ann)
    deadline = timezone.now() - timedelta(milliseconds=10)
    Round.objects.filter(pk=round_.pk).update(ends_at=deadline)
    at_deadline = deadline.timestamp()
    late = submit_word(bob, "went", "at-deadline", received_at=at_deadline)
    assert late.verdict == words.ROUND_OVER
    in_time = submit_word(bob, "quiet", "just-before", received_at=at_deadline - 0.001)
    assert in_time.accepted


def test_a_word_for_a_round_that_ended_under_it_is_round_over_and_not_stored():
    """Another process (or the host) ended the round after this one loaded it."""
    ann, bob = make_room()
    round_ = running_round(ann)
    submit_word(bob, "quiet")
    Round.objects.filter(pk=round_.pk).update(status=Round.Status.ENDED)
    result = submit_word(bob, "went", "w")
    assert result.verdict == words.ROUND_OVER
    assert not Submission.objects.filter(round=round_, word="went").exists()


def test_a_player_who_left_cannot_score_even_with_the_round_in_memory():
    """Another tab (or another process) still holds the round: the word is refused by the
    INSERT's condition, nothing is stored."""
    from games import rooms
    from games.exceptions import NotAPlayer

    ann, bob = make_room()
    round_ = running_round(ann)
    assert submit_word(bob, "quiet").accepted  # the round is in memory now
    rooms.do_leave(bob)
    with pytest.raises(NotAPlayer):
        submit_word(bob, "went", "after-leaving")
    assert not Submission.objects.filter(round=round_, word="went").exists()


def test_a_fresh_process_rebuilds_the_round_from_the_database():
    """After a restart (or on another process) accepted words and answered client_ids are
    known again: no second acceptance, the resend gets its first verdict."""
    ann, bob = make_room()
    running_round(ann)
    assert submit_word(bob, "quiet", "q1").accepted
    live.clear()  # a new process
    again = submit_word(bob, "quiet", "q1")
    assert again.duplicate_resend and again.accepted
    assert submit_word(bob, "quiet", "q2").verdict == "already_entered"


def test_two_processes_accepting_the_same_word_for_one_player_store_it_once():
    """Two tabs on two processes: the database's constraint decides, the loser is told
    already_entered."""
    ann, bob = make_room()
    round_ = running_round(ann)
    submit_word(bob, "cats")  # loads the round here
    other = live.cached(bob.room_id)
    assert other is not None
    # The other process accepted "quiet" already; this one has not heard of it.
    Submission.objects.create(round=round_, player=bob, word="quiet", verdict="accepted")
    result = submit_word(bob, "quiet", "tab2")
    assert result.verdict == "already_entered"
    assert Submission.objects.filter(round=round_, word="quiet", verdict="accepted").count() == 1


def test_a_word_path_thread_replaces_a_dead_connection_and_tries_once_more(monkeypatch):
    """The word-path threads keep their connections; when one died (PostgreSQL restarted)
    the call is made again on a fresh connection instead of failing the player."""
    from django.db import OperationalError

    from web import writers

    calls = []

    def flaky() -> str:
        calls.append(len(calls))
        if len(calls) == 1:
            raise OperationalError("server closed the connection unexpectedly")
        return "stored"

    monkeypatch.setattr(writers, "_connection_died", lambda: True)
    assert writers._call(flaky) == "stored"
    assert calls == [0, 1]


def test_a_word_path_thread_does_not_retry_what_the_database_refused(monkeypatch):
    from django.db import OperationalError

    from web import writers

    def refused() -> None:
        raise OperationalError("database is locked")

    monkeypatch.setattr(writers, "_connection_died", lambda: False)
    with pytest.raises(OperationalError):
        writers._call(refused)
