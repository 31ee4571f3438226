"""Daily attempts: a solo room on today's board whose round starts at once; its score
becomes the device's result under its nickname when the round ends (the device's first
finished attempt under that nickname that day; later ones are practice).

The public leaderboard lists, per nickname, the first result with points, a human pace and
human findings (daily.plausibility): that device owns the nickname for the day, and other devices are
refused it. A result with 0 points, or flagged, claims nothing (docs/api.md, "What the
leaderboard guarantees")."""

from __future__ import annotations

import logging
from datetime import date
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models.functions import Coalesce
from django.utils.translation import gettext as _

from daily import boards, plausibility
from daily.exceptions import NicknameHeldToday, OneRoundRoom, SoloRoom
from daily.models import DailyGame, DailyScore
from dictionaries.exceptions import DictionaryError
from games import common_words, replays, rounds
from games.models import Player, Room, Round, Submission
from games.nicknames import display_nickname, nickname_key
from solver.errors import SolverError
from solver.judge import Verdict
from web import text
from web.errors import InvalidInput

logger = logging.getLogger(__name__)


def check_nickname_free(day: date, nickname: Any, device: str) -> None:
    """Raise NicknameHeldToday when another device owns the nickname (or a look-alike)
    on ``day``'s leaderboard. A nickname that is not text is left to the room's checks."""
    if not isinstance(nickname, str):
        return
    key = nickname_key(display_nickname(nickname))
    if not text.is_clean(key, len(key)):
        return  # NUL, a lone surrogate: no stored key has one, and the room refuses it
    holder = (
        DailyScore.objects.filter(date=day, nickname_key=key, listed=True)
        .exclude(device=device)
        .values_list("nickname", flat=True)
        .first()
    )
    if holder is not None:
        raise NicknameHeldToday(
            _(
                "'%(nickname)s' is on today's leaderboard from another device (as "
                "'%(holder)s'); pick another nickname"
            )
            % {"nickname": nickname, "holder": holder}
        )


@transaction.atomic
def do_start_attempt(nickname: Any, device: str) -> tuple[Room, Player, DailyGame]:
    """Create the solo room on today's board (English, 4x4, 3 minutes) and start its round:
    the page opens on the countdown, with no lobby. ``device``: daily.devices."""
    day = boards.today()
    check_nickname_free(day, nickname, device)
    try:
        board = boards.board_for(day)
    except (DictionaryError, SolverError) as error:
        raise InvalidInput(
            _("the daily board needs the English dictionary: %(error)s") % {"error": error}
        ) from None
    settings = {
        "board_size": boards.DAILY_BOARD_SIZE,
        "round_seconds": boards.DAILY_ROUND_SECONDS,
        "dictionary": boards.DAILY_DICTIONARY,
    }
    room, host = replays.do_create_room(nickname, settings, board.board)
    game = DailyGame.objects.create(room=room, date=day, player=host, device=device)
    rounds.do_start_round(host)
    room.refresh_from_db()  # as the round left it: its board taken, no next_board to show
    return room, host, game


def entry_for(day: Any, nickname_key: str) -> DailyScore | None:
    """The nickname's public leaderboard entry of that date, if it has one."""
    return DailyScore.objects.filter(date=day, nickname_key=nickname_key, listed=True).first()


def result_of(game: DailyGame) -> DailyScore | None:
    """The device's result under the attempt's nickname that date (listed or not)."""
    return DailyScore.objects.filter(
        date=game.date, nickname_key=game.player.nickname_key, device=game.device
    ).first()


def record_rounds(sender: Any, rounds: list[Round], **kwargs: Any) -> None:
    """games.signals.rounds_ended: the first round of a daily room is its attempt. Its
    player's score becomes the device's result under the nickname for the board's date
    (not the date it ended: a round begun at 23:59 counts for that day), unless the device
    has one already. It is listed when it has points, a human pace and human findings, and
    no other device listed the nickname first. One query finds the attempts among the
    rounds."""
    first_rounds = {round_.room_id: round_ for round_ in rounds if round_.number == 1}
    if not first_rounds:  # no query for later rounds
        return
    games = DailyGame.objects.filter(
        room_id__in=list(first_rounds), counted__isnull=True
    ).select_related("player")
    for game in games:
        try:
            with transaction.atomic():  # a savepoint: a failure leaves the rounds' end alone
                counted = result_of(game) is None and _store_result(
                    game, first_rounds[game.room_id]
                )
                DailyGame.objects.filter(pk=game.pk).update(counted=counted)
        except Exception:  # one attempt's failure must not cost the other rooms theirs
            logger.exception("daily: recording the attempt of room %s failed", game.room_id)


def _store_result(game: DailyGame, round_: Round) -> bool:
    """Write the attempt's result; False when the device got one just now (a race)."""
    player = game.player
    points, words, best_word, times, found = _score(round_, player)
    reason = plausibility.pace_reason(times) or plausibility.findings_reason(
        found, _board_words(round_)
    )
    fields = {
        "date": game.date,
        "nickname": player.nickname,
        "nickname_key": player.nickname_key,
        "device": game.device,
        "points": points,
        "words": words,
        "best_word": best_word,
        "finished_at": round_.ended_at,
        "player": player,
        "flagged": bool(reason),
        "flag_reason": reason[:200],
    }
    listings = [True, False] if points > 0 and not reason else [False]
    for listed in listings:
        try:
            with transaction.atomic():
                DailyScore.objects.create(listed=listed, **fields)
            return True
        except IntegrityError:  # another device listed the nickname, or this one has a result
            continue
    return False


def _score(round_: Round, player: Player) -> tuple[int, int, str, list[float], list[str]]:
    """Points, words that scored, the best of them (most points, then longest, then first
    alphabetically), after games.rounds.score_words; and, for daily.plausibility, when each
    accepted word reached the server (seconds since the round started) and the accepted words in
    the order they were entered."""
    # When each word reached the server, not when its row was written (accepted words are
    # written in batches: written times bunch up); rows from before received_at: written.
    accepted = list(
        Submission.objects.filter(round=round_, player=player, verdict=Verdict.ACCEPTED)
        .annotate(arrived=Coalesce("received_at", "created_at"))
        .order_by("arrived", "id")
        .values_list("word", "points", "cancelled", "arrived")
    )
    scored = [(word, points or 0) for word, points, cancelled, _at in accepted if not cancelled]
    best = min(scored, key=lambda item: (-item[1], -len(item[0]), item[0]), default=("", 0))
    origin = round_.starts_at or round_.created_at
    times = [(at - origin).total_seconds() for *_rest, at in accepted]
    found = [word for word, *_rest in accepted]
    return sum(points for _, points in scored), len(scored), best[0], times, found


def _board_words(round_: Round) -> list[plausibility.BoardWord]:
    """The round's solution as daily.plausibility judges it: each word's points, and
    whether it is common (games.common_words: the flag stored when it was solved)."""
    common = common_words.round_common_words(round_.solution, round_.dictionary)
    return [
        plausibility.BoardWord(entry[0], entry[1], entry[0] in common) for entry in round_.solution
    ]


@transaction.atomic(durable=True)
def do_clear_flag(score: DailyScore) -> bool:
    """Staff found a flagged result human after all (the admin's action): unflag it and
    list it if it has points and the nickname is still free. True when listed."""
    score.flagged = False
    score.flag_reason = ""
    free = (
        not DailyScore.objects.filter(date=score.date, nickname_key=score.nickname_key, listed=True)
        .exclude(pk=score.pk)
        .exists()
    )
    score.listed = score.points > 0 and free
    score.save(update_fields=["flagged", "flag_reason", "listed"])
    return score.listed


def refuse_join(sender: Any, room: Room, **kwargs: Any) -> None:
    """games.signals.player_joining: a daily board's room is played alone."""
    if DailyGame.objects.filter(room=room).exists():
        raise SoloRoom(
            _(
                "this room plays a daily board, which is played alone; "
                "play today's board yourself from the start page"
            )
        )


def refuse_more_rounds(sender: Any, room: Room, number: int, **kwargs: Any) -> None:
    """games.signals.round_starting: a daily room plays one round, its daily board; a
    second one would be a random board that is neither the daily one nor on its page."""
    if number > 1 and DailyGame.objects.filter(room=room).exists():
        raise _one_round_only()


def refuse_new_game(sender: Any, room: Room, **kwargs: Any) -> None:
    """games.signals.game_starting: no rematch in a daily room (its one round is played)."""
    if DailyGame.objects.filter(room=room).exists():
        raise _one_round_only()


def _one_round_only() -> OneRoundRoom:
    return OneRoundRoom(
        _(
            "a daily board's room plays one round, the daily board; "
            "for more rounds, start a practice round from the start page"
        )
    )
