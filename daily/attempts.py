"""Daily attempts: a solo room on today's board whose round starts at once; its score goes
to the leaderboard when the round ends (the first finished attempt of a nickname that day;
later ones are practice)."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from daily import boards
from daily.exceptions import SoloRoom
from daily.models import DailyGame, DailyScore
from dictionaries.exceptions import DictionaryError
from games import replays, rounds
from games.exceptions import InvalidInput
from games.models import Player, Room, Round, Submission
from solver.errors import SolverError
from solver.judge import Verdict


@transaction.atomic
def do_start_attempt(nickname: Any) -> tuple[Room, Player, DailyGame]:
    """Create the solo room on today's board (English, 4x4, 3 minutes) and start its round:
    the page opens on the countdown, with no lobby."""
    day = boards.today()
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
    game = DailyGame.objects.create(room=room, date=day, player=host)
    rounds.do_start_round(host)
    return room, host, game


def entry_for(day: Any, nickname_key: str) -> DailyScore | None:
    """The nickname's leaderboard entry of that date, if it has one."""
    return DailyScore.objects.filter(date=day, nickname_key=nickname_key).first()


def record_round(sender: Any, round: Round, **kwargs: Any) -> None:
    """games.signals.round_ended: the first round of a daily room is its attempt. Its
    player's score becomes the nickname's entry of the board's date (not the date it ended:
    a round begun at 23:59 counts for that day), unless the nickname has one already."""
    if round.number != 1:  # no query for later rounds
        return
    game = DailyGame.objects.filter(room_id=round.room_id).select_related("player").first()
    if game is None or game.counted is not None:
        return
    player = game.player
    with transaction.atomic():  # a savepoint: a failure here leaves the round's end alone
        counted = False
        if entry_for(game.date, player.nickname_key) is None:
            points, words, best_word = _score(round, player)
            try:
                with transaction.atomic():
                    DailyScore.objects.create(
                        date=game.date,
                        nickname=player.nickname,
                        nickname_key=player.nickname_key,
                        points=points,
                        words=words,
                        best_word=best_word,
                        finished_at=round.ended_at,
                        player=player,
                    )
                counted = True
            except IntegrityError:  # an attempt under the same nickname ended just now
                counted = False
        DailyGame.objects.filter(pk=game.pk).update(counted=counted)


def _score(round_: Round, player: Player) -> tuple[int, int, str]:
    """Points, words that scored, and the best of them (most points, then longest, then
    first alphabetically), after games.rounds.score_words."""
    scored = list(
        Submission.objects.filter(
            round=round_, player=player, verdict=Verdict.ACCEPTED, cancelled=False
        ).values_list("word", "points")
    )
    best = min(scored, key=lambda item: (-item[1], -len(item[0]), item[0]), default=("", 0))
    return sum(points for _, points in scored), len(scored), best[0]


def refuse_join(sender: Any, room: Room, **kwargs: Any) -> None:
    """games.signals.player_joining: a daily board's room is played alone."""
    if DailyGame.objects.filter(room=room).exists():
        raise SoloRoom(
            _(
                "this room plays a daily board, which is played alone; "
                "play today's board yourself from the start page"
            )
        )
