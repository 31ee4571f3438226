"""Text for players that the Django-free packages (solver/, vision/) only give in English:
each kind of verdict or failure mapped to its translatable text, put in the language of
the request (or websocket) being answered."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from solver.judge import Verdict

VERDICT_TEXT = {
    Verdict.ACCEPTED: _("accepted"),
    Verdict.NOT_A_WORD: _("only letters make a word"),
    Verdict.TOO_SHORT: _("too short"),
    Verdict.ALREADY_ENTERED: _("you already have that word"),
    Verdict.NOT_IN_DICTIONARY: _("not in the dictionary"),
    Verdict.NOT_ON_BOARD: _("not on the board"),
}


def verdict_text(verdict: Verdict) -> str:
    """Why a word counts or not, in the active language (English: solver's own text)."""
    text = VERDICT_TEXT.get(verdict)
    return str(text) if text is not None else verdict.message
