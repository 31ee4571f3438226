"""Which words a compiled WordList keeps, and why it drops the others.

One function, ``normalise_word``, applies every rule in a fixed order, so the compiler, the
admin's "why is this word not in?" look-up and the tests all agree on the reason.
"""

from __future__ import annotations

import unicodedata
from dataclasses import asdict, dataclass, field
from enum import StrEnum

ENGLISH_ALPHABET = "abcdefghijklmnopqrstuvwxyz"
# Letters that accent folding cannot reach by stripping combining marks (the browser's
# offline practice folds with the same table: solver.rulebook).
LIGATURES = {"œ": "oe", "æ": "ae", "ß": "ss", "ĳ": "ij", "ø": "o", "ł": "l", "đ": "d"}


class DropReason(StrEnum):
    """Why a line of a source word list did not become a word of the WordList."""

    PROPER_NOUN = "proper noun (capitalised)"
    OUTSIDE_ALPHABET = "characters outside the alphabet"
    Q_WITHOUT_U = "q not followed by u"
    TOO_SHORT = "too short"
    TOO_LONG = "too long"
    DUPLICATE = "duplicate"


@dataclass(frozen=True)
class WordRules:
    """How a source word list is compiled into a WordList.

    - ``alphabet``: the letters dice can show; any other character drops the word.
    - ``fold_accents``: strip accents first (French dice have no accents: "été" -> "ete").
    - ``qu_rule``: drop words with a q not followed by u; the Qu die cannot spell them.
    - ``min_length`` / ``max_length``: in letters, after folding.
    - ``keep_capitalised``: keep "Paris" as "paris"; by default capitalised words are proper
      nouns and dropped. Words written wholly in capitals ("AARDVARK") are always kept.
    """

    alphabet: str = ENGLISH_ALPHABET
    fold_accents: bool = False
    qu_rule: bool = True
    min_length: int = 3
    max_length: int = 36
    keep_capitalised: bool = False
    _letters: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        from solver.errors import WordListError

        if not self.alphabet or len(set(self.alphabet)) != len(self.alphabet):
            raise WordListError("the alphabet must be non-empty letters without repeats")
        if self.alphabet != self.alphabet.lower():
            raise WordListError("the alphabet must be lower-case")
        if not 1 <= self.min_length <= self.max_length:
            raise WordListError(
                f"need 1 <= min_length <= max_length, got {self.min_length}, {self.max_length}"
            )
        object.__setattr__(self, "_letters", frozenset(self.alphabet))

    def to_dict(self) -> dict:
        data = asdict(self)
        data.pop("_letters", None)
        return data

    @classmethod
    def from_dict(cls, data: dict) -> WordRules:
        known = {"alphabet", "fold_accents", "qu_rule", "min_length", "max_length"}
        known.add("keep_capitalised")
        return cls(**{key: value for key, value in data.items() if key in known})


def fold_accents(text: str) -> str:
    """Remove accents and expand ligatures: "œuvre été" -> "oeuvre ete"."""
    text = "".join(LIGATURES.get(ch, LIGATURES.get(ch.lower(), ch)) for ch in text)
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def normalise_word(raw: str, rules: WordRules) -> tuple[str | None, DropReason | None]:
    """Turn one entry of a source word list into a WordList word, or say why it is dropped.

    Returns ``(word, None)`` or ``(None, reason)``. Duplicates are the caller's to detect.
    """
    text = unicodedata.normalize("NFC", raw.strip())
    word = text.lower()
    if rules.fold_accents:
        word = fold_accents(word)
    if any(ch not in rules._letters for ch in word):
        return None, DropReason.OUTSIDE_ALPHABET
    if not rules.keep_capitalised and _is_capitalised(text):
        return None, DropReason.PROPER_NOUN
    if rules.qu_rule and _has_q_without_u(word):
        return None, DropReason.Q_WITHOUT_U
    if len(word) < rules.min_length:
        return None, DropReason.TOO_SHORT
    if len(word) > rules.max_length:
        return None, DropReason.TOO_LONG
    return word, None


def _is_capitalised(text: str) -> bool:
    """ "A word like "Paris" is capitalised; "paris" and "PARIS" (a list written in capitals) are not."""
    return text[:1].isupper() and any(ch.islower() for ch in text[1:])


def _has_q_without_u(word: str) -> bool:
    return any(ch == "q" and word[i + 1 : i + 2] != "u" for i, ch in enumerate(word))
