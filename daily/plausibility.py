"""Whether a daily attempt was played at a human pace. Pure functions, no Django.

A script that knows the board (or solves it) enters every word in seconds; people read the
board, think and type. An attempt that breaks one of the rules below is *flagged*: kept
off the public leaderboard, and shown to staff in the admin (``DailyScore.flagged``, with
the reason). The rules are deliberately loose, so a fast human is never flagged:

- **Pace**: more than ``MAX_WORDS_IN_WINDOW`` accepted words within any
  ``WINDOW_SECONDS``. Typing a 4-letter word on a phone and sending it takes about a
  second even for someone who already knows it; fast players find about 40-60 words in a
  whole 3-minute round. 15 words in 10 s is a word every 0.67 s, sustained, with no time
  to look for them.
- **Regularity**: at least ``REGULAR_MIN_WORDS`` accepted words whose gaps vary by less
  than ``MIN_GAP_VARIATION`` (standard deviation over mean). People's gaps swing from a
  fraction of a second (a run of plurals) to half a minute (stuck); a script that waits a
  fixed time between words, to stay under the pace rule, is metronome-regular.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Sequence

WINDOW_SECONDS = 10.0
MAX_WORDS_IN_WINDOW = 15
REGULAR_MIN_WORDS = 12
MIN_GAP_VARIATION = 0.2


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
