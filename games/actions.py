"""Game rules over the database: ``check_*`` validates and resolves, ``do_*`` changes state
and emits events.

Views and consumers only parse input and call these. Every ``do_*`` runs in one transaction
and sends its events after commit (``games.events``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef
from django.db.models.functions import Lower
from django.utils import timezone

from dictionaries.exceptions import DictionaryError
from games import events, presenters
from games.exceptions import (
    InvalidInput,
    NicknameTaken,
    NotAPlayer,
    NotHost,
    RoomNotFound,
    RoundNotFound,
    WrongRoundState,
)
from games.lexicons import (
    available_dictionaries,
    current_version,
    default_dictionary,
    get_lexicon,
    lexicon_for_round,
)
from games.models import (
    MAX_ROUND_SECONDS,
    MIN_ROUND_SECONDS,
    NICKNAME_MAX_LENGTH,
    BoardSize,
    Challenge,
    Player,
    Room,
    Round,
    Submission,
)
from solver.board import parse_board
from solver.dice import DICE_SETS, roll
from solver.errors import SolverError
from solver.judge import (
    MAX_ENTRY_LENGTH,
    Judgement,
    Verdict,
    find_word_path,
    judge_entry,
    normalise_entry,
    score_round,
)
from solver.lexicon import Lexicon
from solver.scoring import word_points
from solver.solve import FoundWord, solve

logger = logging.getLogger(__name__)

# Seconds between "round started" and the first word: time to look at the board.
COUNTDOWN_SECONDS = 3
# A round still preparing after this long lost its worker; another process prepares it.
PREPARE_TIMEOUT_SECONDS = 15
# Rooms with nobody online and no activity for this long are deleted.
IDLE_ROOM_LIFETIME = timedelta(days=1)


# ---------------------------------------------------------------- look-ups and checks


def check_room(code: str) -> Room:
    """The room with this code; RoomNotFound otherwise."""
    room = Room.objects.filter(code=str(code).strip().lower()[:16]).first()
    if room is None:
        raise RoomNotFound(f"there is no room {code!r}; check the link or create a new room")
    return room


def check_player(room: Room, token: str | None = None, player_id: int | None = None) -> Player:
    """The active player of ``room`` with this token (API clients) or id (browser session)."""
    players = Player.objects.filter(room=room, left_at__isnull=True, kicked=False)
    player = None
    if token:
        player = players.filter(token=token).first()
    elif player_id:
        player = players.filter(pk=player_id).first()
    if player is None:
        raise NotAPlayer("join the room with a nickname first")
    return player


def check_host(player: Player) -> None:
    room = Room.objects.only("host_id").get(pk=player.room_id)
    if room.host_id != player.id:
        raise NotHost("only the host can do that")


def check_nickname(room: Room, nickname: Any, exclude: Player | None = None) -> str:
    """A cleaned nickname that no other active player of the room uses."""
    if not isinstance(nickname, str):
        raise InvalidInput("a nickname is text")
    cleaned = " ".join(nickname.split())
    if not cleaned:
        raise InvalidInput("pick a nickname")
    if len(cleaned) > NICKNAME_MAX_LENGTH:
        raise InvalidInput(f"a nickname has at most {NICKNAME_MAX_LENGTH} characters")
    if any(not ch.isprintable() for ch in cleaned):
        raise InvalidInput("a nickname cannot contain control characters")
    if room.pk is None:  # a room being created has nobody in it yet
        return cleaned
    taken = Player.objects.annotate(lower=Lower("nickname")).filter(
        room=room, left_at__isnull=True, lower=cleaned.lower()
    )
    if exclude is not None:
        taken = taken.exclude(pk=exclude.pk)
    if taken.exists():
        raise NicknameTaken(f"{cleaned!r} is taken in this room; pick another nickname")
    return cleaned


def check_settings(room: Room, changes: Any) -> dict[str, Any]:
    """Validate a settings change; returns the fields to set. InvalidInput names the problem."""
    if not isinstance(changes, dict):
        raise InvalidInput("settings are an object of name: value")
    known = {
        "board_size",
        "dice_set",
        "round_seconds",
        "min_length",
        "dictionary",
        "cancel_duplicates",
        "instant_verdicts",
    }
    unknown = sorted(set(changes) - known)
    if unknown:
        raise InvalidInput(f"unknown setting {unknown[0]!r}; known: {', '.join(sorted(known))}")
    cleaned: dict[str, Any] = {}
    size = changes.get("board_size", room.board_size)
    if size not in BoardSize.values:
        raise InvalidInput(f"board_size is one of {', '.join(BoardSize.values)}")
    cleaned["board_size"] = size
    side = int(size[0])
    if "dice_set" in changes:
        dice = changes["dice_set"] or ""
        # isinstance first: a JSON list or object is unhashable and cannot be looked up.
        if dice and (
            not isinstance(dice, str) or dice not in DICE_SETS or DICE_SETS[dice].rows != side
        ):
            fitting = [n for n, d in DICE_SETS.items() if d.rows == side]
            raise InvalidInput(f"dice_set for {size} is one of {', '.join(fitting)}")
        cleaned["dice_set"] = dice
    elif "board_size" in changes and room.dice_set and DICE_SETS[room.dice_set].rows != side:
        cleaned["dice_set"] = ""  # the old set does not fit the new size
    if room.next_board and parse_board(room.next_board).size != size:
        cleaned["next_board"] = ""  # a typed board of the old size cannot be played
    if "round_seconds" in changes:
        seconds = changes["round_seconds"]
        if seconds is not None and (
            not _is_int(seconds) or not MIN_ROUND_SECONDS <= seconds <= MAX_ROUND_SECONDS
        ):
            raise InvalidInput(
                f"round_seconds is {MIN_ROUND_SECONDS} to {MAX_ROUND_SECONDS}, or null (untimed)"
            )
        cleaned["round_seconds"] = seconds
    if "min_length" in changes:
        length = changes["min_length"]
        if length is not None and (not _is_int(length) or not 2 <= length <= 8):
            raise InvalidInput("min_length is 2 to 8, or null for the board size's usual")
        cleaned["min_length"] = length
    if "dictionary" in changes:
        name = changes["dictionary"]
        if not isinstance(name, str) or name not in available_dictionaries():
            names = ", ".join(available_dictionaries())
            raise InvalidInput(f"dictionary is one of {names}")
        cleaned["dictionary"] = changes["dictionary"]
    for flag in ("cancel_duplicates", "instant_verdicts"):
        if flag in changes:
            if not isinstance(changes[flag], bool):
                raise InvalidInput(f"{flag} is true or false")
            cleaned[flag] = changes[flag]
    return cleaned


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def current_round(room_id: int) -> Round | None:
    """The room's latest round, whatever its state."""
    return Round.objects.filter(room_id=room_id).order_by("-number").first()


# ---------------------------------------------------------------- rooms and players


@transaction.atomic
def do_create_room(nickname: Any, room_settings: Any = None) -> tuple[Room, Player]:
    """Create a room with its host; settings are optional (defaults make a classic game)."""
    room = Room(dictionary=default_dictionary())
    cleaned = check_settings(room, room_settings or {})
    nickname = check_nickname(room, nickname)
    for field, value in cleaned.items():
        setattr(room, field, value)
    for _ in range(5):  # a clash of 40-bit codes is rare; try a fresh code if it happens
        try:
            with transaction.atomic():
                room.save()
            break
        except IntegrityError:
            room.code = Room._meta.get_field("code").default()
    host = Player.objects.create(room=room, nickname=nickname)
    room.host = host
    room.save(update_fields=["host"])
    return room, host


@transaction.atomic
def do_join_room(room: Room, nickname: Any) -> Player:
    cleaned = check_nickname(room, nickname)
    try:
        with transaction.atomic():
            player = Player.objects.create(room=room, nickname=cleaned)
    except IntegrityError:  # someone took it between the check and the insert
        raise NicknameTaken(f"{cleaned!r} is taken in this room; pick another nickname") from None
    if room.host_id is None:
        Room.objects.filter(pk=room.pk).update(host=player)
        room.host_id = player.id
    events.emit_to_room(room, "player.joined", {"player": presenters.player_dict(player)})
    return player


@transaction.atomic
def do_leave(player: Player) -> None:
    """The player leaves the room; hosting passes to the longest-present player."""
    now = timezone.now()
    Player.objects.filter(pk=player.pk).update(left_at=now, connections=0)
    player.left_at = now
    room = Room.objects.select_for_update().get(pk=player.room_id)
    events.emit_to_room(room, "player.left", {"player_id": player.id})
    if room.host_id == player.id:
        _pass_hosting(room)


def _pass_hosting(room: Room) -> None:
    successor = (
        Player.objects.filter(room=room, left_at__isnull=True, kicked=False)
        .order_by("-connections", "joined_at")
        .first()
    )
    room.host = successor
    room.save(update_fields=["host"])
    events.emit_to_room(room, "host.changed", {"host_id": room.host_id})


@transaction.atomic
def do_transfer_host(host: Player, player_id: Any) -> None:
    check_host(host)
    target = _other_active_player(host, player_id)
    room = Room.objects.select_for_update().get(pk=host.room_id)
    room.host = target
    room.save(update_fields=["host"])
    events.emit_to_room(room, "host.changed", {"host_id": target.id})


@transaction.atomic
def do_kick(host: Player, player_id: Any) -> None:
    check_host(host)
    target = _other_active_player(host, player_id)
    Player.objects.filter(pk=target.pk).update(kicked=True, left_at=timezone.now())
    room = Room.objects.get(pk=host.room_id)
    events.emit_to_player(target.id, "kicked", {"message": "the host removed you from the room"})
    events.emit_to_room(room, "player.left", {"player_id": target.id, "kicked": True})


def _other_active_player(host: Player, player_id: Any) -> Player:
    if not _is_int(player_id):
        raise InvalidInput("player_id is a number")
    if player_id == host.id:
        raise InvalidInput("that is you")
    target = Player.objects.filter(
        pk=player_id, room_id=host.room_id, left_at__isnull=True, kicked=False
    ).first()
    if target is None:
        raise InvalidInput("no such player in this room")
    return target


@transaction.atomic
def do_update_settings(host: Player, changes: Any) -> dict:
    check_host(host)
    room = Room.objects.select_for_update().get(pk=host.room_id)
    running = current_round(room.pk)
    if running is not None and running.status != Round.Status.ENDED:
        raise WrongRoundState("settings change between rounds; wait for this round to end")
    cleaned = check_settings(room, changes)
    for field, value in cleaned.items():
        setattr(room, field, value)
    room.save(update_fields=list(cleaned))
    data = presenters.settings_dict(room)
    events.emit_to_room(room, "settings.changed", {"settings": data})
    return data


@transaction.atomic
def do_set_next_board(host: Player, board_text: Any) -> str:
    """Use a typed (or photographed, then confirmed) board for the next round."""
    check_host(host)
    room = Room.objects.select_for_update().get(pk=host.room_id)
    if board_text in (None, ""):
        room.next_board = ""
    else:
        if not isinstance(board_text, str) or len(board_text) > 200:
            raise InvalidInput("a board is text such as 'aeol iejm pdls orkf'")
        try:
            board = parse_board(board_text)
        except SolverError as error:
            raise InvalidInput(f"bad board: {error}") from None
        if board.size != room.board_size:
            raise InvalidInput(f"this room plays {room.board_size}; that board is {board.size}")
        room.next_board = board.to_text()
    room.save(update_fields=["next_board"])
    events.emit_to_room(room, "settings.changed", {"settings": presenters.settings_dict(room)})
    return room.next_board


def do_connect(player: Player) -> None:
    with transaction.atomic():
        Player.objects.filter(pk=player.pk).update(
            connections=F("connections") + 1, last_seen_at=timezone.now()
        )
        player.refresh_from_db(fields=["connections"])
        if player.connections == 1:
            room = Room.objects.get(pk=player.room_id)
            events.emit_to_room(room, "player.online", {"player_id": player.id, "online": True})


def do_disconnect(player: Player) -> dict | None:
    """Count one socket less; returns the ``player.online`` event to send if the player is
    now offline. The caller (an async consumer) sends it: during a server shutdown a
    blocking send from this worker thread would wait for an event loop that has stopped."""
    with transaction.atomic():
        Player.objects.filter(pk=player.pk, connections__gt=0).update(
            connections=F("connections") - 1, last_seen_at=timezone.now()
        )
        player.refresh_from_db(fields=["connections", "left_at"])
        if player.connections == 0 and player.left_at is None:
            room = Room.objects.get(pk=player.room_id)
            return events.room_event(
                room, "player.online", {"player_id": player.id, "online": False}
            )
    return None


# ---------------------------------------------------------------- rounds


@transaction.atomic
def do_start_round(host: Player) -> Round:
    """Roll (or take the typed) board and start preparing a round; the solution set is
    computed by a task, which then starts the countdown."""
    check_host(host)
    room = Room.objects.select_for_update().get(pk=host.room_id)
    previous = current_round(room.pk)
    if previous is not None and previous.status != Round.Status.ENDED:
        raise WrongRoundState("a round is already under way")
    try:
        # The round keeps this version: recompiling the dictionary later never changes it.
        version = current_version(room.dictionary)
        get_lexicon(version)
    except (DictionaryError, SolverError) as error:
        raise InvalidInput(f"the room's dictionary cannot be used: {error}") from None
    if room.next_board:
        board_text, dice_set = room.next_board, ""
    else:
        dice_set = room.effective_dice_set()
        board_text = roll(dice_set).to_text()
    board = parse_board(board_text)
    round_ = Round.objects.create(
        room=room,
        number=(previous.number + 1) if previous else 1,
        board=board.to_text(),
        rows=board.rows,
        cols=board.cols,
        dice_set=dice_set,
        min_length=room.effective_min_length(),
        dictionary=room.dictionary,
        dictionary_version=version,
        cancel_duplicates=room.cancel_duplicates,
        instant_verdicts=room.instant_verdicts,
        round_seconds=room.round_seconds,
    )
    events.emit_to_room(room, "round.preparing", {"round": presenters.round_dict(round_)})
    if room.next_board:  # a typed or photographed board is used once
        room.next_board = ""
        room.save(update_fields=["next_board"])
        events.emit_to_room(room, "settings.changed", {"settings": presenters.settings_dict(room)})
    transaction.on_commit(lambda: _enqueue_prepare(round_.id))
    return round_


def _enqueue_prepare(round_id: int) -> None:
    from games import tasks

    tasks.prepare_round.delay(round_id)


def do_prepare_round(round_id: int) -> bool:
    """Solve the board, then start the countdown. Idempotent: False if already done."""
    round_ = Round.objects.filter(pk=round_id).select_related("room").first()
    if round_ is None or round_.status != Round.Status.PREPARING:
        return False
    words = _solve(round_, lexicon_for_round(round_))
    with transaction.atomic():
        starts_at = timezone.now() + timedelta(seconds=COUNTDOWN_SECONDS)
        ends_at = (
            starts_at + timedelta(seconds=round_.round_seconds) if round_.round_seconds else None
        )
        updated = Round.objects.filter(pk=round_id, status=Round.Status.PREPARING).update(
            status=Round.Status.RUNNING,
            solution=[[w.word, w.points, list(w.path)] for w in words],
            max_points=sum(w.points for w in words),
            starts_at=starts_at,
            ends_at=ends_at,
        )
        if not updated:
            return False
        round_.refresh_from_db()
        events.emit_to_room(round_.room, "round.started", {"round": presenters.round_dict(round_)})
        if ends_at is not None:
            transaction.on_commit(lambda: _schedule_end(round_id, ends_at))
    return True


def _solve(round_: Round, lexicon: Lexicon) -> list[FoundWord]:
    """Every word on the round's board: the dictionary's, and the words the room accepted on
    a challenge (house words) where the board spells them. Highest points first, then
    alphabetical, as ``solve`` sorts."""
    board = parse_board(round_.board)
    words = list(solve(board, lexicon, round_.min_length).words)
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
    from games import tasks

    tasks.end_round.apply_async((round_id,), eta=ends_at)


@dataclass(frozen=True)
class SubmitResult:
    """The referee's answer to one entry, as sent back to the player."""

    word: str
    verdict: str
    client_id: str
    # Whether the room tells players at once; otherwise verdicts wait for the results.
    instant: bool = True
    duplicate_resend: bool = False

    @property
    def accepted(self) -> bool:
        return self.verdict == Verdict.ACCEPTED

    @property
    def reason(self) -> str | None:
        """Why the word does not count, in words for the player; None if it counts."""
        if self.accepted:
            return None
        if self.verdict == ROUND_OVER:
            return "the round is over"
        return Verdict(self.verdict).message


ROUND_OVER = "round_over"


def do_submit_word(player: Player, entry: Any, client_id: Any = "") -> SubmitResult:
    """Judge an entry for the running round and store it. A resend with a client_id the
    server already has returns the stored verdict instead of judging twice."""
    if not isinstance(entry, str):
        raise InvalidInput("a word is text")
    if client_id is None:
        client_id = ""
    if not isinstance(client_id, str) or len(client_id) > 64:
        raise InvalidInput("client_id is text of at most 64 characters")
    if len(entry) > MAX_ENTRY_LENGTH:
        raise InvalidInput(f"a word has at most {MAX_ENTRY_LENGTH} letters")
    # Refused, not judged "not a word": they would be stored, and PostgreSQL refuses NUL.
    if any(not ch.isprintable() for ch in entry.strip()):
        raise InvalidInput("a word cannot contain control characters")
    round_ = current_round(player.room_id)
    if round_ is None or round_.status == Round.Status.PREPARING:
        raise WrongRoundState("no round is running; wait for the host to start one")
    if client_id:
        stored = Submission.objects.filter(round=round_, player=player, client_id=client_id).first()
        if stored is not None:
            return SubmitResult(
                stored.word, stored.verdict, client_id, round_.instant_verdicts, True
            )
    now = timezone.now()
    if round_.status == Round.Status.ENDED or (round_.ends_at and now >= round_.ends_at):
        return SubmitResult(entry.strip().lower()[:MAX_ENTRY_LENGTH], ROUND_OVER, client_id)
    if round_.starts_at and now < round_.starts_at:
        raise WrongRoundState("the round starts in a moment; wait for the countdown")
    judgement = _judge(round_, player, entry)
    try:
        with transaction.atomic():
            Submission.objects.create(
                round=round_,
                player=player,
                word=judgement.word[:80],
                verdict=judgement.verdict,
                client_id=client_id,
            )
            # With hidden verdicts every entry counts, or the counts would give them away.
            if judgement.accepted or not round_.instant_verdicts:
                counts = presenters.live_counts(round_)
                events.emit_to_room(round_.room, "round.counts", {"counts": counts})
    except IntegrityError:  # the same word raced in from a second tab
        return SubmitResult(
            judgement.word, Verdict.ALREADY_ENTERED, client_id, round_.instant_verdicts
        )
    return SubmitResult(judgement.word, judgement.verdict, client_id, round_.instant_verdicts)


def _judge(round_: Round, player: Player, entry: str) -> Judgement:
    already = set(
        Submission.objects.filter(
            round=round_, player=player, verdict=Verdict.ACCEPTED
        ).values_list("word", flat=True)
    )
    return judge_entry(
        entry,
        parse_board(round_.board),
        lexicon_for_round(round_),
        round_.min_length,
        already=already,
        extra_words=house_words(round_.room_id, round_.dictionary),
    )


@transaction.atomic
def do_end_round_now(host: Player) -> bool:
    """The host stops the clock (untimed rounds, or a physical game that is over)."""
    check_host(host)
    round_ = current_round(host.room_id)
    if round_ is None or round_.status != Round.Status.RUNNING:
        raise WrongRoundState("no round is running")
    return do_end_round(round_.id)


def do_end_round(round_id: int) -> bool:
    """End and score a round exactly once; False if it had already ended (or never ran)."""
    with transaction.atomic():
        now = timezone.now()
        # The conditional update is the gate: of several processes ending the same round at
        # once, exactly one sees updated == 1.
        updated = Round.objects.filter(pk=round_id, status=Round.Status.RUNNING).update(
            status=Round.Status.ENDED, ended_at=now
        )
        if not updated:
            return False
        round_ = Round.objects.select_related("room").get(pk=round_id)
        _score(round_)
        events.emit_to_room(
            round_.room, "round.ended", {"results": presenters.results_dict(round_)}
        )
    logger.info("round %s ended", round_)
    return True


def _score(round_: Round) -> None:
    accepted = list(Submission.objects.filter(round=round_, verdict=Verdict.ACCEPTED))
    words_by_player: dict[int, list[str]] = {}
    for submission in accepted:
        words_by_player.setdefault(submission.player_id, []).append(submission.word)
    scored = score_round(words_by_player, round_.rows, round_.cols, round_.cancel_duplicates)
    outcome = {
        (player_id, item.word): item for player_id, items in scored.items() for item in items
    }
    for submission in accepted:
        item = outcome[(submission.player_id, submission.word)]
        submission.points = item.points
        submission.cancelled = item.cancelled
    Submission.objects.bulk_update(accepted, ["points", "cancelled"])
    Submission.objects.filter(round=round_).exclude(verdict=Verdict.ACCEPTED).update(points=0)


# ---------------------------------------------------------------- house rules: challenges


def house_words(room_id: int, dictionary: str) -> frozenset[str]:
    """Words the room's host accepted on a challenge; they count in the room's rounds played
    with ``dictionary`` (a word accepted in English says nothing about French)."""
    return frozenset(
        Challenge.objects.filter(
            room_id=room_id, dictionary=dictionary, status=Challenge.Status.ACCEPTED
        ).values_list("word", flat=True)
    )


def check_challenge(player: Player, word: Any, round_number: Any) -> tuple[Round, str]:
    """The ended round and the word (as judged) that ``player`` challenges: one of their own
    entries refused as not in the dictionary, spelled on the board, not challenged yet."""
    if not _is_int(round_number):
        raise InvalidInput("round_number is a number")
    if not isinstance(word, str) or not word.strip() or len(word) > MAX_ENTRY_LENGTH:
        raise InvalidInput("word is a refused word as the results show it")
    round_ = Round.objects.filter(room_id=player.room_id, number=round_number).first()
    if round_ is None:
        raise RoundNotFound(f"this room has no round {round_number}")
    if round_.status != Round.Status.ENDED:
        raise WrongRoundState("challenges come with the results, once the round has ended")
    judged = normalise_entry(word, lexicon_for_round(round_)) or word.strip().lower()
    verdicts = set(
        Submission.objects.filter(round=round_, player=player, word=judged).values_list(
            "verdict", flat=True
        )
    )
    if not verdicts:
        raise InvalidInput(f"you did not enter {judged!r} in round {round_number}")
    if Verdict.ACCEPTED in verdicts:
        raise InvalidInput(f"{judged!r} already counts")
    if Verdict.NOT_IN_DICTIONARY not in verdicts:
        reason = Verdict(min(verdicts)).message
        raise InvalidInput(
            "only words refused as not in the dictionary can be challenged; "
            f"{judged!r} was refused: {reason}"
        )
    if find_word_path(parse_board(round_.board), judged) is None:
        raise InvalidInput(f"{judged!r} is not on the board either: accepting it changes nothing")
    earlier = Challenge.objects.filter(round=round_, word=judged).select_related("player").first()
    if earlier is not None:
        raise InvalidInput(
            f"{earlier.player.nickname} already challenged {judged!r} ({earlier.status})"
        )
    return round_, judged


@transaction.atomic
def do_challenge(player: Player, word: Any, round_number: Any) -> Challenge:
    """A player asks the host to accept a word the dictionary refused; everyone hears of it
    (``challenge.opened``) and the host rules with ``do_rule_challenge``."""
    round_, judged = check_challenge(player, word, round_number)
    try:
        with transaction.atomic():
            challenge = Challenge.objects.create(
                room_id=player.room_id,
                round=round_,
                player=player,
                word=judged,
                dictionary=round_.dictionary,
            )
    except IntegrityError:  # another player challenged the same word a moment earlier
        raise InvalidInput(f"{judged!r} was just challenged by someone else") from None
    room = Room.objects.get(pk=player.room_id)
    events.emit_to_room(
        room, "challenge.opened", {"challenge": presenters.challenge_dict(challenge)}
    )
    return challenge


@transaction.atomic
def do_rule_challenge(host: Player, challenge_id: Any, accept: Any) -> Challenge:
    """The host accepts or declines a challenge (``challenge.ruled``). Accepting re-judges
    the round's entries of the word for every player, adds it to the round's solution,
    rescores the round with the duplicate rule (``round.rescored``), and makes the word
    count in the room's later rounds with the same dictionary."""
    check_host(host)
    if not _is_int(challenge_id):
        raise InvalidInput("challenge_id is a number")
    if not isinstance(accept, bool):
        raise InvalidInput("accept is true or false")
    room = Room.objects.select_for_update().get(pk=host.room_id)  # one ruling at a time
    challenge = Challenge.objects.filter(pk=challenge_id, room=room).first()
    if challenge is None:
        raise InvalidInput("no such challenge in this room")
    if challenge.status != Challenge.Status.PENDING:
        raise InvalidInput(f"that challenge was already {challenge.status}")
    challenge.status = Challenge.Status.ACCEPTED if accept else Challenge.Status.DECLINED
    challenge.decided_at = timezone.now()
    challenge.decided_by = host
    challenge.save(update_fields=["status", "decided_at", "decided_by"])
    round_ = Round.objects.select_related("room").get(pk=challenge.round_id)
    challenge.round = round_
    events.emit_to_room(
        room, "challenge.ruled", {"challenge": presenters.challenge_dict(challenge)}
    )
    if accept:
        _accept_word(round_, challenge.word)
        events.emit_to_room(room, "round.rescored", {"results": presenters.results_dict(round_)})
    return challenge


def _accept_word(round_: Round, word: str) -> None:
    """Re-judge every entry of ``word`` in an ended round now that the room accepts it (a
    player's first entry counts, repeats are already_entered), put the word in the round's
    solution, and score the round again: duplicates cancel as at the end of the round."""
    board = parse_board(round_.board)
    lexicon = lexicon_for_round(round_)
    extra = house_words(round_.room_id, round_.dictionary) | {word}
    accepted: dict[int, set[str]] = {}
    for player_id, known in Submission.objects.filter(
        round=round_, verdict=Verdict.ACCEPTED
    ).values_list("player_id", "word"):
        accepted.setdefault(player_id, set()).add(known)
    entries = list(
        Submission.objects.filter(
            round=round_, word=word, verdict=Verdict.NOT_IN_DICTIONARY
        ).order_by("id")
    )
    for entry in entries:
        already = accepted.setdefault(entry.player_id, set())
        judgement = judge_entry(
            word, board, lexicon, round_.min_length, already=already, extra_words=extra
        )
        entry.verdict = judgement.verdict
        if judgement.accepted:
            already.add(judgement.word)
    Submission.objects.bulk_update(entries, ["verdict"])
    if word not in {entry[0] for entry in round_.solution}:
        path = find_word_path(board, word)
        if path is not None and len(word) >= round_.min_length:
            points = word_points(len(word), round_.rows, round_.cols)
            round_.solution = sorted(
                [*round_.solution, [word, points, list(path)]], key=lambda e: (-e[1], e[0])
            )
            round_.max_points += points
            round_.save(update_fields=["solution", "max_points"])
    _score(round_)


def end_overdue_rounds() -> int:
    """End every running round past its deadline; returns how many this call ended."""
    overdue = Round.objects.filter(
        status=Round.Status.RUNNING, ends_at__isnull=False, ends_at__lte=timezone.now()
    ).values_list("id", flat=True)
    return sum(do_end_round(round_id) for round_id in list(overdue))


def prepare_stalled_rounds() -> int:
    """Prepare rounds whose preparing task was lost (a worker died)."""
    cutoff = timezone.now() - timedelta(seconds=PREPARE_TIMEOUT_SECONDS)
    stalled = Round.objects.filter(
        status=Round.Status.PREPARING, created_at__lte=cutoff
    ).values_list("id", flat=True)
    return sum(do_prepare_round(round_id) for round_id in list(stalled))


def cleanup_idle_rooms() -> int:
    """Delete rooms with nobody online and no activity for a day; returns how many."""
    cutoff = timezone.now() - IDLE_ROOM_LIFETIME
    someone_online = Player.objects.filter(
        room=OuterRef("pk"), connections__gt=0, left_at__isnull=True
    )
    idle = Room.objects.filter(last_active_at__lt=cutoff).exclude(Exists(someone_online))
    count = 0
    for room in idle:
        room.delete()
        count += 1
    return count
