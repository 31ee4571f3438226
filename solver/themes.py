"""Themed word rules: on top of the dictionary, a round may count only some of its words
(palindromes, words with a chosen letter, common words, the words of a theme list).

Pure rules over words already in word-list form (lower-case, accents folded as the list
folds them). What a rule needs from outside, the common words of the dictionary's
language or a theme list's words, the caller hands in (``games.room_themes`` loads them).
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

# The letters a letter rule may name: the ones every dice set shows.
LETTERS = "abcdefghijklmnopqrstuvwxyz"


class Rule(StrEnum):
    """A theme's rule. Values are stable protocol strings (settings, rounds)."""

    NONE = "none"
    PALINDROMES = "palindromes"
    CONTAINS = "contains"
    STARTS_WITH = "starts_with"
    COMMON = "common"
    LIST = "list"


# The rules that name a letter.
LETTER_RULES = frozenset({Rule.CONTAINS, Rule.STARTS_WITH})


@dataclass(frozen=True)
class Theme:
    """A round's theme: its rule and what the rule names (``letter`` for the letter rules,
    the theme list's ``list_name`` and ``title`` for ``list``). "No theme" is no Theme."""

    rule: Rule
    letter: str = ""
    list_name: str = ""
    title: str = ""

    def __post_init__(self) -> None:
        if self.rule is Rule.NONE:
            raise ValueError("no theme is None, not a Theme")
        if self.rule in LETTER_RULES and (len(self.letter) != 1 or self.letter not in LETTERS):
            raise ValueError(f"the {self.rule} rule needs one letter a to z, got {self.letter!r}")
        if self.rule is Rule.LIST and not self.list_name:
            raise ValueError("the list rule needs a theme list's name")

    def allows(
        self,
        word: str,
        *,
        common: Container[str] = frozenset(),
        listed: Container[str] = frozenset(),
    ) -> bool:
        """Whether the theme counts ``word``: ``common`` holds the language's common words
        (rule ``common``), ``listed`` the theme list's words (rule ``list``)."""
        if self.rule is Rule.PALINDROMES:
            return word == word[::-1]
        if self.rule is Rule.CONTAINS:
            return self.letter in word
        if self.rule is Rule.STARTS_WITH:
            return word.startswith(self.letter)
        if self.rule is Rule.COMMON:
            return word in common
        return word in listed

    @property
    def reason(self) -> str:
        """Why a word the dictionary has does not count (English; ``games.messages``
        translates it)."""
        letter = self.letter.upper()
        return {
            Rule.PALINDROMES: "not a palindrome",
            Rule.CONTAINS: f"has no {letter}",
            Rule.STARTS_WITH: f"does not start with {letter}",
            Rule.COMMON: "not a common word",
            Rule.LIST: f"not in the theme list {self.title or self.list_name}",
        }[self.rule]

    def as_dict(self) -> dict[str, str | None]:
        """As a round stores and sends it (docs/api.md, "Round")."""
        return {
            "rule": str(self.rule),
            "letter": self.letter or None,
            "list": self.list_name or None,
            "title": self.title or None,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Theme | None:
        """The theme ``as_dict`` gave (None for a round without one)."""
        if not data:
            return None
        return cls(
            Rule(data["rule"]),
            letter=data.get("letter") or "",
            list_name=data.get("list") or "",
            title=data.get("title") or "",
        )
