"""A room's themed word rules (``solver.themes``) as its rounds play them: the theme a
round copies when it starts, the data its rule needs (the common words of the
dictionary's language, a theme list's words in the dictionary's form) loaded once, and
which words of a round the theme counts.

A round stores its theme (``Round.theme``) and a solution of the theme's words only, so
its word counts, hints, maximum and results follow the theme, and judging a word is one
look-up in that solution (``games.live``): no database read per word.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.utils.translation import gettext as _

from dictionaries import themes
from games import common_words
from games.models import Room, Round
from solver.themes import LETTER_RULES, Rule, Theme
from solver.wordrules import WordRules
from web.errors import InvalidInput


def available_theme_lists() -> dict[str, str]:
    """Name -> title of the theme lists a room may choose (state ``theme_lists``)."""
    return themes.playable_theme_lists()


def theme_for_new_round(room: Room) -> Theme | None:
    """The theme a round of ``room`` starting now copies; None without one. InvalidInput
    when its theme list is no longer offered: a round never plays an empty theme."""
    rule = Rule(room.theme or Rule.NONE)
    if rule is Rule.NONE:
        return None
    if rule in LETTER_RULES:
        return Theme(rule, letter=room.theme_letter)
    if rule is Rule.LIST:
        title = themes.theme_list_title(room.theme_list)
        if title is None:
            raise InvalidInput(
                _(
                    "the theme list %(name)r is no longer offered: choose another theme"
                    " in the settings"
                )
                % {"name": room.theme_list}
            )
        return Theme(rule, list_name=room.theme_list, title=title)
    return Theme(rule)


def round_theme(round_: Round) -> Theme | None:
    return Theme.from_dict(round_.theme)


def theme_test(theme: Theme, dictionary: str, rules: WordRules) -> Callable[[str], bool]:
    """Whether ``theme`` counts a word of a round played with ``dictionary`` (whose word
    list has ``rules``), with what its rule needs loaded once. A theme list deleted since
    the round started counts nothing."""
    common = common_words.common_lookup(dictionary) if theme.rule is Rule.COMMON else frozenset()
    listed = frozenset[str]()
    if theme.rule is Rule.LIST:
        listed = themes.theme_list_words(theme.list_name, rules) or frozenset()
    return lambda word: theme.allows(word, common=common, listed=listed)


def on_theme(round_: Round, words: Iterable[str], rules: WordRules) -> frozenset[str]:
    """The ``words`` the round's theme counts: all of them in a round without a theme."""
    theme = round_theme(round_)
    if theme is None:
        return frozenset(words)
    allows = theme_test(theme, round_.dictionary, rules)
    return frozenset(word for word in words if allows(word))
