"""The word path: judge a player's entry for the running round and store it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from games import events, presenters
from games.checks import current_round
from games.exceptions import (
    InvalidInput,
    WrongRoundState,
)
from games.lexicons import (
    house_words,
    lexicon_for_round,
)
from games.models import (
    Player,
    Round,
    Submission,
)
from solver.board import parse_board
from solver.judge import (
    MAX_ENTRY_LENGTH,
    Judgement,
    Verdict,
    judge_entry,
)


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
