"""Hints in solo practice rooms (``Room.practice``, made by daily.practice): during a round a
player may buy the first letters of a word of the board they have not found yet.

The rule (docs/api.md, "Hints"): the server picks a word the player has not found, common
words first (games.common_words), those of 4 letters or more before 3-letter ones, then the
shortest, then alphabetical. The first hint on
a word shows its first 2 letters, each further hint one letter more, never the whole word;
once a word shows all but its last letter, or the player finds it, the next hint picks
another word. Each hint costs HINT_COST points, taken off the player's score for that
round, which never goes below 0. Daily boards and rooms with friends offer no hints: their
scores are compared with other players'.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from games import common_words
from games.checks import current_round
from games.exceptions import HintsNotOffered, NoHintLeft, WrongRoundState
from games.models import Hint, Player, Room, Round, Submission
from games.state_parts import StateView
from solver.judge import Verdict

# Points one hint costs, taken off the round's score (never below 0).
HINT_COST = 1
# Letters the first hint on a word shows; each further hint shows one more.
FIRST_LETTERS = 2


@dataclass(frozen=True)
class HintShown:
    """What a hint tells the player: the word's length and its first letters."""

    round_number: int
    word_length: int
    letters: str
    hints_used: int  # this round, by this player, this one included

    def as_dict(self) -> dict:
        return {
            "round": self.round_number,
            "word_length": self.word_length,
            "letters": self.letters,
            "hints_used": self.hints_used,
            "cost": HINT_COST,
        }


def letters_shown(word: str, count: int) -> str:
    """The first letters ``count`` hints on ``word`` show: never the whole word."""
    return word[: min(FIRST_LETTERS + count - 1, len(word) - 1)]


def can_show_more(word: str, count: int) -> bool:
    return len(letters_shown(word, count + 1)) > len(letters_shown(word, count))


def check_hints_offered(room: Room) -> None:
    if not room.practice:
        raise HintsNotOffered(_("hints are offered in solo practice rooms only"))


def check_round_playing(round_: Round | None) -> Round:
    """The running round once its countdown is over and before its deadline."""
    now = timezone.now()
    if round_ is None or round_.status != Round.Status.RUNNING or round_.starts_at is None:
        raise WrongRoundState(_("no round is running"))
    if now < round_.starts_at:
        raise WrongRoundState(_("the round starts in a moment; wait for the countdown"))
    if round_.ends_at is not None and now >= round_.ends_at:
        raise WrongRoundState(_("the round is over"))
    return round_


def _next_word(round_: Round, found: set[str], hinted: set[str]) -> str:
    """The word a new hint is about (the module's order)."""
    common = common_words.round_common_words(round_.solution, round_.dictionary)
    candidates = [
        entry[0] for entry in round_.solution if entry[0] not in found and entry[0] not in hinted
    ]
    if not candidates:
        raise NoHintLeft(_("no hint left: every word is found or shown as far as hints go"))
    # Common words of 4+ letters first: a 3-letter word's first hint leaves one letter.
    return min(candidates, key=lambda word: (word not in common, len(word) < 4, len(word), word))


@transaction.atomic(durable=True)
def do_hint(player: Player) -> HintShown:
    """Buy a hint for ``player`` in their room's running round (see the module's rule)."""
    # The player's row is the lock: two hints asked at once are counted one after the other.
    player = Player.objects.select_for_update().select_related("room").get(pk=player.pk)
    check_hints_offered(player.room)
    round_ = check_round_playing(current_round(player.room_id))
    found = set(
        Submission.objects.filter(
            round=round_, player=player, verdict=Verdict.ACCEPTED
        ).values_list("word", flat=True)
    )
    bought = list(Hint.objects.filter(round=round_, player=player).order_by("id"))
    latest = bought[-1] if bought else None
    if latest is not None and latest.word not in found and can_show_more(latest.word, latest.count):
        latest.count += 1
        latest.save(update_fields=["count"])
    else:
        word = _next_word(round_, found, {hint.word for hint in bought})
        latest = Hint.objects.create(round=round_, player=player, word=word)
        bought.append(latest)
    return HintShown(
        round_number=round_.number,
        word_length=len(latest.word),
        letters=letters_shown(latest.word, latest.count),
        hints_used=sum(hint.count for hint in bought),
    )


def hints_used(round_ids: Iterable[int]) -> dict[tuple[int, int], int]:
    """Hints bought per (round id, player id)."""
    rows = (
        Hint.objects.filter(round_id__in=list(round_ids))
        .values("round_id", "player_id")
        .annotate(used=Sum("count"))
    )
    return {(row["round_id"], row["player_id"]): row["used"] for row in rows}


def round_score(word_points: int, used: int) -> int:
    """A round's score after its hints: never below 0."""
    return max(0, word_points - used * HINT_COST)


def state_part(view: StateView) -> dict[str, Any]:
    """The room state's ``hints`` (games.state_parts): None outside practice rooms; else the
    cost, and the viewer's hints in the running round (how many, and the latest word's
    letters) so that a reloaded page shows them again."""
    return {"hints": _hints_of(view.room, view.current, view.viewer)}


def _hints_of(room: Room, round_: Round | None, viewer: Player | None) -> dict | None:
    if not room.practice:
        return None
    part: dict = {"cost": HINT_COST, "round": None, "hints_used": 0, "latest": None}
    if viewer is None or round_ is None or round_.status != Round.Status.RUNNING:
        return part
    bought = list(Hint.objects.filter(round=round_, player=viewer).order_by("id"))
    part["round"] = round_.number
    part["hints_used"] = sum(hint.count for hint in bought)
    if bought:
        latest = bought[-1]
        part["latest"] = {
            "word_length": len(latest.word),
            "letters": letters_shown(latest.word, latest.count),
        }
    return part
