"""Text for players that the Django-free packages (solver/, vision/) only give in English:
each kind of verdict or failure mapped to its translatable text, put in the language of
the request (or websocket) being answered."""

from __future__ import annotations

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from solver.judge import Verdict
from solver.themes import Rule, Theme

VERDICT_TEXT = {
    Verdict.ACCEPTED: _("accepted"),
    Verdict.NOT_A_WORD: _("only letters make a word"),
    Verdict.TOO_SHORT: _("too short"),
    Verdict.ALREADY_ENTERED: _("you already have that word"),
    Verdict.NOT_IN_DICTIONARY: _("not in the dictionary"),
    Verdict.NOT_ON_BOARD: _("not on the board"),
    Verdict.OFF_THEME: _("off the round's theme"),
    Verdict.NOT_YOUR_TURN: _("not your turn"),
    Verdict.ALREADY_PLAYED: _("someone played that word"),
}


def verdict_text(verdict: Verdict, theme: Theme | None = None) -> str:
    """Why a word counts or not, in the active language (English: solver's own text); a
    themed round's ``theme`` says why a word is off it."""
    if verdict is Verdict.OFF_THEME and theme is not None:
        return theme_reason_text(theme)
    text = VERDICT_TEXT.get(verdict)
    return str(text) if text is not None else verdict.message


def theme_reason_text(theme: Theme) -> str:
    """``solver.themes.Theme.reason`` in the active language."""
    letter = theme.letter.upper()
    if theme.rule is Rule.PALINDROMES:
        return gettext("not a palindrome")
    if theme.rule is Rule.CONTAINS:
        return gettext("has no %(letter)s") % {"letter": letter}
    if theme.rule is Rule.STARTS_WITH:
        return gettext("does not start with %(letter)s") % {"letter": letter}
    if theme.rule is Rule.COMMON:
        return gettext("not a common word")
    return gettext("not in the theme list %(title)s") % {"title": theme.title or theme.list_name}
