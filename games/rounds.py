"""Rounds: start (roll or take the typed board), prepare (solve, then count down), end and
score, exactly once whichever process gets there first."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from dictionaries.exceptions import DictionaryError
from dictionaries.models import DictionaryVersion
from games import (
    chess_turns,
    common_words,
    events,
    live,
    modes,
    paper,
    presence,
    presenters,
    room_themes,
    signals,
    state,
    teams,
)
from games.checks import check_host, current_round
from games.exceptions import WrongRoundState
from games.models import (
    Player,
    Room,
    Round,
    Submission,
)
from games.room_dictionaries import (
    current_version,
    dictionary_language,
    house_words,
    word_list_for_round,
    word_list_for_version,
)
from solver.board import parse_board
from solver.deal import deal_round_board
from solver.errors import SolverError
from solver.judge import (
    Verdict,
    find_word_path,
    score_round,
)
from solver.scoring import word_points
from solver.solve import FoundWord, solve
from solver.themes import Rule, Theme
from solver.wordlist import WordList
from web import gc_tuning, wire
from web.errors import ClientError, InvalidInput

logger = logging.getLogger(__name__)

# Seconds between "round started" and the first word: time to look at the board.
COUNTDOWN_SECONDS = 3
# A round still preparing after this long lost its worker; another process prepares it.
PREPARE_TIMEOUT_SECONDS = 15
# A round ends this long after its deadline: entries that reached a server in time (in any
# process) are written by then, so they are scored. Keep it well under a second.
END_GRACE_SECONDS = 0.15
# Rounds ended in one go (``end_rounds``) by a worker or a web process's watcher. A batch
# holds the write lock while it scores (SQLite has one for the whole database), so it is
# kept small enough that a verdict waiting behind it waits tens of milliseconds.
ROUNDS_PER_BATCH = 50
# Ids per UPDATE when scoring: keeps each statement short.
UPDATE_BATCH = 1000
# At most this long does ending a round wait for this process's words being written.
SETTLE_WAIT_SECONDS = 2.0
# The tasks that carry a round on, queued by name (``_queue``).
PREPARE_ROUND_TASK = "games.tasks.prepare_round"
END_ROUND_TASK = "games.tasks.end_round"


def do_start_round(host: Player) -> Round:
    """Roll (or take the typed) board and start preparing a round; the solution set is
    computed by a task, which then starts the countdown. A themed room's board is dealt
    before the round's transaction (``_deal_ahead``)."""
    return _start_round(host, _deal_ahead(host))


@dataclass(frozen=True)
class _Dealt:
    """A rolled board and what it was dealt for (dice set, dictionary version, shortest
    word, theme): a board dealt ahead is used only if the room still deals the same."""

    board_text: str
    dealt_for: tuple[Any, ...]


def _deal(
    room: Room,
    dice_set: str,
    version: DictionaryVersion,
    word_list: WordList,
    min_length: int,
    theme: Theme | None,
) -> _Dealt:
    """Rolled again while the dice spell almost nothing, as players would reshake them (or,
    themed, almost none of the theme's words: solver.deal)."""
    allows = None
    if theme is not None:
        allows = room_themes.theme_test(theme, room.dictionary, word_list.rules)
    board = deal_round_board(dice_set, word_list, min_length, allows=allows).board
    return _Dealt(board.to_text(), (dice_set, version.pk, min_length, theme))


def _deal_ahead(host: Player) -> _Dealt | None:
    """A themed room's next board, dealt outside any transaction: a themed deal may roll
    a thousand times (a fifth of a second on 4x4, solver.deal), and the round's
    transaction holds the database's write lock (on SQLite everyone's words wait behind
    it). None when the room deals quickly (no theme, a typed board) or cannot start a
    round now; the transaction then deals, or says what is wrong."""
    room = Room.objects.filter(pk=host.room_id, host_id=host.pk).first()
    if room is None or room.next_board or room.theme in ("", Rule.NONE):
        return None
    latest = current_round(room.pk)
    if latest is not None and latest.status != Round.Status.ENDED:
        return None
    try:
        version, word_list = _word_list_of(room)
        theme = room_themes.theme_for_new_round(room)
    except ClientError:
        return None
    dice_set = room.effective_dice_set(dictionary_language(room.dictionary))
    return _deal(room, dice_set, version, word_list, _min_length(room, version), theme)


def _word_list_of(room: Room) -> tuple[DictionaryVersion, WordList]:
    """The version of the room's dictionary a round starting now keeps (recompiling the
    dictionary later never changes it), and its word list."""
    try:
        version = current_version(room.dictionary)
        return version, word_list_for_version(version)
    except (DictionaryError, SolverError) as error:
        raise InvalidInput(
            _("the room's dictionary cannot be used: %(error)s") % {"error": error}
        ) from None


def _min_length(room: Room, version: DictionaryVersion) -> int:
    # A list that keeps no shorter words makes the round's shortest word longer.
    return max(room.effective_min_length(), version.rules.get("min_length", 1))


@transaction.atomic
def _start_round(host: Player, ahead: _Dealt | None) -> Round:
    check_host(host)
    return start_round_in(host.room_id, ahead)


@transaction.atomic
def start_round_in(room_id: int, ahead: _Dealt | None = None) -> Round:
    """Start the room's next round, whoever asked: the host's ``start_round`` once checked,
    or the server itself (games.autopilot)."""
    room = Room.objects.select_for_update().get(pk=room_id)
    previous = current_round(room.pk)
    number = (previous.number + 1) if previous else 1
    signals.round_starting.send(sender=Room, room=room, number=number)  # may refuse (daily)
    if room.game_ended_at is not None:  # games.standings.do_end_game
        raise WrongRoundState(_("the game has ended: no more rounds in this room"))
    if previous is not None and previous.status != Round.Status.ENDED:
        raise WrongRoundState(_("a round is already under way"))
    version, word_list = _word_list_of(room)
    min_length = _min_length(room, version)
    # Refused here when its theme list is gone, typed board or not.
    theme = room_themes.theme_for_new_round(room)
    if room.next_board:  # a typed or photographed board is played as it is, theme or not
        board_text, dice_set = room.next_board, ""
    else:
        dice_set = room.effective_dice_set(dictionary_language(room.dictionary))
        dealt_for = (dice_set, version.pk, min_length, theme)
        if ahead is None or ahead.dealt_for != dealt_for:
            ahead = _deal(room, dice_set, version, word_list, min_length, theme)
        board_text = ahead.board_text
    # The shrinking clock: this round's length, by the rounds of the game before it.
    seconds = room.next_round_seconds()
    board = parse_board(board_text)
    co_op = room.mode == modes.COOP
    # Everyone has a team, two teams at least have players (else TeamsIncomplete).
    round_teams = teams.teams_for_new_round(room) if room.mode == modes.TEAMS else {}
    # Chess clock (games.chess_turns): two players at least; each word is unique (nothing
    # cancels) and passes the turn at once; the players' clocks replace the round's.
    chess = room.mode == modes.CHESS
    if chess:
        chess_turns.check_enough_players(room)
    round_ = Round.objects.create(
        room=room,
        number=number,
        game=room.game,
        board=board.to_text(),
        rows=board.rows,
        cols=board.cols,
        dice_set=dice_set,
        min_length=min_length,
        dictionary=room.dictionary,
        dictionary_version=version,
        # A team's words never cancel each other, and it sees them as they are found.
        cancel_duplicates=room.cancel_duplicates and not co_op and not chess,
        instant_verdicts=room.instant_verdicts or co_op or chess,
        round_seconds=None if chess else seconds,
        chess=chess_turns.new_game(room) if chess else None,
        mode=room.mode,
        coop_goal=room.coop_goal if co_op else None,
        teams=round_teams,
        ready_check=room.ready_check,
        # Chess-clock turns are played on the phones, never on paper.
        paper=room.paper and room.mode != modes.CHESS,
        theme=None if theme is None else theme.as_dict(),
    )
    events.emit_to_room(room, "round.preparing", {"round": presenters.round_dict(round_)})
    typed = bool(room.next_board)
    if typed:  # a typed or photographed board is used once
        room.next_board = ""
        room.save(update_fields=["next_board"])
    # The settings say how long the next round is: one round on, it is shorter.
    if typed or (room.shrink_seconds and room.round_seconds):
        events.emit_to_room(room, "settings.changed", {"settings": presenters.settings_dict(room)})
    transaction.on_commit(lambda: _enqueue_prepare(round_.id))
    return round_


def _enqueue_prepare(round_id: int) -> None:
    _queue(PREPARE_ROUND_TASK, round_id)


def do_prepare_round(round_id: int) -> bool:
    """Solve the board, then start the countdown, or with a ready check wait for the
    players (``games.ready``). Idempotent: False if already done."""
    round_ = Round.objects.filter(pk=round_id).select_related("room").first()
    if round_ is None or round_.status != Round.Status.PREPARING or round_.ready_since:
        return False
    word_list = word_list_for_round(round_)
    words = _solve(round_, word_list)
    if round_.theme:  # only the theme's words are the round's: its counts, hints, maximum
        themed = room_themes.on_theme(round_, (w.word for w in words), word_list.rules)
        words = [w for w in words if w.word in themed]
    # Which words most players know (games.common_words): stored with each word.
    common = common_words.common_in((w.word for w in words), round_.dictionary)
    solved = {
        "solution": [[w.word, w.points, list(w.path), w.word in common] for w in words],
        "max_points": sum(w.points for w in words),
    }
    if round_.ready_check:
        return _wait_for_players(round_, solved)
    return start_countdown(round_id, solved)


def _wait_for_players(round_: Round, solved: dict) -> bool:
    """The board is solved: store it and ask everyone online whether they are ready."""
    with transaction.atomic():
        waiting = presence.online_player_ids(round_.room_id)
        updated = Round.objects.filter(
            pk=round_.pk, status=Round.Status.PREPARING, ready_since__isnull=True
        ).update(**solved, ready_since=timezone.now(), ready_waiting=waiting)
        if not updated:
            return False
        round_.refresh_from_db()
        events.emit_to_room(
            round_.room, "round.ready_check", {"round": presenters.round_dict(round_)}
        )
    return True


def start_countdown(round_id: int, solved: dict | None = None) -> bool:
    """Start the countdown of a prepared round (storing its solution, ``solved``, when it is
    not stored yet); False if it has started already."""
    with transaction.atomic():
        starts_at = timezone.now() + timedelta(seconds=COUNTDOWN_SECONDS)
        round_ = Round.objects.select_related("room").get(pk=round_id)
        seconds = round_.round_seconds
        ends_at = starts_at + timedelta(seconds=seconds) if seconds else None
        if round_.mode == modes.CHESS:  # the enders start its clock then (games.chess_turns)
            ends_at = starts_at
        updated = Round.objects.filter(pk=round_id, status=Round.Status.PREPARING).update(
            **(solved or {}),
            status=Round.Status.RUNNING,
            starts_at=starts_at,
            ends_at=ends_at,
            ready_waiting=[],
        )
        if not updated:
            return False
        round_.refresh_from_db()
        events.emit_to_room(round_.room, "round.started", {"round": presenters.round_dict(round_)})
        if ends_at is not None and not round_.paper:  # paper: the host ends it (games.paper)
            transaction.on_commit(lambda: _schedule_end(round_id, ends_at))
    return True


def _solve(round_: Round, word_list: WordList) -> list[FoundWord]:
    """Every word on the round's board: the dictionary's, and the words the room accepted on
    a challenge (house words) where the board spells them. Highest points first, then
    alphabetical, as ``solve`` sorts."""
    board = parse_board(round_.board)
    words = list(solve(board, word_list, round_.min_length).words)
    known = {found.word for found in words}
    for word in house_words(round_.room_id, round_.dictionary) - known:
        path = find_word_path(board, word) if len(word) >= round_.min_length else None
        if path is not None:
            words.append(FoundWord(word, path, word_points(len(word), round_.rows, round_.cols)))
    words.sort(key=lambda found: (-found.points, found.word))
    return words


def _schedule_end(round_id: int, ends_at) -> None:
    """Ask a worker to end the round at its deadline. In-process (eager) mode relies on the
    deadline watcher instead: an eager task would run at once."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return
    _queue(END_ROUND_TASK, round_id, eta=ends_at + timedelta(seconds=END_GRACE_SECONDS))


def _queue(task_name: str, round_id: int, eta: datetime | None = None) -> None:
    """Queue a task of ``games.tasks`` by its name: those tasks call this module, so it
    does not import them (``GamesConfig.ready`` imports them, which registers them)."""
    current_app.tasks[task_name].apply_async((round_id,), eta=eta)


def do_end_round_now(host: Player) -> bool:
    """The host stops the clock (untimed rounds, or a physical game that is over). In a
    paper round whose players still write, it stops the writing: the lists' entry opens
    (``games.paper``); the next ``end_round`` scores the lists."""
    check_host(host)
    round_ = current_round(host.room_id)
    if round_ is None or round_.status != Round.Status.RUNNING:
        raise WrongRoundState(_("no round is running"))
    if round_.paper and paper.writing(round_):
        paper.do_stop_writing(round_)
        return False
    return do_end_round(round_.id)


def do_end_round(round_id: int, wait: bool = True, deadline: bool = False) -> bool:
    """End and score a round exactly once; False if it had already ended (or never ran).
    See ``end_rounds``."""
    return bool(end_rounds([round_id], wait=wait, deadline=deadline))


def end_rounds(round_ids: list[int], wait: bool = True, deadline: bool = False) -> list[int]:
    """End and score each of these rounds exactly once; returns the ids this call ended
    (not those already ended, or never run).

    ``deadline=True`` (the watchers, the end task): called at the rounds' deadlines, where
    a chess round's clock moves instead (``chess_turns.rounds_to_end``): it ends only once
    one player is left.

    Rooms that started together (a tournament, a class, a load test) end together: their
    rounds end in one transaction of a fixed number of statements, and their results are
    built side by side (``state.results_of``), so the last room hears of its end about as
    soon as the first.

    Entries this process is still writing are waited for, and refused entries waiting in
    its memory are written, so the results hold every entry that came in time.

    ``wait=False`` (the web processes' watchers, beat's sweep): on PostgreSQL a round whose
    row another process holds (it is ending it, or a word is being stored) is left alone
    instead of waited for; whoever holds it ends it, or the next check does. Several web
    processes and workers then never queue behind each other's scoring.

    The cycle collector waits until the results are sent (``web.gc_tuning``): what the
    ending builds is freed as soon as it is sent."""
    for round_id in round_ids:
        _settle_entries(round_id)
    with gc_tuning.collection_paused():
        return _end_settled(round_ids, wait, deadline)


def _end_settled(round_ids: list[int], wait: bool, deadline: bool = False) -> list[int]:
    with transaction.atomic():
        # Locking the rows is the gate: of several processes ending the same round at once,
        # exactly one finds it running (SQLite has one writer at a time: always this one).
        running = Round.objects.filter(pk__in=round_ids, status=Round.Status.RUNNING).order_by()
        locked = list(running.select_for_update(skip_locked=not wait).values_list("id", "mode"))
        ended_ids = chess_turns.rounds_to_end(locked, deadline)
        if not ended_ids:
            return []
        Round.objects.filter(pk__in=ended_ids).update(
            status=Round.Status.ENDED, ended_at=timezone.now()
        )
        ended = list(Round.objects.select_related("room").filter(pk__in=ended_ids))
        entries = score_rounds(ended)
        _announce_end(ended)
        versions = events.next_versions([round_.room_id for round_ in ended])
    # The results are read after the commit: the write lock (SQLite's is one for the whole
    # database) is held for the scoring only, so many rooms ending at once end quickly.
    results = state.results_of(ended, entries=entries)
    for round_ in ended:
        version, whole = versions[round_.room_id], results[round_.id]
        # The scores and each player's own words first: the whole results (everyone's
        # words, the solution) are many times larger; each socket asks for them after,
        # and every process with sockets in the room answers from the copy sent along
        # (games.results_cache; docs/api.md, "round.ended").
        events.send_room_event_now(
            round_.room.code,
            {
                "type": "round.ended",
                "version": version,
                "scores": presenters.scores_dict(whole),
            },
            personal=("mine", presenters.own_results_by_player(whole)),
            attach={"results": wire.encode(whole), "round_number": round_.number},
        )
        live.mark_round_stale(round_.id)
        logger.info("round %s ended", round_)
    return [round_.id for round_ in ended]


def end_due_rounds(round_id: int) -> bool:
    """End this round at its deadline and, in the same batch, the other rounds already due
    (rooms that started together end together: one batch instead of one task each, which
    queue behind each other on the workers). False if this round had already ended."""
    # Not the rounds another worker is ending right now: with them, every worker's batch
    # was the same first rounds, and all but one waited for that one's scoring.
    others = [due for due in overdue_round_ids(unclaimed=True) if due != round_id]
    batch = [round_id, *others[: ROUNDS_PER_BATCH - 1]]
    if round_id in end_rounds(batch, wait=False, deadline=True):
        return True
    # Its row was held (a word being stored, another process ending it): wait for it.
    return do_end_round(round_id, deadline=True)


def _announce_end(ended: list[Round]) -> None:
    """Tell other apps (games.signals.rounds_ended) inside the ending transaction; a failing
    receiver is logged, the rounds end anyway."""
    for receiver, outcome in signals.rounds_ended.send_robust(sender=Round, rounds=ended):
        if isinstance(outcome, Exception):
            logger.error("rounds_ended receiver %r failed: %r", receiver, outcome)


def _settle_entries(round_id: int) -> None:
    live_round = live.for_round(round_id)
    if live_round is not None:
        waited = 0.0
        while live_round.writing > 0 and waited < SETTLE_WAIT_SECONDS:
            time.sleep(0.005)
            waited += 0.005
    live.flush_refused(round_id=round_id)


def score_words(round_: Round) -> None:
    """Store each accepted word's points of one round (see ``score_rounds``)."""
    score_rounds([round_])


def score_rounds(rounds: list[Round]) -> dict[int, list[presenters.ScoredEntry]]:
    """Store each accepted word's points and whether a duplicate cancelled it; refused
    entries score 0. One read of the entries and one UPDATE per distinct outcome (a
    handful), not one per word, for all the rounds together: a big room's round, or many
    rooms', ends in milliseconds. Returns each round's entries as scored, in the order
    entered: what its results list (``state.results_of``), without reading them again."""
    by_id = {round_.id: round_ for round_ in rounds}
    rows = state.entry_rows(list(by_id))
    words_by_round: dict[int, dict[int, list[str]]] = {round_id: {} for round_id in by_id}
    for _id, round_id, player_id, word, verdict, _points, _cancelled in rows:
        if verdict == Verdict.ACCEPTED:
            words_by_round[round_id].setdefault(player_id, []).append(word)
    outcomes: dict[tuple[int, int, str], tuple[int, bool]] = {}
    for round_id, words_by_player in words_by_round.items():
        round_ = by_id[round_id]
        scored = score_round(
            words_by_player,
            round_.rows,
            round_.cols,
            round_.cancel_duplicates,
            teams=teams.round_teams(round_) or None,
        )
        for player_id, items in scored.items():
            for item in items:
                outcomes[(round_id, player_id, item.word)] = (item.points, item.cancelled)
    entries: dict[int, list[presenters.ScoredEntry]] = {round_id: [] for round_id in by_id}
    by_outcome: dict[tuple[int, bool], list[int]] = {}
    for submission_id, round_id, player_id, word, verdict, _points, cancelled in rows:
        if verdict == Verdict.ACCEPTED:  # a player's accepted word is stored once
            points, cancelled = outcomes[(round_id, player_id, word)]
            by_outcome.setdefault((points, cancelled), []).append(submission_id)
        else:
            points, cancelled = 0, bool(cancelled)
        entries[round_id].append(
            presenters.ScoredEntry(player_id, word, verdict, points, cancelled)
        )
    for (points, cancelled), submission_ids in by_outcome.items():
        for start in range(0, len(submission_ids), UPDATE_BATCH):
            _set_score(submission_ids[start : start + UPDATE_BATCH], points, cancelled)
    Submission.objects.filter(round_id__in=list(by_id)).exclude(verdict=Verdict.ACCEPTED).update(
        points=0
    )
    return entries


def _set_score(submission_ids: list[int], points: int, cancelled: bool) -> None:
    """One UPDATE for a batch of entries. The ids (integers read from the database) are
    written into the statement: Django's ``id__in`` prepares each bound value in Python,
    which was half the time a round's end held the GIL, delaying other rooms' verdicts."""
    id_list = ",".join(str(int(submission_id)) for submission_id in submission_ids)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {Submission._meta.db_table} SET points = %s, cancelled = %s "
            f"WHERE id IN ({id_list})",
            [points, cancelled],
        )


def overdue_round_ids(lateness: float = END_GRACE_SECONDS, unclaimed: bool = False) -> list[int]:
    """Running rounds whose deadline passed ``lateness`` seconds ago or more (at least the
    grace for entries that arrived in time), earliest deadline first. ``unclaimed``: on
    PostgreSQL, not those whose row another transaction holds right now (another process
    ending them, or a word being stored for a moment: its own end task gets it)."""
    now = timezone.now()
    cutoff = now - timedelta(seconds=max(lateness, END_GRACE_SECONDS))
    # A chess clock's flag falls on time wherever workers end the other rounds: no worker
    # is asked at each flag (games.chess_turns).
    chess_cutoff = now - timedelta(seconds=END_GRACE_SECONDS)
    overdue = (
        Round.objects.filter(status=Round.Status.RUNNING, ends_at__isnull=False)
        .filter(Q(ends_at__lte=cutoff) | Q(mode=modes.CHESS, ends_at__lte=chess_cutoff))
        .exclude(paper=True)  # its deadline opens the lists' entry; the host ends it
        .order_by("ends_at", "id")
        .values_list("id", flat=True)
    )
    if not (unclaimed and connection.vendor == "postgresql"):
        return list(overdue)
    with transaction.atomic():  # the rows are let go at once: only the skip matters
        return list(overdue.select_for_update(skip_locked=True))


def end_overdue_rounds(lateness: float = END_GRACE_SECONDS) -> int:
    """End every round overdue by ``lateness`` seconds, ``ROUNDS_PER_BATCH`` at a time;
    returns how many this call ended. A batch that fails is ended round by round: one bad
    round must not hold back the rooms that end with it (it is left for the next call)."""
    overdue = overdue_round_ids(lateness)
    ended = 0
    for start in range(0, len(overdue), ROUNDS_PER_BATCH):
        batch = overdue[start : start + ROUNDS_PER_BATCH]
        try:
            ended += len(end_rounds(batch, wait=False, deadline=True))
        except Exception:
            logger.exception("ending rounds %s together failed; ending them one by one", batch)
            for round_id in batch:
                try:
                    ended += len(end_rounds([round_id], wait=False, deadline=True))
                except Exception:  # the next call tries again
                    logger.exception("ending round %s failed", round_id)
    return ended


def prepare_stalled_rounds() -> int:
    """Prepare rounds whose preparing task was lost (a worker died)."""
    cutoff = timezone.now() - timedelta(seconds=PREPARE_TIMEOUT_SECONDS)
    stalled = Round.objects.filter(
        status=Round.Status.PREPARING, created_at__lte=cutoff, ready_since__isnull=True
    ).values_list("id", flat=True)
    return sum(do_prepare_round(round_id) for round_id in list(stalled))
