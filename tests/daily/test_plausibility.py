"""The rules of daily.plausibility. On word times: a fast person passes, a script that
enters words faster than anyone reads them, or like a metronome, is flagged. On what was
found: a strong person passes, a script that finds nearly the whole board, mostly rare
words, rare words first or the longest first is flagged."""

from __future__ import annotations

import random
from datetime import date, timedelta

import pytest

from daily.plausibility import (
    EARLY_WORDS,
    MAX_EARLY_RARE,
    MAX_SHARE_OF_MAX,
    MAX_WORDS_IN_WINDOW,
    ORDER_MIN_WORDS,
    RARE_MIN_WORDS,
    REGULAR_MIN_WORDS,
    WINDOW_SECONDS,
    BoardWord,
    findings_reason,
    length_trend,
    pace_reason,
)
from games import common_words
from solver import dictionaries
from solver.daily import daily_board
from tests.daily.helpers import strong_human_words


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


# ------------------------------------------------------------------ what was found


def board_of(counts: dict[tuple[int, bool], int]) -> list[BoardWord]:
    """A made-up board: ``counts[(length, common)]`` words of each kind, in the solver's
    order (points, highest first), with the classic points."""
    points = {3: 1, 4: 1, 5: 2, 6: 3, 7: 5, 8: 11}
    words = [
        BoardWord(f"{'c' if common else 'r'}{n:02d}{'x' * (length - 3)}", points[length], common)
        for (length, common), count in counts.items()
        for n in range(count)
    ]
    return sorted(words, key=lambda entry: -entry.points)


# 115 words worth 147 points, like the board of the script; 51 of them common.
BOARD = board_of(
    {(3, True): 22, (3, False): 30, (4, True): 19, (4, False): 22, (5, True): 7,
     (5, False): 9, (6, True): 2, (6, False): 2, (7, True): 1, (7, False): 1}
)  # fmt: skip


def words(entries: list[BoardWord]) -> list[str]:
    return [entry.word for entry in entries]


def test_the_board_model() -> None:
    assert len(BOARD) == 115 and sum(entry.points for entry in BOARD) == 147


def test_the_whole_solution_is_flagged_for_its_share_of_the_maximum() -> None:
    """Issue 48's script: 115 of 115 words, 147 of 147 points, in any order."""
    assert findings_reason(words(BOARD), BOARD) == (
        "share of the maximum: 147 of 147 points (100%; people stay under 70%)"
    )
    shuffled = random.Random(2).sample(words(BOARD), len(BOARD))
    assert findings_reason(shuffled, BOARD).startswith("share of the maximum")
    # Just over the threshold, in a person's order (common and short first), is enough.
    by_ease = sorted(BOARD, key=lambda entry: (not entry.common, len(entry.word)))
    found, points = [], 0
    for entry in by_ease:
        if points > MAX_SHARE_OF_MAX * 147:
            break
        found.append(entry.word)
        points += entry.points
    assert findings_reason(found, BOARD).startswith("share of the maximum")
    assert findings_reason(found[:-1], BOARD) == ""  # at 70% or under: not this rule


def test_mostly_rare_words_are_flagged() -> None:
    common = [entry.word for entry in BOARD if entry.common and len(entry.word) == 4]
    rare = [entry.word for entry in BOARD if not entry.common and len(entry.word) == 4]
    # Common first (so no order rule), then as many rare: half rare.
    half = common[:10] + rare[:10]
    assert len(half) == RARE_MIN_WORDS
    assert findings_reason(half, BOARD).startswith("rare words: 10 of 20 words found are rare")
    assert findings_reason(common[:11] + rare[:9], BOARD) == ""  # 45%
    assert findings_reason(common[:9] + rare[:10], BOARD) == ""  # 19 words: too few to tell


def test_rare_words_first_are_flagged() -> None:
    common = [entry.word for entry in BOARD if entry.common and len(entry.word) == 3]
    rare = [entry.word for entry in BOARD if not entry.common and len(entry.word) == 3]
    early = rare[:MAX_EARLY_RARE] + common[: EARLY_WORDS - MAX_EARLY_RARE]
    assert findings_reason(early + common[4:10], BOARD).startswith(
        f"order: {MAX_EARLY_RARE} of the first {EARLY_WORDS} words found are rare"
    )
    fewer = rare[: MAX_EARLY_RARE - 1] + common[:10]
    assert findings_reason(fewer, BOARD) == ""
    # The same words with the rare ones later: a person's order.
    assert findings_reason(common[:10] + rare[:6], BOARD) == ""


def test_longest_words_first_are_flagged() -> None:
    common = sorted((entry for entry in BOARD if entry.common), key=lambda entry: len(entry.word))
    shortest_first = words(common[:9]) + words(common[-9:])
    assert length_trend([len(word) for word in shortest_first]) == 1.0
    assert findings_reason(shortest_first, BOARD) == ""
    longest_first = shortest_first[::-1]
    assert length_trend([len(word) for word in longest_first]) == -1.0
    assert findings_reason(longest_first, BOARD).startswith("order: longest words first")
    assert findings_reason(longest_first[: ORDER_MIN_WORDS - 1], BOARD) == ""  # too few
    assert length_trend([3, 3, 3]) == length_trend([]) == 0.0


def test_a_word_twice_or_off_the_board_counts_once_or_not_at_all() -> None:
    """Words the solution lacks (a host's accepted challenge) are not judged; a word found
    twice is one word."""
    common = sorted((entry.word for entry in BOARD if entry.common), key=len)[:30]
    assert findings_reason(common + common + ["zzzz"] * 40, BOARD) == ""
    assert findings_reason([], BOARD) == findings_reason(["cat"], []) == ""


@pytest.mark.django_db
def test_a_strong_player_is_never_flagged_on_real_daily_boards() -> None:
    """On 60 daily boards as the site derives them (English list, the site's common words):
    a strong player's round (a third of the maximum and more, mostly common words, shortest
    first with a rare one now and then) passes every rule; the issue's script does not."""
    word_list = dictionaries.load("english")
    for offset in range(60):
        day = date(2027, 1, 1) + timedelta(days=offset)
        solution = daily_board(day, word_list, "test-secret").solution
        common = common_words.common_in((found.word for found in solution.words), "english")
        board = [BoardWord(f.word, f.points, f.word in common) for f in solution.words]
        entries: list[list] = [[b.word, b.points, [], b.common] for b in board]
        for share in (0.3, 0.4):
            found = strong_human_words(entries, share=share, seed=offset)
            assert findings_reason(found, board) == "", (day, share, found)
        assert findings_reason([entry.word for entry in board], board)
