"""Common words: the words of a board that most players know, told apart from the rare
ones a broad word-game list also holds, by a word-frequency look-up the caller supplies
(games.common_words reads wordfreq's lists; the solver imports no frequency package).

A word is common when its Zipf frequency (log10 of its uses per billion words: 3.0 is once
per million) is at least the threshold.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from typing import TypedDict


def common_words(
    words: Iterable[str], zipf: Callable[[str], float], threshold: float
) -> frozenset[str]:
    """The words whose Zipf frequency is at least ``threshold``."""
    return frozenset(word for word in words if zipf(word) >= threshold)


class LengthCount(TypedDict):
    """Words of one length: all of them and the common ones (``left``: not yet found)."""

    length: int
    total: int
    common: int
    left: int
    common_left: int


def words_left(
    words: Iterable[str], common: Collection[str], found: Collection[str]
) -> list[LengthCount]:
    """Per word length (in letters, shortest first): how many of ``words`` there are, how
    many are common, and how many of each are not in ``found``."""
    by_length: dict[int, LengthCount] = {}
    for word in words:
        length = len(word)
        row = by_length.setdefault(
            length, {"length": length, "total": 0, "common": 0, "left": 0, "common_left": 0}
        )
        is_common = word in common
        row["total"] += 1
        row["common"] += is_common
        if word not in found:
            row["left"] += 1
            row["common_left"] += is_common
    return [by_length[length] for length in sorted(by_length)]
