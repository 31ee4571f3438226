"""What a running round needs to judge words, held in this process.

Judging a word must not read the database: with a crowd, every read per word queues behind
every other. So each web process keeps, per running round it serves, the parsed board (with
its neighbour table), the deadline, the word list, the room's house words and each player's
accepted words and answered ``client_id``s. The database stays the truth: a missing entry
(a restart, a round started by another process) is rebuilt from it with a few reads, and
the unique constraints on ``Submission`` settle any race between processes (two tabs of one
player on two processes get one ``accepted`` and one ``already_entered``).

Entries the referee refuses are not written one by one: they wait here and are written in
one statement per flush for all the process's rounds (``flush_refused``), at least every
``REFUSED_FLUSH_SECONDS``, before the round is scored, and before a player's state is
read. A batch that fails never costs its entries: when the database is away (a restart)
the batch goes back to the queue and waits for it; when the database refuses the batch
(an entry it cannot store), or a batch failed ``RETRIES_BEFORE_SPLIT`` times in a row,
its entries are written one by one, and the one the database refuses is set aside and
logged (``set_aside``), never retried for ever, while the others are stored.

Threads: the event loop judges and records; worker threads load, flush and end rounds. A
lock guards the maps; a ``LiveRound``'s sets are changed under it too.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from dataclasses import dataclass, field, replace

from django.db import InterfaceError, OperationalError, connection, transaction

from games import common_words, modes, room_themes
from games.models import Round, Submission
from games.room_dictionaries import house_words, word_list_for_round
from solver.board import Board, parse_board
from solver.judge import Verdict
from solver.themes import Theme
from solver.wordlist import WordList

# Refused entries wait at most this long (seconds) before they are written: under the grace
# after a deadline (games.rounds.END_GRACE_SECONDS), so the results have them.
REFUSED_FLUSH_SECONDS = 0.1
# A running round nobody submitted to for this long is dropped from memory (seconds).
IDLE_SECONDS = 15 * 60
# Passes a batch may fail on a connection error (the database restarting, locked) before
# its entries are tried one by one to find one that fails on its own.
RETRIES_BEFORE_SPLIT = 3
# Times one entry may fail on its own with such an error, the database answering, before
# it is set aside: a poisoned entry is never retried for ever.
ENTRY_ATTEMPTS = 3
# Set-aside entries kept in memory for staff (the log has every one).
SET_ASIDE_KEPT = 1000
# How long a reader's flush waits for another thread's batch of its round to be committed
# (seconds): the batch is out of the queue but not yet in the database, so without the wait
# the reader would see neither.
OTHER_FLUSH_WAIT_SECONDS = 2.0

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class PendingEntry:
    """A refused entry not yet written."""

    player_id: int
    word: str
    verdict: str
    client_id: str
    # Times this entry failed on its own (written alone) with a connection error.
    attempts: int = 0


@dataclass(frozen=True)
class SetAsideEntry:
    """A refused entry the database would not store: kept out of the queue, for staff."""

    round_id: int
    room_id: int
    entry: PendingEntry
    error: str


@dataclass
class LiveRound:
    """A running round as the referee needs it. Times are seconds since the epoch."""

    id: int
    room_id: int
    starts_at: float
    ends_at: float | None
    board: Board
    word_list: WordList
    min_length: int
    instant_verdicts: bool
    house_words: frozenset[str]
    # The solution's common words (games.common_words): an accepted one is flagged so.
    common: frozenset[str] = frozenset()
    # Co-op rounds (games.coop): the room hears each word the team finds, and how many of
    # the board's words (``solution_words``) it has found.
    co_op: bool = False
    solution_words: frozenset[str] = frozenset()
    # Themed rounds (games.room_themes): the theme, and the words it counts (the round's
    # themed solution and the room's house words it allows), so judging is one look-up.
    theme: Theme | None = None
    on_theme: frozenset[str] | None = None
    # Paper rounds (games.paper): entries are the written lists, taken once the writing
    # time (``ends_at``) is over and until the host ends the round.
    paper: bool = False
    # Chess-clock rounds (games.chess_turns): whose turn it is is read on the round's row
    # for each entry; ``ends_at`` is None, since the round's is its running clock's flag.
    chess: bool = False
    # Player id -> words accepted for them (this round).
    accepted: dict[int, set[str]] = field(default_factory=dict)
    # (player id, client_id) -> (word, verdict) of every answered entry with an id.
    answered: dict[tuple[int, str], tuple[str, str]] = field(default_factory=dict)
    pending: list[PendingEntry] = field(default_factory=list)
    # Passes in a row whose batch of ``pending`` failed on a connection error.
    failed_passes: int = 0
    # Batches taken out of ``pending`` and not yet committed or put back (any thread).
    flushing: int = 0
    # Accepted words being written now: the round is not ended under them (see rounds).
    writing: int = 0
    # Set when the round ended or a new one started: the next entry reloads the room.
    stale: bool = False
    used_at: float = field(default_factory=time.monotonic)

    def in_time(self, received_at: float) -> bool:
        """Whether an entry that reached the server at ``received_at`` counts."""
        return self.paper or self.ends_at is None or received_at < self.ends_at

    def started(self, received_at: float) -> bool:
        if self.paper:  # the lists are entered once the writing time is over
            return self.ends_at is not None and received_at >= self.ends_at
        return received_at >= self.starts_at


_rounds_by_room: dict[int, LiveRound] = {}
_lock = threading.RLock()
# Notified whenever a batch of refused entries is committed or put back.
_flushed = threading.Condition(_lock)
_set_aside: deque[SetAsideEntry] = deque(maxlen=SET_ASIDE_KEPT)


def cached(room_id: int) -> LiveRound | None:
    """The room's running round if this process holds it (no database access)."""
    with _lock:
        live = _rounds_by_room.get(room_id)
        if live is None or live.stale:
            return None
        live.used_at = time.monotonic()
        return live


def for_round(round_id: int) -> LiveRound | None:
    """This process's copy of a round, stale or not (no database access)."""
    with _lock:
        return next((live for live in _rounds_by_room.values() if live.id == round_id), None)


def next_deadline() -> float | None:
    """The earliest deadline (epoch seconds) of the running rounds this process holds."""
    with _lock:
        deadlines = [
            live.ends_at
            for live in _rounds_by_room.values()
            # A paper round's deadline opens its lists: nothing ends then (games.paper).
            if live.ends_at is not None and not live.stale and not live.paper
        ]
    return min(deadlines, default=None)


def mark_round_stale(round_id: int) -> None:
    """The round ended in this process: the next entry reloads its room."""
    with _lock:
        for live in _rounds_by_room.values():
            if live.id == round_id:
                live.stale = True


def mark_stale(room_id: int) -> None:
    """A round of the room ended or started elsewhere (an event said so): reload on the next
    entry. No database access, so the event loop may call it."""
    with _lock:
        live = _rounds_by_room.get(room_id)
        if live is not None:
            live.stale = True


def load(room_id: int) -> Round | LiveRound | None:
    """The room's running round, from memory or rebuilt from the database. When the room's
    latest round is not running (preparing, ended, none), returns that ``Round`` row (or
    None) for the caller to answer with. Call from a worker thread (database reads)."""
    live = cached(room_id)
    if live is not None:
        return live
    flush_refused(room_id=room_id)  # a stale copy's entries first
    round_ = (
        Round.objects.filter(room_id=room_id)
        .select_related("dictionary_version")
        .order_by("-number")
        .first()
    )
    if round_ is None or round_.status != Round.Status.RUNNING or round_.starts_at is None:
        return round_
    word_list = word_list_for_round(round_)
    room_words = house_words(room_id, round_.dictionary)
    theme = room_themes.round_theme(round_)
    on_theme = None
    if theme is not None:
        solution = frozenset(entry[0] for entry in round_.solution or [])
        on_theme = solution | room_themes.on_theme(round_, room_words, word_list.rules)
    live = LiveRound(
        id=round_.id,
        room_id=room_id,
        starts_at=round_.starts_at.timestamp(),
        ends_at=round_.ends_at.timestamp()
        if round_.ends_at and round_.mode != modes.CHESS
        else None,
        board=parse_board(round_.board),
        word_list=word_list,
        min_length=round_.min_length,
        instant_verdicts=round_.instant_verdicts,
        house_words=room_words,
        common=common_words.round_common_words(round_.solution or [], round_.dictionary),
        solution_words=frozenset(entry[0] for entry in round_.solution or [])
        if round_.mode == modes.COOP
        else frozenset(),
        co_op=round_.mode == modes.COOP,
        theme=theme,
        on_theme=on_theme,
        paper=round_.paper,
        chess=round_.mode == modes.CHESS,
    )
    live.board.neighbours()  # computed (and cached by the solver) once, not per word
    stored = Submission.objects.filter(round_id=round_.id).values_list(
        "player_id", "word", "verdict", "client_id"
    )
    for player_id, word, verdict, client_id in stored:
        if verdict == Verdict.ACCEPTED:
            live.accepted.setdefault(player_id, set()).add(word)
        if client_id:
            live.answered[(player_id, client_id)] = (word, verdict)
    with _lock:
        # Another thread may have built it meanwhile: keep that one, it may hold entries.
        current = _rounds_by_room.get(room_id)
        if current is not None and not current.stale:
            return current
        _rounds_by_room[room_id] = live
        return live


def record(live: LiveRound, player_id: int, client_id: str, word: str, verdict: str) -> None:
    """Remember a refused entry that is not written yet; it waits for ``flush_refused``."""
    with _lock:
        if client_id:
            live.answered[(player_id, client_id)] = (word, verdict)
        live.pending.append(PendingEntry(player_id, word, verdict, client_id))


def record_written(
    live: LiveRound, player_id: int, client_id: str, word: str, verdict: str
) -> None:
    """Remember an entry the database has (an accepted word, or any entry when verdicts are
    hidden)."""
    with _lock:
        if verdict == Verdict.ACCEPTED:
            live.accepted.setdefault(player_id, set()).add(word)
        if client_id:
            live.answered[(player_id, client_id)] = (word, verdict)


def flush_refused(round_id: int | None = None, room_id: int | None = None) -> int:
    """Write the refused entries waiting in this process (of one round or room, or all),
    in one statement for all the rounds (``_write_together``), else one per round, and drop
    stale rounds once written; returns how many entries. A round whose batch could not be
    written keeps it and does not stop the others'; the first such error is raised at the
    end. For one round or room (a reader about to read its entries), a batch of it that
    another thread is writing at that moment is waited for too (``_wait_for_other_flushes``).
    Call from a worker thread."""
    with _lock:
        targets = [
            (room, live)
            for room, live in _rounds_by_room.items()
            if (round_id is None or live.id == round_id) and (room_id is None or room == room_id)
        ]
    lives = [live for _, live in targets]
    written, failure = _write_all(lives)
    if (round_id is not None or room_id is not None) and _wait_for_other_flushes(lives):
        more, failure_again = _write_all(lives)  # what the other flush put back, if it failed
        written, failure = written + more, failure or failure_again
    with _lock:
        for room, live in targets:
            if (
                live.stale
                and not live.pending
                and not live.flushing
                and _rounds_by_room.get(room) is live
            ):
                del _rounds_by_room[room]
    if failure is not None:
        raise failure
    return written


def _write_all(lives: list[LiveRound]) -> tuple[int, Exception | None]:
    """The rounds' waiting entries, in one statement if it can, else round by round: how
    many were written, and the first failure of a round whose batch stays queued."""
    written = _write_together(lives)
    failure: Exception | None = None
    for live in lives:  # what the statement for all could not write, round by round
        try:
            written += _write_pending(live)
        except Exception as error:  # kept in the queue: the next flush tries again
            failure = failure or error
    return written, failure


def _wait_for_other_flushes(lives: list[LiveRound]) -> bool:
    """Wait until no other thread is writing a batch of these rounds; whether there was one.
    Not inside a transaction: the other batch may be waiting for this transaction's locks
    (SQLite has one writer), and the caller would wait for it in turn."""
    if connection.in_atomic_block:
        return False
    with _flushed:
        if not any(live.flushing for live in lives):
            return False
        _flushed.wait_for(
            lambda: not any(live.flushing for live in lives), OTHER_FLUSH_WAIT_SECONDS
        )
    return True


def _taken(live: LiveRound) -> list[PendingEntry]:
    """Take the round's waiting entries to write them (under ``_lock``); ``_done`` ends it."""
    entries, live.pending = live.pending, []
    if entries:
        live.flushing += 1
    return entries


def _done(lives: list[LiveRound]) -> None:
    """The batches ``_taken`` from these rounds are committed or put back (written, when
    the flush runs inside a caller's transaction: committed with it)."""
    with _flushed:
        for live in lives:
            live.flushing -= 1
        _flushed.notify_all()


def set_aside() -> list[SetAsideEntry]:
    """The latest entries the database would not store (newest last; the log has all)."""
    with _lock:
        return list(_set_aside)


def drop_idle() -> None:
    """Let go of rounds nobody submitted to for a long time (untimed rounds left open)."""
    cutoff = time.monotonic() - IDLE_SECONDS
    with _lock:
        for live in _rounds_by_room.values():
            if live.used_at < cutoff:
                live.stale = True


def _write_together(lives: list[LiveRound]) -> int:
    """Write the waiting entries of several rounds in one transaction, one statement: a
    crowd's refused entries are spread over a hundred rooms, and a transaction for each
    round was a tenth of the Python its process ran in play (``bench/load.py``, 1,000
    players). Returns how many; 0, with every entry back in its queue, when the database
    would not take them all (they are then written round by round, where a failure costs
    only its own round's)."""
    with _lock:
        ready = [
            live for live in lives if live.pending and live.failed_passes < RETRIES_BEFORE_SPLIT
        ]
        if len(ready) < 2:  # one round (or none): its own statement does the same
            return 0
        taken = [(live, _taken(live)) for live in ready]
    try:
        _insert_rows([row for live, entries in taken for row in _rows(live, entries)])
    except Exception:
        for live, entries in taken:
            _put_back(live, entries)
        return 0
    finally:
        _done(ready)
    for live, _ in taken:
        live.failed_passes = 0
    return sum(len(entries) for _, entries in taken)


def _write_pending(live: LiveRound) -> int:
    with _lock:
        entries = _taken(live)
    if not entries:
        return 0
    try:
        return _write_batch(live, entries)
    finally:
        _done([live])


def _write_batch(live: LiveRound, entries: list[PendingEntry]) -> int:
    if live.failed_passes < RETRIES_BEFORE_SPLIT:
        try:
            _insert(live, entries)
        except Exception as error:
            if not _connection_error(error):
                return _write_one_by_one(live, entries)  # the database refused an entry
            _put_back(live, entries)
            live.failed_passes += 1
            raise
        live.failed_passes = 0
        return len(entries)
    return _write_one_by_one(live, entries)


def _write_one_by_one(live: LiveRound, entries: list[PendingEntry]) -> int:
    """Write each entry alone: the ones the database refuses are set aside, the others
    stored. If the database is away, the rest go back to the queue, unharmed."""
    written = 0
    again: list[PendingEntry] = []
    for index, entry in enumerate(entries):
        try:
            _insert(live, [entry])
        except Exception as error:
            if _connection_error(error):
                if not _database_answers():
                    _put_back(live, again + entries[index:])
                    live.failed_passes += 1
                    raise
                if entry.attempts + 1 < ENTRY_ATTEMPTS:  # locked, timed out: later
                    again.append(replace(entry, attempts=entry.attempts + 1))
                    continue
            _set_entry_aside(live, entry, error)
        else:
            written += 1
    _put_back(live, again)
    if not again:
        live.failed_passes = 0
    return written


def _insert(live: LiveRound, entries: list[PendingEntry]) -> None:
    _insert_rows(_rows(live, entries))


def _rows(live: LiveRound, entries: list[PendingEntry]) -> list[Submission]:
    return [
        Submission(
            round_id=live.id,
            player_id=entry.player_id,
            word=entry.word[:80],
            verdict=entry.verdict,
            client_id=entry.client_id,
        )
        for entry in entries
    ]


def _insert_rows(rows: list[Submission]) -> None:
    # Its own transaction (a savepoint in the caller's): a refused statement leaves the
    # caller's transaction usable for the next one.
    with transaction.atomic():
        # A resend answered by two processes is written once (unique client_id).
        Submission.objects.bulk_create(rows, ignore_conflicts=True)


def _put_back(live: LiveRound, entries: list[PendingEntry]) -> None:
    """Return entries to the front of the queue, before any recorded since, in order."""
    if entries:
        with _lock:
            live.pending[:0] = entries


def _connection_error(error: Exception) -> bool:
    """Whether the error may be the connection's or the moment's (a restart, a lock), not
    the data's: worth trying the same statement again."""
    return isinstance(error, (OperationalError, InterfaceError))


def _database_answers() -> bool:
    """Whether the database answers now (on this thread's connection)."""
    try:
        return connection.connection is not None and connection.is_usable()
    except Exception:
        return False


def _set_entry_aside(live: LiveRound, entry: PendingEntry, error: Exception) -> None:
    aside = SetAsideEntry(live.id, live.room_id, entry, f"{type(error).__name__}: {error}")
    with _lock:
        _set_aside.append(aside)
    # repr(): the word and client_id as they came, control characters and all, readable.
    logger.error(
        "refused entry set aside, not stored: round %s (room id %s), player %s, verdict %s, "
        "word %r, client_id %r: %s",
        live.id,
        live.room_id,
        entry.player_id,
        entry.verdict,
        entry.word,
        entry.client_id,
        aside.error,
    )


def clear() -> None:
    """Forget everything, writing nothing (tests: a fresh process)."""
    with _lock:
        _rounds_by_room.clear()
        _set_aside.clear()
