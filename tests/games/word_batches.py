"""Batches of judged entries as ``games.words.store`` writes them (``web.writers.GroupCommit``
hands it every entry waiting): the checks, shared by the SQLite tests (test_word_batches.py)
and the PostgreSQL ones (test_word_batches_postgres.py, which runs them in a script).

Entries are built as ``games.words.submit`` builds them after judging (a ``Judgement`` and the
round from memory), so a test can put in one batch what a crowd's sockets send together.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db import DataError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import live, rooms, rounds, words
from games.exceptions import NotAPlayer
from games.live import LiveRound
from games.models import Player, Round, Submission
from solver.judge import Judgement, Verdict
from web.errors import InvalidInput

BOARD = "cats qiex dogz went"
# Transaction control is not the work being counted (as tests/games/test_word_path.py).
CONTROL = ("SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK TO SAVEPOINT", "BEGIN", "COMMIT")


def statements(context: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in context.captured_queries if not q["sql"].startswith(CONTROL)]


def room_of(*names: str, **settings: object) -> list[Player]:
    """A room with its host (the first name) and players, a round running on BOARD."""
    room, host = rooms.do_create_room(names[0], dict(settings))
    players = [host, *(rooms.do_join_room(room, name) for name in names[1:])]
    rooms.do_set_next_board(host, BOARD)
    round_ = rounds.do_start_round(host)
    round_.refresh_from_db()  # prepared already where tasks run at once (the scripts')
    if round_.status == Round.Status.PREPARING:
        assert rounds.do_prepare_round(round_.id)
    now = timezone.now()
    Round.objects.filter(pk=round_.pk).update(
        starts_at=now - timedelta(seconds=1), ends_at=now + timedelta(seconds=120)
    )
    return players


def round_in_memory(player: Player) -> LiveRound:
    found = words.running_round(player.room_id)
    assert isinstance(found, LiveRound)
    return found


def entry(
    player: Player,
    word: str,
    client_id: str,
    received_at: float | None = None,
    verdict: Verdict = Verdict.ACCEPTED,
) -> words.Entry:
    """A judged entry of ``player``'s for their room's running round."""
    judgement = Judgement(word, verdict)
    return words.Entry(round_in_memory(player), player.id, judgement, client_id, None, received_at)


def answers(outcomes: list[words.SubmitResult | Exception]) -> list[object]:
    return [
        type(o).__name__
        if isinstance(o, Exception)
        else (o.word, o.verdict, o.client_id, o.duplicate_resend, o.instant)
        for o in outcomes
    ]


def check_a_batch_of_accepted_words_is_one_insert() -> None:
    """Six words of four players in two rooms: one statement, an INSERT, and nothing else;
    the rows as one at a time wrote them (their arrival, NULL points, not cancelled), in
    the batch's order."""
    ann, bob = room_of("Ann", "Bob")
    cid, dan = room_of("Cid", "Dan")
    now = time.time()
    batch = [
        entry(bob, "cats", "b1", now - 0.9),
        entry(cid, "cats", "c1", now - 0.8),
        entry(bob, "quiet", "b2", now - 0.7),
        entry(ann, "went", "a1"),  # no arrival: now
        entry(dan, "went", "d1", now - 0.5),
        entry(cid, "dog", "c2", now - 0.4),
    ]
    before = timezone.now()
    with CaptureQueriesContext(connection) as written:
        outcomes = words.store(batch)
    after = timezone.now()
    assert answers(outcomes) == [
        (e.judgement.word, "accepted", e.client_id, False, True) for e in batch
    ]
    assert len(statements(written)) == 1, statements(written)
    assert statements(written)[0].startswith("INSERT")
    rows = list(
        Submission.objects.filter(player__room__in=[ann.room_id, cid.room_id])
        .order_by("id")
        .values_list(
            "player_id", "word", "client_id", "verdict", "points", "cancelled", "received_at"
        )
    )
    (created,) = set(  # one moment for the batch's rows: when the statement wrote them
        Submission.objects.filter(round__room__in=[ann.room_id, cid.room_id]).values_list(
            "created_at", flat=True
        )
    )
    assert before <= created <= after
    arrived = [
        created if e.received_at is None else datetime.fromtimestamp(e.received_at, tz=UTC)
        for e in batch
    ]
    assert rows == [
        (e.player_id, e.judgement.word, e.client_id, "accepted", None, False, at)
        for e, at in zip(batch, arrived, strict=True)
    ]
    assert round_in_memory(bob).accepted[bob.id] == {"cats", "quiet"}  # memory learned


def check_each_entry_of_a_mixed_batch_gets_its_outcome() -> None:
    """One batch: a new word, a resend of an entry another process stored, a word another
    tab stored, a player who left, a resend and a second tab within the batch, a round
    another process ended, a client_id reused for another word, a hidden verdict's refused
    entry. Each gets the answer it gets alone; only what should be is written."""
    ann, bob, eve = room_of("Ann", "Bob", "Eve")
    (cid,) = room_of("Cid")
    (dan,) = room_of("Dan", instant_verdicts=False)
    round_a = round_in_memory(ann).id
    for word, client_id in (("went", "old-1"), ("dog", "tab-2"), ("quiet", "used")):
        # Another process's writes, not in this one's memory.
        Submission.objects.create(
            round_id=round_a, player=bob, word=word, client_id=client_id, verdict="accepted"
        )
    batch = [
        entry(bob, "cats", "new"),
        entry(bob, "went", "old-1"),
        entry(bob, "dog", "tab-1"),
        entry(eve, "cats", "e1"),
        entry(ann, "cats", "a1"),
        entry(ann, "cats", "a1"),
        entry(ann, "went", "a2"),
        entry(ann, "went", "a3"),
        entry(cid, "cats", "c1"),
        entry(bob, "cat", "used"),
        entry(dan, "zebra", "h1", verdict=Verdict.NOT_ON_BOARD),
    ]
    rooms.do_leave(eve)
    ended = round_in_memory(cid).id
    Round.objects.filter(pk=ended).update(status=Round.Status.ENDED)  # by another process
    outcomes = words.store(batch)
    assert answers(outcomes) == [
        ("cats", "accepted", "new", False, True),
        ("went", "accepted", "old-1", True, True),
        ("dog", "already_entered", "tab-1", False, True),
        NotAPlayer.__name__,
        ("cats", "accepted", "a1", False, True),
        ("cats", "accepted", "a1", True, True),
        ("went", "accepted", "a2", False, True),
        ("went", "already_entered", "a3", False, True),
        ("cats", words.ROUND_OVER, "c1", False, True),
        InvalidInput.__name__,
        ("zebra", "not_on_board", "h1", False, False),
    ]
    stored = set(
        Submission.objects.filter(
            player__room__in=[ann.room_id, cid.room_id, dan.room_id]
        ).values_list("player_id", "word", "client_id", "verdict")
    )
    assert stored == {
        (bob.id, "went", "old-1", "accepted"),
        (bob.id, "dog", "tab-2", "accepted"),
        (bob.id, "quiet", "used", "accepted"),
        (bob.id, "cats", "new", "accepted"),
        (ann.id, "cats", "a1", "accepted"),
        (ann.id, "went", "a2", "accepted"),
        (dan.id, "zebra", "h1", "not_on_board"),
    }
    assert live.cached(cid.room_id) is None  # the ended round is loaded again next time
    assert round_in_memory(ann).answered[(ann.id, "a3")] == ("went", "already_entered")


def check_a_batch_waits_for_a_round_end_and_writes_nothing_for_it() -> None:
    """PostgreSQL: a batch whose INSERT meets a round being ended (its row locked by the
    end's transaction) waits for the end, then writes nothing for that round and the
    batch's other round's words as usual: never ``accepted`` in a round that ended."""
    (ann,) = room_of("Ann")
    (bob,) = room_of("Bob")
    batch = [entry(ann, "cats", "a1"), entry(bob, "cats", "b1"), entry(ann, "went", "a2")]
    ending = batch[0].live.id
    holding, release = threading.Event(), threading.Event()

    def end_the_round() -> None:
        try:
            with transaction.atomic():
                Round.objects.select_for_update().filter(pk=ending).update(
                    status=Round.Status.ENDED, ended_at=timezone.now()
                )
                holding.set()
                release.wait(30)
        finally:
            connection.close()

    ender = threading.Thread(target=end_the_round)
    ender.start()
    assert holding.wait(30)
    # The INSERT blocks on the end's lock; the end commits once the INSERT is on its way.
    threading.Timer(0.5, release.set).start()
    outcomes = words.store(batch)
    ender.join(30)
    assert answers(outcomes) == [
        ("cats", words.ROUND_OVER, "a1", False, True),
        ("cats", "accepted", "b1", False, True),
        ("went", words.ROUND_OVER, "a2", False, True),
    ]
    assert not Submission.objects.filter(round_id=ending).exists()


def check_one_bad_entry_fails_only_itself() -> None:
    """PostgreSQL: an entry the database refuses (a client_id longer than its column; the
    socket's check keeps such out) fails the batch's statement; the batch is written again
    one entry at a time (``web.writers.GroupCommit``) and only that entry fails."""
    ann, bob = room_of("Ann", "Bob")
    batch = [entry(ann, "cats", "a1"), entry(bob, "cats", "x" * 65), entry(bob, "went", "b2")]
    outcomes = words._writes._write(batch)
    assert answers(outcomes) == [
        ("cats", "accepted", "a1", False, True),
        DataError.__name__,
        ("went", "accepted", "b2", False, True),
    ]
    stored = set(Submission.objects.filter(player__room=ann.room_id).values_list("client_id"))
    assert stored == {("a1",), ("b2",)}


def check_each_row_is_checked_once() -> None:
    """PostgreSQL: the INSERT looks up each row's round and player once, whatever plan the
    planner picks (fresh tables, no statistics, as in a new deployment): no step of the plan
    runs more often than the batch has rows. (Two EXISTS, one of them turned into a join by
    the planner, ran the round's check once per pair of player and row.)"""
    players = [p for n in range(10) for p in room_of(f"H{n}", "Ann", "Bob", "Cid")]
    batch = [entry(p, "cats", f"c{p.id}") for p in players[::4]]
    sql, params = words._insert_statement(connection, batch)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, params)
        (found,) = cursor.fetchone()
        transaction.set_rollback(True)
    plan = json.loads(found) if isinstance(found, str) else found
    loops = {node["Node Type"]: node["Actual Loops"] for node in _nodes(plan[0]["Plan"])}
    assert max(loops.values()) <= len(batch), loops


def _nodes(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield node
    for child in node.get("Plans", []):
        yield from _nodes(child)
