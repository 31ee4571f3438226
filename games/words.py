"""The word path: judge a player's entry for the running round and store it.

What counts is when the entry reached the server (``received_at``), not when the server got
round to it: an entry that arrived before the deadline is judged as in time.

Cost: judging reads nothing from the database (``games.live`` holds the round); the accepted
words waiting together (``web.writers.GroupCommit``) are one INSERT for the batch, each
row conditional on its round still running, so a word is never answered ``accepted`` for a
round that ended under it; a refused word waits in memory and is written with others in
one statement. With hidden verdicts every entry is written at once, since the live counts
count every entry.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from games import chess_turns, live_counts
from games import live as live_rounds
from games.exceptions import NotAPlayer, WrongRoundState
from games.live import LiveRound
from games.messages import verdict_text
from games.models import Player, Round, Submission
from games.room_dictionaries import word_list_for_round
from games.room_themes import round_theme
from solver.judge import (
    MAX_ENTRY_LENGTH,
    Judgement,
    Verdict,
    compose,
    judge_entry,
    normalise_entry,
)
from solver.themes import Theme
from solver.wordlist import WordList
from web import text, writers
from web.errors import ClientError, InvalidInput

# Longest client_id kept for deduplicating resends.
MAX_CLIENT_ID_LENGTH = 64
# Submission.word's max_length: a longer word is stored cut.
WORD_COLUMN = 80
ROUND_OVER = "round_over"


@dataclass(frozen=True)
class SubmitResult:
    """The referee's answer to one entry, as sent back to the player."""

    word: str
    verdict: str
    client_id: str
    # Whether the room tells players at once; otherwise verdicts wait for the results.
    instant: bool = True
    duplicate_resend: bool = False
    # The round's theme, which says why an off_theme word is off it.
    theme: Theme | None = None

    @property
    def accepted(self) -> bool:
        return self.verdict == Verdict.ACCEPTED

    @property
    def reason(self) -> str | None:
        """Why the word does not count, in words for the player; None if it counts."""
        if self.accepted:
            return None
        if self.verdict == ROUND_OVER:
            return _("the round is over")
        return verdict_text(Verdict(self.verdict), self.theme)


def check_entry(entry: Any, client_id: Any) -> tuple[str, str]:
    """The entry and client_id as text, or InvalidInput saying what is wrong."""
    if not isinstance(entry, str):
        raise InvalidInput(_("a word is text"))
    if client_id is None:
        client_id = ""
    # Both are stored (refused words too, in batches): web.text's rule, so that one bad
    # entry (NUL, a lone surrogate) never fails a statement that holds other players' words.
    text.check_text(client_id, "client_id", MAX_CLIENT_ID_LENGTH)
    if len(entry) > MAX_ENTRY_LENGTH:
        raise InvalidInput(_("a word has at most %(count)s letters") % {"count": MAX_ENTRY_LENGTH})
    # Refused, not judged "not a word" (spaces around it are trimmed when it is judged).
    # isprintable refuses all that web.text refuses (Cc, Cs, Cf), and also unassigned
    # characters and other spaces than " "; the length was checked above.
    if not entry.strip().isprintable():
        raise InvalidInput(_("a word cannot contain control characters"))
    return entry, client_id


def as_judged(entry: str, word_list: WordList) -> str:
    """The word an entry is stored as (``solver.judge.judge_entry``'s ``word``)."""
    return normalise_entry(entry, word_list) or compose(entry)[:MAX_ENTRY_LENGTH].lower()


def check_same_entry(client_id: str, answered_word: str, word: str) -> None:
    """A resend must be the same entry: a ``client_id`` reused for another word would
    otherwise get the first word's verdict and the new word would be lost unseen."""
    if word != answered_word:
        raise InvalidInput(
            f"client_id {client_id!r} was already used for {answered_word!r} in this round;"
            " give each entry its own client_id"
        )


def running_round(room_id: int) -> LiveRound | None:
    """The room's running round (memory, else rebuilt), None when its latest round has
    ended (entries are too late), WrongRoundState when none has started. Worker thread."""
    found = live_rounds.load(room_id)
    if isinstance(found, LiveRound):
        return found
    if found is not None and found.status == Round.Status.ENDED:
        return None
    if found is not None and found.status == Round.Status.RUNNING:
        raise WrongRoundState(_("the round starts in a moment; wait for the countdown"))
    raise WrongRoundState(_("no round is running; wait for the host to start one"))


def judge(
    live: LiveRound, player_id: int, entry: str, client_id: str, received_at: float
) -> SubmitResult | Judgement:
    """The answer when it needs no write (a resend, too late, refused), else the judgement
    of a word to store. Pure: no database, safe on the event loop."""
    instant = live.instant_verdicts
    if client_id:
        answered = live.answered.get((player_id, client_id))
        if answered is not None:
            check_same_entry(client_id, answered[0], as_judged(entry, live.word_list))
            return SubmitResult(answered[0], answered[1], client_id, instant, True, live.theme)
    if not live.in_time(received_at):
        return round_over(entry, client_id)
    if not live.started(received_at):
        if live.paper and received_at >= live.starts_at:
            raise WrongRoundState(
                _("write your words on paper; enter your list when the time is up")
            )
        raise WrongRoundState(_("the round starts in a moment; wait for the countdown"))
    judgement = judge_entry(
        entry,
        live.board,
        live.word_list,
        live.min_length,
        already=live.accepted.get(player_id, frozenset()),
        extra_words=live.house_words,
        on_theme=live.on_theme,
    )
    if judgement.accepted or not instant or live.chess:
        return judgement  # to be written now (in a chess round, after its clock's say)
    live_rounds.record(live, player_id, client_id, judgement.word, judgement.verdict)
    return SubmitResult(judgement.word, judgement.verdict, client_id, instant, theme=live.theme)


@dataclass(frozen=True)
class Entry:
    """A judged entry waiting to be written, with the player's interface language (for
    the error it may get)."""

    live: LiveRound
    player_id: int
    judgement: Judgement
    client_id: str
    language: str | None
    # When it reached the server (epoch seconds): stored with it, for the awards; None: now.
    received_at: float | None = None


def store(entries: list[Entry]) -> list[SubmitResult | Exception]:
    """Write judged entries in one transaction, one INSERT for them all (each row only if its
    round is still running and its player still in the room); one outcome per entry (its
    answer, or the ClientError for it alone). Memory learns what the database holds only
    once it is committed: an entry remembered before a commit that then failed would be
    answered from memory but never stored. Worker thread."""
    outcomes: list[SubmitResult | Exception] = []
    learned: list[tuple[Entry, SubmitResult]] = []
    # This thread's connection, looked up once: each ``connection.x`` is a lookup of its own.
    db = connections[DEFAULT_DB_ALIAS]
    with _transaction(db, len(entries)):
        together = _together(db, entries)
        written = _insert_if_running(
            db, [e for e, joins in zip(entries, together, strict=True) if joins]
        )
        for entry, joins in zip(entries, together, strict=True):
            with writers.in_language(entry.language):
                try:
                    if not joins:  # after the entry it repeats, as if the batch were in turn
                        result, stored = _store_one(db, entry)
                    elif written[row := _row(entry)] > 0:
                        written[row] -= 1
                        result, stored = _written(entry), True
                    else:
                        result, stored = _not_written(entry)
                except ClientError as error:
                    outcomes.append(error)
                    continue
            outcomes.append(result)
            if stored:
                learned.append((entry, result))
    for entry, result in learned:
        _remember(entry, result)
    return outcomes


def _together(db: BaseDatabaseWrapper, entries: list[Entry]) -> list[bool]:
    """Which entries go in the batch's one INSERT: all but those that repeat an earlier
    entry's client_id or accepted word (a resend, a second tab in the same batch). Those
    are written one by one after it, so each meets the row the earlier one wrote and is
    answered as it would be in turn; within one statement which of the two the database
    keeps is not said. Without RETURNING (SQLite before 3.35) every entry goes alone."""
    if not db.features.can_return_columns_from_insert:
        return [False] * len(entries)
    seen: set[tuple[object, ...]] = set()
    together: list[bool] = []
    for entry in entries:
        round_id, player_id, judgement = entry.live.id, entry.player_id, entry.judgement
        keys: list[tuple[object, ...]] = []
        if entry.client_id:
            keys.append(("client_id", round_id, player_id, entry.client_id))
        if judgement.accepted:
            keys.append(("word", round_id, player_id, judgement.word[:WORD_COLUMN]))
        together.append(seen.isdisjoint(keys))
        seen.update(keys)
    return together


def _store_one(db: BaseDatabaseWrapper, entry: Entry) -> tuple[SubmitResult, bool]:
    """An entry written alone: its answer, and whether the database holds something memory
    must learn."""
    if _insert_if_running(db, [entry]):
        return _written(entry), True
    return _not_written(entry)


def _written(entry: Entry) -> SubmitResult:
    judgement = entry.judgement
    return SubmitResult(
        judgement.word, judgement.verdict, entry.client_id, entry.live.instant_verdicts
    )


def _not_written(entry: Entry) -> tuple[SubmitResult, bool]:
    """Why the INSERT wrote nothing for the entry, as its answer, and whether the database
    holds something memory must learn (the same word stored before: ``already_entered``).
    The database has this entry already (a resend, or the word from another tab or
    process: a unique constraint), or the round ended under us (the host, another
    process), or the player left."""
    live, player_id, judgement, client_id = (
        entry.live,
        entry.player_id,
        entry.judgement,
        entry.client_id,
    )
    instant = live.instant_verdicts
    if client_id:
        stored = (
            Submission.objects.filter(round_id=live.id, player_id=player_id, client_id=client_id)
            .values_list("word", "verdict")
            .first()
        )
        if stored is not None:  # answered before, by another process or in this batch
            check_same_entry(client_id, stored[0], judgement.word)
            resent = SubmitResult(stored[0], stored[1], client_id, instant, True, live.theme)
            return resent, False
    if judgement.accepted and _has_word(live.id, player_id, judgement.word):
        return SubmitResult(judgement.word, Verdict.ALREADY_ENTERED, client_id, instant), True
    if not Player.objects.filter(pk=player_id, left_at__isnull=True, kicked=False).exists():
        raise NotAPlayer(_("you left this room; join it again to play"))
    live_rounds.mark_stale(live.room_id)
    return round_over(judgement.word, client_id), False


def _has_word(round_id: int, player_id: int, word: str) -> bool:
    return Submission.objects.filter(
        round_id=round_id, player_id=player_id, word=word, verdict=Verdict.ACCEPTED
    ).exists()


def _remember(entry: Entry, result: SubmitResult) -> None:
    """Tell memory (games.live) and the live counts what the database now holds."""
    live, player_id, word = entry.live, entry.player_id, entry.judgement.word
    if result.verdict == Verdict.ALREADY_ENTERED:  # stored by another tab or process
        live_rounds.record_written(live, player_id, "", word, Verdict.ACCEPTED)
        live_rounds.record(live, player_id, entry.client_id, word, Verdict.ALREADY_ENTERED)
        return
    live_rounds.record_written(live, player_id, entry.client_id, word, result.verdict)
    team_word = (player_id, word) if live.co_op and result.accepted else None
    live_counts.changed(
        live.room_id, live.id, _long_word(live, player_id, entry.judgement), team_word
    )


# Every process writes its sockets' judged entries in batches (web.writers.GroupCommit).
_writes = writers.GroupCommit(store)


def _long_word(live: LiveRound, player_id: int, judgement: Judgement) -> tuple[int, int] | None:
    """(player, letters) when the entry is an accepted long word the room may hear of: never
    with hidden verdicts, where it would give a verdict away."""
    letters = len(judgement.word)
    if judgement.accepted and live.instant_verdicts and letters >= live_counts.LONG_WORD_LETTERS:
        return (player_id, letters)
    return None


def _transaction(
    db: BaseDatabaseWrapper, entries: int
) -> contextlib.AbstractContextManager[object]:
    """The transaction around the INSERTs: on SQLite ``BEGIN IMMEDIATE`` (the process's
    writers queue; see web.sqlite), on PostgreSQL none of its own for a single entry (one
    statement in autocommit is one round trip, not three), and a savepoint inside an outer
    transaction."""
    if entries == 1 and db.vendor == "postgresql" and not db.in_atomic_block:
        return contextlib.nullcontext()
    return transaction.atomic()


def _insert_if_running(
    db: BaseDatabaseWrapper, entries: list[Entry]
) -> Counter[tuple[object, ...]]:
    """INSERT the entries, in one statement, but for those whose round has ended or whose
    player is no longer in the room; returns the rows written (``_row``), as counts. An
    entry's ``received_at``: when it reached the server (epoch seconds; None: now), kept
    apart from the row's ``created_at``, when it was written. On PostgreSQL each row's round
    row is share-locked, so ending the round waits for this insert (and scores it), or this
    insert waits for the end and writes nothing for it: never accepted and unscored. An
    entry the database holds already (a unique constraint) is not written either, without
    an error: on PostgreSQL an error would abort the transaction, and the other entries of
    the batch with it. The rows go in the entries' order (ids, hence results, follow it)."""
    if not entries:
        return Counter()
    returning = len(entries) > 1  # one entry: the row count says (SQLite < 3.35: always)
    sql, params = _insert_statement(db, entries, returning)
    with db.cursor() as cursor:
        cursor.execute(sql, params)
        if returning:
            return Counter(tuple(row) for row in cursor.fetchall())
        return Counter({_row(entries[0]): 1}) if cursor.rowcount == 1 else Counter()


def _insert_statement(
    db: BaseDatabaseWrapper, entries: list[Entry], returning: bool = True
) -> tuple[str, list[Any]]:
    """``_insert_if_running``'s statement for the entries, and its parameters."""
    lock = " FOR SHARE OF r" if db.vendor == "postgresql" else ""
    submission, round_ = Submission._meta.db_table, Round._meta.db_table
    player = Player._meta.db_table
    # VALUES' columns are column1.. on both databases; column1 is the entry's place.
    values = ", ".join(f"({n}, %s, %s, %s, %s, %s, %s)" for n in range(len(entries)))
    sql = (
        f"INSERT INTO {submission} "
        "(round_id, player_id, word, verdict, client_id, created_at, received_at, points,"
        " cancelled) "
        "SELECT v.column2, v.column3, v.column4, v.column5, v.column6, %s, v.column7, NULL, %s "
        f"FROM (VALUES {values}) AS v "
        # One check per row, both tables looked up by key: a lock keeps PostgreSQL from
        # making the subquery a join, which could run it for every pair of player and row.
        f"WHERE EXISTS (SELECT 1 FROM {round_} r, {player} p WHERE r.id = v.column2"
        f" AND r.status = %s AND p.id = v.column3 AND p.left_at IS NULL AND NOT p.kicked{lock}) "
        "ORDER BY v.column1 "
        "ON CONFLICT DO NOTHING"
    )
    if returning:
        sql += " RETURNING round_id, player_id, word, client_id, verdict"
    written = timezone.now()
    adapt = db.ops.adapt_datetimefield_value
    # In the statement's order: the SELECT list's created_at and cancelled, the VALUES, the
    # round's status.
    params: list[Any] = [adapt(written), False]
    for entry in entries:
        round_id, player_id, word, client_id, verdict = _row(entry)
        arrived = adapt(
            written
            if entry.received_at is None
            else datetime.fromtimestamp(entry.received_at, tz=UTC)
        )
        params += [round_id, player_id, word, verdict, client_id, arrived]
    return sql, [*params, Round.Status.RUNNING]


def _row(entry: Entry) -> tuple[int, int, str, str, str]:
    """The entry as the INSERT returns its row: round, player, word, client_id, verdict."""
    judgement = entry.judgement
    return (
        entry.live.id,
        entry.player_id,
        judgement.word[:WORD_COLUMN],
        entry.client_id,
        str(judgement.verdict),
    )


def round_over(entry: str, client_id: str) -> SubmitResult:
    """The answer to an entry that came too late: the round is over."""
    return SubmitResult(entry.strip().lower()[:MAX_ENTRY_LENGTH], ROUND_OVER, client_id)


def stored_answer(room_id: int, player_id: int, entry: str, client_id: str) -> SubmitResult | None:
    """The first answer to this entry when it is a resend (same ``client_id``, same word) of
    one stored in the room's latest round that started, else None. Read from the database,
    not this process's memory: the round may have ended, or the entry may have been
    answered by another process. Worker thread."""
    live_rounds.flush_refused(room_id=room_id)  # this process's refused entries first
    round_ = (
        Round.objects.filter(room_id=room_id, status__in=[Round.Status.RUNNING, Round.Status.ENDED])
        .select_related("dictionary_version")
        .order_by("-number")
        .first()
    )
    if round_ is None:
        return None
    stored = (
        Submission.objects.filter(round_id=round_.id, player_id=player_id, client_id=client_id)
        .values_list("word", "verdict")
        .first()
    )
    if stored is None or stored[0] != as_judged(entry, word_list_for_round(round_)):
        return None  # not a resend: a late new entry is answered round_over
    theme = round_theme(round_)
    return SubmitResult(stored[0], stored[1], client_id, round_.instant_verdicts, True, theme)


async def _late(room_id: int, player_id: int, entry: str, client_id: str) -> SubmitResult:
    """The answer to an entry that reached the server after the deadline: a resend answers
    as the first time, anything else ``round_over``."""
    if client_id:
        stored = await writers.run(stored_answer, room_id, player_id, entry, client_id)
        if stored is not None:
            return stored
    return round_over(entry, client_id)


async def submit(
    room_id: int,
    player_id: int,
    entry: Any,
    client_id: Any,
    received_at: float,
    lane: str | None = None,
) -> SubmitResult:
    """The whole path from a socket: no thread hop unless the round must be loaded or the
    word written (with the other words waiting then, on the word-path threads,
    ``web.writers``, in the ``lane`` of the player's address)."""
    entry, client_id = check_entry(entry, client_id)
    live = live_rounds.cached(room_id)
    if live is None:
        live = await writers.run(running_round, room_id)
        if live is None:
            return await _late(room_id, player_id, entry, client_id)
    outcome = judge(live, player_id, entry, client_id, received_at)
    if isinstance(outcome, SubmitResult):
        if outcome.verdict == ROUND_OVER:
            return await _late(room_id, player_id, entry, client_id)
        return outcome
    live.writing += 1
    try:
        judged = Entry(live, player_id, outcome, client_id, translation.get_language(), received_at)
        if live.chess:
            return await _take_turn(judged, entry, received_at)
        return await _writes.write(lane, judged)
    finally:
        live.writing -= 1


async def _take_turn(entry: Entry, text: str, received_at: float) -> SubmitResult:
    """A chess round's entry: the clock on the round's row says whether it is the player's
    turn and plays the word (games.chess_turns); refused entries are queued as any."""
    live, player_id, client_id = entry.live, entry.player_id, entry.client_id
    turn = await writers.run(
        chess_turns.take_turn, live.id, player_id, entry.judgement, client_id, received_at
    )
    if turn is None:  # the round ended under it
        return await _late(live.room_id, player_id, text, client_id)
    result = SubmitResult(turn.word, turn.verdict, client_id, True, turn.resent, live.theme)
    if result.accepted and not turn.resent:
        _remember(entry, result)
    elif not turn.resent:
        live_rounds.record(live, player_id, client_id, turn.word, turn.verdict)
    return result
