"""The pace rules of daily.plausibility on word times: a fast person passes, a script that
enters words faster than anyone reads them, or like a metronome, is flagged."""

from __future__ import annotations

import random

from daily.plausibility import (
    MAX_WORDS_IN_WINDOW,
    REGULAR_MIN_WORDS,
    WINDOW_SECONDS,
    pace_reason,
)


def human_times(count: int, seed: int = 7) -> list[float]:
    """A strong player's round: bursts (a run of plurals), pauses to look, over 3 minutes."""
    rng = random.Random(seed)
    times, now = [], 2.0
    for _ in range(count):
        now += rng.choice([0.8, 1.1, 1.5, 2.5, 4.0, 7.0]) * rng.uniform(0.7, 1.3)
        times.append(now)
    return times


def test_a_fast_human_round_passes() -> None:
    times = human_times(60)
    assert times[-1] < 180  # 60 words in a 3-minute round: a strong player
    assert pace_reason(times) == ""
    # A burst of quick words at the limit, unevenly spaced, is still a person's.
    gaps = [0.4, 0.9] * (MAX_WORDS_IN_WINDOW // 2)
    burst = [10 + sum(gaps[:i]) for i in range(MAX_WORDS_IN_WINDOW)]
    assert burst[-1] - burst[0] < WINDOW_SECONDS
    assert pace_reason(burst) == ""
    assert pace_reason([]) == pace_reason([3.0]) == ""


def test_the_whole_solution_in_seconds_is_flagged_for_pace() -> None:
    """The reported script: 216 words in 18 s."""
    times = [1 + i * 18 / 216 for i in range(216)]
    assert pace_reason(times).startswith("pace: more than 15 words within 10 s")
    # One word over the limit within the window is enough, anywhere in the round.
    late_burst = human_times(20) + [150 + i * 0.5 for i in range(MAX_WORDS_IN_WINDOW + 1)]
    assert pace_reason(late_burst).startswith("pace:")


def test_metronome_regular_words_are_flagged() -> None:
    """A script pacing itself under the pace rule, one word every 2 s exactly (or nearly)."""
    steady = [5 + 2.0 * i for i in range(REGULAR_MIN_WORDS)]
    assert pace_reason(steady).startswith("regularity:")
    rng = random.Random(1)
    jittered = [5 + 2.0 * i + rng.uniform(-0.1, 0.1) for i in range(40)]
    assert pace_reason(jittered).startswith("regularity:")
    # Too few words to tell.
    assert pace_reason(steady[: REGULAR_MIN_WORDS - 1]) == ""
