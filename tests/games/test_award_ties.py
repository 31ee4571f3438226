"""Each award's tie rule (games.awards.decide; docs/api.md "The end of the game"), one test
per award: who shares it, and what breaks a tie when it does not."""

from __future__ import annotations

from games.awards import Accepted, decide

# Zipf frequencies: 0.0 is "rarer than once per million words" (games.common_words).
ZIPF = {"cats": 4.9, "dogs": 5.0, "went": 4.0, "tent": 3.5, "wen": 3.4, "quiet": 5.2}


def zipf(word: str) -> float:
    return ZIPF.get(word, 0.0)


def entry(player, word, points=1, counted=True, seconds=5.0, round_number=1) -> Accepted:
    return Accepted(round_number, player, word, points, counted, seconds)


def award(name: str, entries: list[Accepted], round_points=None) -> list[dict] | None:
    awards = decide(entries, round_points or {}, zipf)
    return next((a["winners"] for a in awards if a["award"] == name), None)


def test_longest_word_is_shared_by_length_whatever_the_points():
    winners = award(
        "longest_word",
        [
            entry(1, "quiet", points=2),
            entry(1, "abcde", points=3),  # Ann's longest: as long, higher scoring
            entry(2, "dorks", points=2),  # as long as Ann's, fewer points: shares it
            entry(3, "zzzzz", points=2),
            entry(3, "aaaaa", points=2),  # Cid's: as long, as many points, alphabetical
            entry(4, "cats", points=1),
            entry(5, "abcdef", points=3, counted=False),  # cancelled: does not count
        ],
    )
    assert winners == [
        {"id": 1, "word": "abcde", "round": 1},
        {"id": 3, "word": "aaaaa", "round": 1},
        {"id": 2, "word": "dorks", "round": 1},
    ]


def test_most_unique_is_shared_by_count_and_counts_per_round():
    winners = award(
        "most_unique",
        [
            entry(1, "cats"),
            entry(1, "dogs"),
            entry(2, "went"),
            entry(2, "cats", round_number=2),  # Ann's in round 1 only: unique here too
            entry(3, "tent"),
            entry(3, "dogs"),  # Ann found it in that round: unique for nobody
        ],
    )
    assert winners == [{"id": 2, "count": 2}]
    tie = award("most_unique", [entry(1, "cats"), entry(2, "dogs"), entry(3, "went")])
    assert tie == [{"id": 1, "count": 1}, {"id": 2, "count": 1}, {"id": 3, "count": 1}]


def test_best_find_is_the_rarest_then_the_longer_then_the_higher_scoring():
    rarer = award("best_find", [entry(1, "wen"), entry(2, "tent"), entry(3, "cats")])
    assert rarer == [{"id": 1, "word": "wen", "round": 1}]
    # Both rarer than once per million words: equally rare; the longer wins, even with
    # fewer points.
    longer = award("best_find", [entry(1, "zoea", points=2), entry(2, "xylyl", points=1)])
    assert longer == [{"id": 2, "word": "xylyl", "round": 1}]
    # As rare and as long: the higher scoring wins alone.
    higher = award("best_find", [entry(1, "zoea", points=1), entry(2, "qoph", points=2)])
    assert higher == [{"id": 2, "word": "qoph", "round": 1}]
    # As rare, as long, as many points: shared.
    shared = award("best_find", [entry(1, "zoea"), entry(2, "qoph"), entry(3, "tent")])
    assert shared == [{"id": 2, "word": "qoph", "round": 1}, {"id": 1, "word": "zoea", "round": 1}]


def test_fastest_first_word_is_shared_to_the_millisecond():
    winners = award(
        "fastest_first_word",
        [
            entry(1, "cats", seconds=2.0004),
            entry(2, "dogs", seconds=2.0001),  # the same millisecond as Ann's: shared
            entry(3, "went", seconds=2.002),
            entry(4, "tent", seconds=9.0),
            entry(4, "wen", seconds=1.0, round_number=2),  # Dan's first of round 2: fastest
        ],
    )
    assert winners == [{"id": 4, "word": "wen", "round": 2, "seconds": 1.0}]
    shared = award(
        "fastest_first_word",
        [
            entry(1, "cats", seconds=2.0004),
            entry(2, "dogs", seconds=2.0001),
            entry(3, "went", seconds=2.002),
        ],
    )
    assert shared == [
        {"id": 2, "word": "dogs", "round": 1, "seconds": 2.0},
        {"id": 1, "word": "cats", "round": 1, "seconds": 2.0},
    ]


def test_most_improved_is_shared_by_the_same_rise():
    winners = award(
        "most_improved",
        [entry(1, "cats")],
        round_points={1: [1, 0, 4], 2: [2, 5], 3: [0, 2], 4: [6, 1], 5: [9]},
    )
    assert winners == [{"id": 1, "from": 1, "to": 4}, {"id": 2, "from": 2, "to": 5}]
    # No rise, no award.
    assert award("most_improved", [entry(1, "cats")], round_points={1: [3, 3], 2: [4, 1]}) is None
