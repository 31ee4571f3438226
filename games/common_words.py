"""Which words of a round most players know: the solver's ``common_words`` over wordfreq's
frequency lists (shipped in its wheel: nothing is downloaded), per dictionary language.

Every valid word still scores; "common" only decides what "words left" and the results'
share of the maximum are measured against, and which words the results show apart as rare.
A round's solution stores each word's flag when it is solved (``games.rounds``), so a later
change of threshold or list does not change finished rounds; entries without a flag (rounds
from before, words accepted on a challenge) are looked up here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Container, Iterable
from functools import lru_cache

from games.room_dictionaries import dictionary_language
from solver.common import common_words
from solver.wordrules import fold_accents

# Zipf frequency (log10 of uses per billion words) from which a word counts as common: once
# per million words. Measured on 40 rolled 4x4 boards with the broad English list
# (docs/dictionaries.md, "Common words"): 85% of the board words also in the common SCOWL list reach it,
# 44% of all the board's words do, worth 38% of the board's maximum points.
COMMON_ZIPF = 3.0


@lru_cache(maxsize=8)
def _zipf_of_common(language: str) -> dict[str, float] | None:
    """The Zipf frequency of the words of ``language`` at or above COMMON_ZIPF, as written
    and accent-folded (a French word list stores "été" as "ete"); None when wordfreq has no
    list for it. Read from the wheel's file directly, so that wordfreq's own caches do not
    keep its whole list (hundreds of thousands of words) in every process."""
    import wordfreq

    path = os.path.join(wordfreq.DATA_PATH, f"large_{language}.msgpack.gz")
    if not language or not os.path.exists(path):
        return None
    buckets = wordfreq.read_cBpack(path)
    # Bucket i holds the words of frequency 10^(-i/100), that is Zipf 9 - i/100.
    last = round((9 - COMMON_ZIPF) * 100)
    zipf: dict[str, float] = {}
    for index, bucket in enumerate(buckets[: last + 1]):
        for word in bucket:
            for form in (word, fold_accents(word)):
                zipf.setdefault(form, 9 - index / 100)  # most frequent first
    return zipf


def common_in(words: Iterable[str], dictionary: str) -> frozenset[str]:
    """The common ones among ``words`` (all of them if the language has no frequency list:
    then nothing is set apart as rare)."""
    words = list(words)
    if not words:  # a solved round's words carry their flag: no lookup
        return frozenset()
    zipf = _zipf_of_common(dictionary_language(dictionary))
    if zipf is None:
        return frozenset(words)
    return common_words(words, lambda word: zipf.get(word, 0.0), COMMON_ZIPF)


class _EveryWord:
    """Every word: the common words of a language without a frequency list."""

    def __contains__(self, word: object) -> bool:
        return True


def common_lookup(dictionary: str) -> Container[str]:
    """The common words of the dictionary's language to look words up in one at a time (a
    theme of common words, games.room_themes): the same words as ``common_in`` finds,
    every word where the language has no frequency list."""
    zipf = _zipf_of_common(dictionary_language(dictionary))
    return _EveryWord() if zipf is None else zipf.keys()


def zipf_of(dictionary: str) -> Callable[[str], float]:
    """A word's Zipf frequency in the dictionary's language, 0.0 below COMMON_ZIPF (rare)
    or where the language has no frequency list: how common the word is in print."""
    zipf = _zipf_of_common(dictionary_language(dictionary)) or {}
    return lambda word: zipf.get(word, 0.0)


def is_common(word: str, dictionary: str) -> bool:
    return word in common_in([word], dictionary)


def round_common_words(solution: list[list], dictionary: str) -> frozenset[str]:
    """The common words of a round's solution (``[word, points, path, common?]`` entries)."""
    flagged = {entry[0] for entry in solution if len(entry) > 3 and entry[3]}
    unflagged = [entry[0] for entry in solution if len(entry) <= 3]
    return frozenset(flagged) | common_in(unflagged, dictionary)
