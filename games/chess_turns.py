"""The moves of a chess-clock round (docs/api.md, "Chess clock"; the game is
``games.chess``): the clock starts when the countdown ends, a word passes the turn, a flag
falls, the host skips a player who is away.

The server keeps every clock. The round's ``ends_at`` is always the running clock's flag
time, so the deadline watchers (``games.deadlines``) and the end task wake at that moment
and the ending path (``games.rounds.end_rounds`` at a deadline) calls ``rounds_to_end``,
which lets the flag fall instead of ending the round while two players or more are left.
The clock's start at the countdown's end goes the same way: a chess round starts with
``ends_at`` at its ``starts_at``.

Every move reads and writes ``Round.chess`` in one transaction with the round's row locked
(on SQLite the write transaction is the lock), so two processes never both move a clock,
and announces itself with a ``chess.turn`` event after the commit. Entries count by when
they reached the server (``received_at``): a word that came before its player's flag fell
counts even if the server gets to it just after.
"""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, NamedTuple

from django.db import transaction
from django.utils.translation import gettext as _

from games import events, modes, presence
from games.checks import check_host, current_round, is_int
from games.chess import ChessGame
from games.exceptions import NotAPlayer, NotEnoughPlayers, WrongRoundState
from games.models import Player, Room, Round, Submission
from solver.chess_clock import ChessClock
from solver.judge import Judgement, Verdict
from web.errors import InvalidInput

# Players a chess round needs: with one there is nobody to play against.
MIN_PLAYERS = 2
# Why the clock moved, as ``chess.turn`` says.
START, PLAYED, FLAG, SKIP = "start", "played", "flag", "skip"

_shuffle = random.SystemRandom().shuffle


def check_enough_players(room: Room) -> None:
    """A chess room starts a round only with two active players or more."""
    players = Player.objects.filter(room=room, left_at__isnull=True, kicked=False).count()
    if players < MIN_PLAYERS:
        raise NotEnoughPlayers(
            _(
                "a chess clock round needs two players at least: invite someone with the"
                " link, or pick another mode"
            )
        )


def new_game(room: Room) -> dict[str, Any]:
    """``Round.chess`` of a chess round starting in ``room``: each player's time, copied
    now; the order is drawn when the countdown ends."""
    return ChessGame(room.chess_seconds).to_dict()


def rounds_to_end(locked: list[tuple[int, str]], deadline: bool) -> list[int]:
    """Of the running rounds (id, mode) whose rows the caller has locked to end them, the
    ones to end. At a ``deadline`` (watchers, the end task) a chess round's clock moves
    first: it starts when the countdown is over, and each flag that fell puts its player
    out; the round ends only once one player (or none) is left. The host's ``end_round``
    (no deadline) ends chess rounds too. No query unless a chess round is among them."""
    ended = [round_id for round_id, mode in locked if not (deadline and mode == modes.CHESS)]
    moving = [round_id for round_id, mode in locked if deadline and mode == modes.CHESS]
    if moving:
        now_ms = events.server_now_ms()
        for round_ in Round.objects.filter(pk__in=moving).select_related("room"):
            game = _catch_up(round_, _game(round_), now_ms)
            if game.clock is not None and game.clock.over:
                ended.append(round_.id)
            elif round_.ends_at != (deadline_at := _deadline(round_, game)):
                # Not the clock's deadline (moved by hand): the enders would look in vain
                # at every check until the flag.
                Round.objects.filter(pk=round_.pk).update(ends_at=deadline_at)
    return ended


class Turn(NamedTuple):
    """The answer to a chess round's entry: the word as judged, its verdict, and whether it
    is a resend of an entry stored before (same ``client_id``)."""

    word: str
    verdict: str
    resent: bool = False


@transaction.atomic
def take_turn(
    round_id: int, player_id: int, judgement: Judgement, client_id: str, received_at: float
) -> Turn | None:
    """Judge an entry of a chess round (``judgement``: the referee's, without the clock) by
    the clock as it was when it reached the server, and play it when it counts: stored, the
    player's clock stopped, the turn passed on. None when the round is not running (it
    ended). Refused entries are not stored here (the caller queues them, as every refused
    entry). Worker thread."""
    round_ = _locked(round_id)
    if round_ is None or round_.status != Round.Status.RUNNING:
        return None
    if client_id:
        stored = (
            Submission.objects.filter(round_id=round_id, player_id=player_id, client_id=client_id)
            .values_list("word", "verdict")
            .first()
        )
        if stored is not None:
            return Turn(stored[0], stored[1], resent=True)
    received_ms = int(received_at * 1000)
    # The flags that fell before the entry came; not those after, which would put out a
    # player whose word came in time.
    game = _catch_up(round_, _game(round_), received_ms)
    clock = game.clock
    word = judgement.word
    if clock is None or clock.current != player_id or received_ms < clock.turn_started_ms:
        return Turn(word, Verdict.NOT_YOUR_TURN)
    if judgement.verdict == Verdict.ALREADY_ENTERED or (
        judgement.accepted and game.has_played(word)
    ):
        return Turn(word, Verdict.ALREADY_PLAYED)
    if not judgement.accepted:
        return Turn(word, judgement.verdict)
    if not Player.objects.filter(pk=player_id, left_at__isnull=True, kicked=False).exists():
        raise NotAPlayer(_("you left this room; join it again to play"))
    Submission.objects.create(
        round_id=round_id,
        player_id=player_id,
        word=word,
        verdict=Verdict.ACCEPTED,
        client_id=client_id,
        received_at=datetime.fromtimestamp(received_at, tz=UTC),
    )
    played = replace(game, clock=clock.play(received_ms), played=(*game.played, (player_id, word)))
    _move(round_, played, PLAYED, player_id, word)
    return Turn(word, Verdict.ACCEPTED)


@transaction.atomic(durable=True)
def do_skip_player(host: Player, player_id: Any) -> None:
    """The host puts out a player of the running chess round who is offline or has left
    the room: the next player's clock starts now if it was their turn."""
    check_host(host)
    if not is_int(player_id):
        raise InvalidInput(_("player_id is a player's id"))
    latest = current_round(host.room_id)
    round_ = None if latest is None else _locked(latest.id)
    if round_ is None or round_.status != Round.Status.RUNNING or round_.mode != modes.CHESS:
        raise WrongRoundState(_("no chess clock round is running"))
    now_ms = events.server_now_ms()
    game = _catch_up(round_, _game(round_), now_ms)
    if game.clock is None:
        raise WrongRoundState(_("the clocks start when the countdown ends"))
    if player_id not in game.clock.playing or game.clock.over:
        raise InvalidInput(_("that player is not in the game: out already, or watching"))
    if _online(player_id):
        raise InvalidInput(_("only a player who is offline or has left the room can be skipped"))
    _move(round_, replace(game, clock=game.clock.skip(player_id, now_ms)), SKIP, player_id)


def _locked(round_id: int) -> Round | None:
    """The round with its row locked for this transaction (not its room's)."""
    return (
        Round.objects.select_for_update(of=("self",))
        .select_related("room")
        .filter(pk=round_id)
        .first()
    )


def _game(round_: Round) -> ChessGame:
    return ChessGame.of(round_) or ChessGame(round_.room.chess_seconds)


def _catch_up(round_: Round, game: ChessGame, at_ms: int) -> ChessGame:
    """The game as the clock has it at ``at_ms``: started when the countdown ended, and
    every flag that fell by then fallen, each stored and announced."""
    if game.clock is None:
        assert round_.starts_at is not None  # a running round has started its countdown
        starts_ms = _ms(round_.starts_at)
        if at_ms < starts_ms:
            return game
        game = replace(game, clock=ChessClock.start(_draw_order(round_), game.seconds, starts_ms))
        _move(round_, game, START)
    while game.clock is not None and not game.clock.over:
        falls = game.clock.flag_falls_at()
        if falls is None or falls > at_ms:
            break
        out = game.clock.current
        game = replace(game, clock=game.clock.flag(at_ms))
        _move(round_, game, FLAG, out)
    return game


def _draw_order(round_: Round) -> list[int]:
    """The turn order, drawn at random among the room's players who are there when the
    countdown ends (online; all its active players if fewer than two are). A player who
    joins later watches."""
    players = presence.online_player_ids(round_.room_id)
    if len(players) < MIN_PLAYERS:
        players = list(
            Player.objects.filter(room_id=round_.room_id, left_at__isnull=True, kicked=False)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
    _shuffle(players)
    return players


def _move(
    round_: Round, game: ChessGame, reason: str, player_id: int | None = None, word: str = ""
) -> None:
    """Store the game and its deadline, and announce the move (after the commit)."""
    round_.chess = game.to_dict()
    round_.ends_at = _deadline(round_, game)
    Round.objects.filter(pk=round_.pk).update(chess=round_.chess, ends_at=round_.ends_at)
    events.emit_to_room(
        round_.room,
        "chess.turn",
        {
            "round_number": round_.number,
            "reason": reason,
            "player_id": player_id,
            "word": word or None,
            "chess": game.as_dict(),
        },
    )


def _deadline(round_: Round, game: ChessGame) -> datetime | None:
    """When the enders must look at the round next: the countdown's end before the clock
    starts, the running clock's flag, or, once one player is left, at once."""
    clock = game.clock
    if clock is None:
        return round_.starts_at
    falls = clock.flag_falls_at()
    return _datetime(clock.turn_started_ms if falls is None else falls)


def _online(player_id: int) -> bool:
    """Whether the player is in the room with a socket open (games.presence)."""
    return (
        Player.objects.filter(pk=player_id, left_at__isnull=True, kicked=False)
        .with_presence()
        .filter(is_online=True)
        .exists()
    )


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def _datetime(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)
