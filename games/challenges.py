"""House rules: a player challenges a word the dictionary refused, the room votes (or the
host rules on another player's challenge), and an accepted word rescores the round and
counts in the room's later rounds.

The vote (docs/api.md, "House rules: challenges"): the voters are the active players online
when the challenge opens, but the challenger. It is decided as soon as more than half of
them vote the same way; when all have voted and it is a tie, the host's vote decides (a
tie declines when the host is not a voter, e.g. the host's own challenge). So a host never
accepts their own challenge alone."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import events, presenters, state
from games.checks import check_host, is_int
from games.exceptions import RoundNotFound, WrongRoundState
from games.messages import theme_reason_text, verdict_text
from games.models import (
    Challenge,
    Player,
    Room,
    Round,
    Submission,
)
from games.room_dictionaries import (
    house_words,
    word_list_for_round,
)
from games.room_themes import on_theme, round_theme
from games.rounds import score_words
from solver.board import parse_board
from solver.judge import (
    MAX_ENTRY_LENGTH,
    Verdict,
    find_word_path,
    judge_entry,
    normalise_entry,
)
from solver.scoring import word_points
from web import text
from web.errors import InvalidInput


def check_challenge(player: Player, word: Any, round_number: Any) -> tuple[Round, str]:
    """The ended round and the word (as judged) that ``player`` challenges: one of their own
    entries refused as not in the dictionary, spelled on the board, not challenged yet."""
    if not is_int(round_number):
        raise InvalidInput("round_number is a number")
    # web.text's rule: the word is looked up (PostgreSQL refuses NUL) and stored.
    if not text.is_clean(word, MAX_ENTRY_LENGTH) or not word.strip():
        raise InvalidInput("word is a refused word as the results show it")
    room = Room.objects.filter(pk=player.room_id).values_list("game", "game_ended_at").first()
    game, ended_at = room if room is not None else (None, None)
    if ended_at is not None:
        raise WrongRoundState(_("the game has ended: its standing is final"))
    round_ = Round.objects.filter(room_id=player.room_id, number=round_number).first()
    if round_ is None:
        raise RoundNotFound(_("this room has no round %(number)s") % {"number": round_number})
    if round_.game != game:  # a round of an earlier game (new_game)
        raise WrongRoundState(_("the game has ended: its standing is final"))
    if round_.status != Round.Status.ENDED:
        raise WrongRoundState(_("challenges come with the results, once the round has ended"))
    word_list = word_list_for_round(round_)
    judged = normalise_entry(word, word_list) or word.strip().lower()
    verdicts = set(
        Submission.objects.filter(round=round_, player=player, word=judged).values_list(
            "verdict", flat=True
        )
    )
    if not verdicts:
        raise InvalidInput(
            _("you did not enter %(word)r in round %(number)s")
            % {"word": judged, "number": round_number}
        )
    if Verdict.ACCEPTED in verdicts:
        raise InvalidInput(_("%(word)r already counts") % {"word": judged})
    if Verdict.NOT_IN_DICTIONARY not in verdicts:
        reason = verdict_text(Verdict(min(verdicts)))
        raise InvalidInput(
            _(
                "only words refused as not in the dictionary can be challenged;"
                " %(word)r was refused: %(reason)s"
            )
            % {"word": judged, "reason": reason}
        )
    # Entries are judged board first (solver.judge), so a not_in_dictionary entry is on the
    # board; this guards entries stored before that order.
    if find_word_path(parse_board(round_.board), judged) is None:
        raise InvalidInput(
            _("%(word)r is not on the board either: accepting it changes nothing")
            % {"word": judged}
        )
    # A themed round counts only its theme's words (games.room_themes), accepted or not.
    theme = round_theme(round_)
    if theme is not None and not on_theme(round_, [judged], word_list.rules):
        raise InvalidInput(
            _("%(word)r is off the round's theme (%(reason)s): accepting it changes nothing")
            % {"word": judged, "reason": theme_reason_text(theme)}
        )
    earlier = Challenge.objects.filter(round=round_, word=judged).select_related("player").first()
    if earlier is not None:
        raise InvalidInput(
            _("%(nickname)s already challenged %(word)r (%(status)s)")
            % {"nickname": earlier.player.nickname, "word": judged, "status": earlier.status}
        )
    return round_, judged


@transaction.atomic(durable=True)
def do_challenge(player: Player, word: Any, round_number: Any) -> Challenge:
    """A player asks the room to accept a word the dictionary refused; everyone hears of it
    (``challenge.opened``), the voters (online now) vote with ``do_vote_challenge``, and
    the host may settle another player's challenge with ``do_rule_challenge``."""
    round_, judged = check_challenge(player, word, round_number)
    try:
        with transaction.atomic():
            challenge = Challenge.objects.create(
                room_id=player.room_id,
                round=round_,
                player=player,
                word=judged,
                dictionary=round_.dictionary,
                voters=_electorate(player),
            )
    except IntegrityError:  # another player challenged the same word a moment earlier
        raise InvalidInput(
            _("%(word)r was just challenged by someone else") % {"word": judged}
        ) from None
    room = Room.objects.get(pk=player.room_id)
    events.emit_to_room(
        room, "challenge.opened", {"challenge": presenters.challenge_dict(challenge)}
    )
    return challenge


def _electorate(challenger: Player) -> list[int]:
    """Who votes on a challenge opened now: the room's active players online at this
    moment, in joining order, but the challenger."""
    return list(
        Player.objects.filter(room_id=challenger.room_id, left_at__isnull=True, kicked=False)
        .exclude(pk=challenger.pk)
        .with_presence()
        .filter(is_online=True)
        .order_by("joined_at", "id")
        .values_list("id", flat=True)
    )


def votes_needed(challenge: Challenge) -> int:
    """A majority of the voters: more than half of them."""
    return len(challenge.voters) // 2 + 1


def vote_outcome(challenge: Challenge, host_id: int | None) -> bool | None:
    """True (accept) or False (decline) once the votes decide, None while they do not: a
    majority either way, or, all votes in and tied, the host's vote (decline when the host
    is not among the voters)."""
    accepts = sum(1 for vote in challenge.votes.values() if vote)
    declines = len(challenge.votes) - accepts
    needed = votes_needed(challenge)
    if not challenge.voters:
        return None  # nobody to vote: only the host's rule_challenge decides
    if accepts >= needed:
        return True
    if declines >= needed:
        return False
    if len(challenge.votes) == len(challenge.voters):  # a tie
        return bool(challenge.votes.get(str(host_id), False))
    return None


def _pending_challenge(room: Room, challenge_id: Any) -> Challenge:
    if room.game_ended_at is not None:  # games.standings.do_end_game
        raise WrongRoundState(_("the game has ended: its standing is final"))
    if not is_int(challenge_id):
        raise InvalidInput("challenge_id is a number")
    challenge = Challenge.objects.filter(pk=challenge_id, room=room).first()
    if challenge is None:
        raise InvalidInput(_("no such challenge in this room"))
    if challenge.round.game != room.game:  # a challenge left open in a game that has ended
        raise WrongRoundState(_("the game has ended: its standing is final"))
    if challenge.status != Challenge.Status.PENDING:
        raise InvalidInput(
            _("that challenge was already %(status)s") % {"status": challenge.status}
        )
    return challenge


@transaction.atomic(durable=True)
def do_vote_challenge(voter: Player, challenge_id: Any, accept: Any) -> Challenge:
    """A voter's vote (a later vote of theirs replaces it while the challenge is pending);
    everyone gets ``challenge.voted`` with the counts, then ``challenge.ruled`` (and
    ``round.rescored``) if the votes now decide it."""
    if not isinstance(accept, bool):
        raise InvalidInput("accept is true or false")
    room = Room.objects.select_for_update().get(pk=voter.room_id)  # one vote at a time
    challenge = _pending_challenge(room, challenge_id)
    if challenge.player_id == voter.id:
        raise InvalidInput(_("you cannot vote on your own challenge: the others decide"))
    if voter.id not in challenge.voters:
        raise InvalidInput(_("only the players online when the challenge was made vote on it"))
    challenge.votes = {**challenge.votes, str(voter.id): accept}
    challenge.save(update_fields=["votes"])
    challenge.round = Round.objects.get(pk=challenge.round_id)
    events.emit_to_room(
        room, "challenge.voted", {"challenge": presenters.challenge_dict(challenge)}
    )
    outcome = vote_outcome(challenge, room.host_id)
    if outcome is not None:
        _decide(room, challenge, outcome, None)
    return challenge


@transaction.atomic(durable=True)
def do_rule_challenge(host: Player, challenge_id: Any, accept: Any) -> Challenge:
    """The host accepts or declines another player's challenge at once, whatever the votes
    so far (``challenge.ruled``). The host's own challenges are the room's to vote on."""
    check_host(host)
    if not isinstance(accept, bool):
        raise InvalidInput("accept is true or false")
    room = Room.objects.select_for_update().get(pk=host.room_id)  # one ruling at a time
    challenge = _pending_challenge(room, challenge_id)
    if challenge.player_id == host.id:
        raise InvalidInput(
            _("you cannot rule on your own challenge: the other players vote (vote_challenge)")
        )
    _decide(room, challenge, accept, host)
    return challenge


def _decide(room: Room, challenge: Challenge, accept: bool, host: Player | None) -> None:
    """Settle a challenge (``challenge.ruled``). Accepting re-judges the round's entries of
    the word for every player, adds it to the round's solution, rescores the round with the
    duplicate rule (``round.rescored``), and makes the word count in the room's later rounds
    with the same dictionary."""
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
        events.emit_to_room(room, "round.rescored", {"results": state.results(round_)})


def _accept_word(round_: Round, word: str) -> None:
    """Re-judge every entry of ``word`` in an ended round now that the room accepts it (a
    player's first entry counts, repeats are already_entered), put the word in the round's
    solution, and score the round again: duplicates cancel as at the end of the round."""
    board = parse_board(round_.board)
    word_list = word_list_for_round(round_)
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
            word, board, word_list, round_.min_length, already=already, extra_words=extra
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
    score_words(round_)
