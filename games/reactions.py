"""Reactions: a player reacts to a word of the round's results or to a player's score with
one of a fixed set of emoji, or (private rooms) says one of a few quick phrases; the room
and its table screen show it for a few seconds (docs/api.md, "Reactions").

Nothing a player types reaches the others: an emoji and a phrase are keys of fixed sets,
a word is one a player of the round had accepted, a score is a player of the room. A
reaction is not the room's state: it carries no version and is not kept (a page that
reconnects has missed it, as a person who looked away).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games import events
from games.checks import current_round
from games.models import Player, Round, Submission
from solver.judge import Verdict
from web import throttle
from web.errors import InvalidInput, RateLimited

# The fixed emoji, by the key a client sends.
EMOJI = {
    "like": "👍",
    "wow": "😮",
    "haha": "😂",
    "fire": "🔥",
    "clap": "👏",
    "sad": "😢",
}
# Quick phrases (private rooms only: strangers in a quick-play room get the emoji alone);
# each page says them in its own language.
PHRASES = ("nice", "one_more", "again")
# A player's reactions, on top of the limit on all their messages: a few at once, then one
# every 3 s (per server process: counted on the event loop, as messages are).
REACT = throttle.Limit(
    "react", 20, 5, gettext_lazy("too many reactions; wait a moment"), per_process=True
)
MAX_WORD = 72  # the longest word a round takes (games.checks)


def spend_reaction(player_id: int) -> None:
    """Count one reaction of the player; RateLimited when they have used their budget."""
    if throttle.enabled() and not throttle.spend(REACT, f"player:{player_id}"):
        raise RateLimited(str(REACT.message))


def check_reaction(player: Player, message: dict[str, Any]) -> dict[str, Any]:
    """The ``reaction`` event a player's ``react`` message makes, once every field passed:
    InvalidInput names the first that did not."""
    emoji, phrase = message.get("emoji"), message.get("phrase")
    word, target = message.get("word"), message.get("player_id")
    event: dict[str, Any] = {
        "type": "reaction",
        "from_id": player.pk,
        "nickname": player.nickname,
        "emoji": None,
        "phrase": None,
        "word": None,
        "player_id": None,
    }
    if phrase is not None:
        if emoji is not None or word is not None or target is not None:
            raise InvalidInput(_("a phrase goes alone, without an emoji, word or player"))
        if not isinstance(phrase, str) or phrase not in PHRASES:
            raise InvalidInput(_("phrase: one of %(phrases)s") % {"phrases": ", ".join(PHRASES)})
        if player.room.public:
            raise InvalidInput(_("quick phrases are for private rooms"))
        return {**event, "phrase": phrase}
    if not isinstance(emoji, str) or emoji not in EMOJI:
        raise InvalidInput(_("emoji: one of %(emoji)s") % {"emoji": ", ".join(EMOJI)})
    if (word is None) == (target is None):
        raise InvalidInput(_("react to a word or to a player's score, one of them"))
    round_ = current_round(player.room_id)
    if round_ is None or round_.status != Round.Status.ENDED:
        raise InvalidInput(_("reactions to words and scores are for the round's results"))
    if word is not None:
        return {**event, "emoji": emoji, "word": _found_word(round_, word)}
    return {**event, "emoji": emoji, "player_id": _player_in_room(player, target)}


def _found_word(round_: Round, word: Any) -> str:
    if not isinstance(word, str) or not 0 < len(word) <= MAX_WORD:
        raise InvalidInput(_("word: a word of the round's results"))
    found = Submission.objects.filter(
        round=round_, word=word.lower(), verdict=Verdict.ACCEPTED
    ).exists()
    if not found:
        raise InvalidInput(_("word: nobody found that word this round"))
    return word.lower()


def _player_in_room(player: Player, target: Any) -> int:
    if isinstance(target, bool) or not isinstance(target, int):
        raise InvalidInput(_("player_id: a player of the room"))
    if not Player.objects.filter(pk=target, room_id=player.room_id).exists():
        raise InvalidInput(_("player_id: a player of the room"))
    return target


def do_react(player: Player, message: dict[str, Any]) -> dict[str, Any]:
    """Check a player's reaction and show it to the room (and its table screens)."""
    event = check_reaction(player, message)
    events.send_room_event_now(player.room.code, event)
    return event
