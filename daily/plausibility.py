"""Whether a daily attempt was played by a person: at a human pace, and finding what people
find. Pure functions, no Django.

A script that knows the board (or solves it) enters every word in seconds; people read the
board, think and type. A script that paces itself like a person still finds what no person
finds: nearly the whole board, rare words as readily as common ones, in the solver's order.
An attempt that breaks one of the rules below is *flagged*: kept off the public
leaderboard, and shown to staff in the admin (``DailyScore.flagged``, with the reason;
staff may clear it). The rules are deliberately loose, so a strong human is never flagged:
a person wrongly flagged loses a place on the list until staff look, a script let through
takes the top of it.

How fast (the words' times):

- **Pace**: more than ``MAX_WORDS_IN_WINDOW`` accepted words within any
  ``WINDOW_SECONDS``. Typing a 4-letter word on a phone and sending it takes about a
  second even for someone who already knows it; fast players find about 40-60 words in a
  whole 3-minute round. 15 words in 10 s is a word every 0.67 s, sustained, with no time
  to look for them.
- **Regularity**: at least ``REGULAR_MIN_WORDS`` accepted words whose gaps vary by less
  than ``MIN_GAP_VARIATION`` (standard deviation over mean). People's gaps swing from a
  fraction of a second (a run of plurals) to half a minute (stuck); a script that waits a
  fixed time between words, to stay under the pace rule, is metronome-regular.

What was found (the accepted words in the order entered, against the board's solution and
its common words, games.common_words: Zipf frequency 3.0 in wordfreq):

- **Share of the maximum**: more than ``MAX_SHARE_OF_MAX`` of the board's maximum points.
- **Rare words**: at least ``RARE_MIN_WORDS`` words found, ``MAX_RARE_SHARE`` or more of
  them rare.
- **Order, rare first**: ``MAX_EARLY_RARE`` or more rare words among the first
  ``EARLY_WORDS`` found (people find the common words first).
- **Order, longest first**: at least ``ORDER_MIN_WORDS`` words whose length falls as the
  round goes on, a length trend (``length_trend``, Goodman and Kruskal's gamma of order
  against length) of ``LONG_FIRST_TREND`` or less: the solver lists words by points,
  longest first; people find short words first.

Where the thresholds come from. The repository holds no recorded rounds of people, and no
published figures on what Boggle players reach were at hand: nothing here is measured on
people. What is measured is the boards and the scripts, with ``bench/daily_findings.py``
(2,000 daily boards, as solver.daily derives them, English list, the site's common words):

- the common ceiling (what all of a board's common words are worth, as a share of its
  maximum: the most a person who knows only common words can reach, by finding every one
  of them in 3 minutes) is 0.36 at the median, 0.52 at p99 and 0.63 on the richest board;
- the share of a board's words that are rare is 0.57 at the median, 0.47 at p5, 0.37 at
  the least (0.48 at the median among the 3- and 4-letter words);
- a script that enters the whole solution (any order) reaches 100% of the maximum;
  one that enters a random half of it, in a random order, is flagged on 89% of boards.

From these, with margins that are judgement, not measurement:

- ``MAX_SHARE_OF_MAX`` 0.70: above the common ceiling of every board measured (0.63), so
  finding every common word (more than anyone finds) and a share of rare ones passes.
- ``MAX_RARE_SHARE`` 0.5 over at least 20 words: a script picking words off the solution
  lands on the board's own rare share (0.47 to 0.76, median 0.57); a person's words are
  mostly common (the common ones are the ones they know and see first). A word-game expert
  who knows many rare short words can come near it: that is the margin this rule is
  weakest on, and why it waits for 20 words.
- ``MAX_EARLY_RARE`` 6 of the first 10: more than half, where a script in a random order
  draws about 5.7 on the median board.
- ``LONG_FIRST_TREND`` -0.5 over at least 15 words: the solver's order gives -1, a random
  order about 0, a person finding short words first a positive trend.

What no rule here can tell from a person: a script that enters only common words, short
ones first, at a person's pace, and stops near a third of the maximum (bench/daily_findings:
flagged on 0 of 2,000 boards). It does no better than a strong player would.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

WINDOW_SECONDS = 10.0
MAX_WORDS_IN_WINDOW = 15
REGULAR_MIN_WORDS = 12
MIN_GAP_VARIATION = 0.2

# What was found; where each figure comes from: the module's docstring.
MAX_SHARE_OF_MAX = 0.7  # of the board's maximum points
RARE_MIN_WORDS = 20
MAX_RARE_SHARE = 0.5
EARLY_WORDS = 10
MAX_EARLY_RARE = 6  # rare words among the first EARLY_WORDS
ORDER_MIN_WORDS = 15
LONG_FIRST_TREND = -0.5


def pace_reason(times: Sequence[float]) -> str:
    """Why the accepted words' times (seconds, any origin) are not a human's pace, or ""
    when they may be."""
    ordered = sorted(times)
    reason = _too_fast(ordered)
    return reason or _too_regular(ordered)


def _too_fast(ordered: Sequence[float]) -> str:
    """Sliding window: the most words whose times fit in WINDOW_SECONDS."""
    start = 0
    for end, time in enumerate(ordered):
        while time - ordered[start] > WINDOW_SECONDS:
            start += 1
        if end - start + 1 > MAX_WORDS_IN_WINDOW:
            return (
                f"pace: more than {MAX_WORDS_IN_WINDOW} words within "
                f"{WINDOW_SECONDS:g} s ({end - start + 1} words in "
                f"{time - ordered[start]:.1f} s)"
            )
    return ""


def _too_regular(ordered: Sequence[float]) -> str:
    if len(ordered) < REGULAR_MIN_WORDS:
        return ""
    gaps = [later - earlier for earlier, later in itertools.pairwise(ordered)]
    mean = statistics.fmean(gaps)
    variation = statistics.pstdev(gaps) / mean if mean > 0 else 0.0  # 0: all at once
    if variation >= MIN_GAP_VARIATION:
        return ""
    return (
        f"regularity: {len(ordered)} words {mean:.2f} s apart, gaps varying by "
        f"{variation:.0%} (a person's vary by far more than {MIN_GAP_VARIATION:.0%})"
    )


# ----------------------------------------------------------------------------- what was found


@dataclass(frozen=True)
class BoardWord:
    """A word of the board's solution: its points, and whether most players know it
    (games.common_words)."""

    word: str
    points: int
    common: bool


def findings_reason(found: Sequence[str], board: Sequence[BoardWord]) -> str:
    """Why the words found (accepted, in the order they were entered) are not what a person
    finds on ``board`` (its whole solution), or "" when they may be."""
    by_word = {entry.word: entry for entry in board}
    known = [by_word[word] for word in dict.fromkeys(found) if word in by_word]
    return _too_much(known, board) or _too_rare(known) or _rare_first(known) or _long_first(known)


def _too_much(known: Sequence[BoardWord], board: Sequence[BoardWord]) -> str:
    maximum = sum(entry.points for entry in board)
    points = sum(entry.points for entry in known)
    if not maximum or points / maximum <= MAX_SHARE_OF_MAX:
        return ""
    return (
        f"share of the maximum: {points} of {maximum} points ({points / maximum:.0%}; "
        f"people stay under {MAX_SHARE_OF_MAX:.0%})"
    )


def _too_rare(known: Sequence[BoardWord]) -> str:
    rare = sum(not entry.common for entry in known)
    if len(known) < RARE_MIN_WORDS or rare / len(known) < MAX_RARE_SHARE:
        return ""
    return (
        f"rare words: {rare} of {len(known)} words found are rare ({rare / len(known):.0%}; "
        f"people's are mostly common, under {MAX_RARE_SHARE:.0%} rare)"
    )


def _rare_first(known: Sequence[BoardWord]) -> str:
    early = known[:EARLY_WORDS]
    rare = sum(not entry.common for entry in early)
    if len(early) < EARLY_WORDS or rare < MAX_EARLY_RARE:
        return ""
    return (
        f"order: {rare} of the first {EARLY_WORDS} words found are rare (people find "
        f"common words first: fewer than {MAX_EARLY_RARE})"
    )


def _long_first(known: Sequence[BoardWord]) -> str:
    if len(known) < ORDER_MIN_WORDS:
        return ""
    trend = length_trend([len(entry.word) for entry in known])
    if trend > LONG_FIRST_TREND:
        return ""
    return (
        f"order: longest words first (length trend {trend:+.2f} over {len(known)} words; "
        f"people find short words first: above {LONG_FIRST_TREND:+.2f})"
    )


def length_trend(lengths: Sequence[int]) -> float:
    """Goodman and Kruskal's gamma between the order words were found in and their lengths:
    +1 when every later word is at least as long as every earlier one (shortest first), -1
    longest first (the solver's list order, by points), about 0 in no order; pairs of equal
    length count for neither. 0.0 when all lengths are equal."""
    concordant = discordant = 0
    for index, earlier in enumerate(lengths):
        for later in lengths[index + 1 :]:
            concordant += later > earlier
            discordant += later < earlier
    pairs = concordant + discordant
    return (concordant - discordant) / pairs if pairs else 0.0
