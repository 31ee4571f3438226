"""Co-op mode: the room plays as one team against the board.

A co-op round is scored as any other round, but no word cancels (the finders are on one
team), and the team's figure is the share of the board's words anyone found, against the
goal the room set (``coop_goal``, percent). These are the rules on plain data; reading the
words is the caller's (``games.state``, ``games.live_counts``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

MIN_GOAL = 10
MAX_GOAL = 100
DEFAULT_GOAL = 50


def first_finders(accepted: Iterable[tuple[int, str]]) -> list[dict[str, Any]]:
    """The team's words from accepted ``(player id, word)`` entries in the order they were
    accepted: each word once, with who found it first."""
    seen: set[str] = set()
    words = []
    for player_id, word in accepted:
        if word not in seen:
            seen.add(word)
            words.append({"word": word, "player_id": player_id})
    return words


def found_count(solution_words: frozenset[str], team_words: Iterable[str]) -> int:
    """How many of the board's words the team found (a word a challenge let in is not one
    of the board's words: it scores, but the share is of the board's)."""
    return len(solution_words.intersection(team_words))


def reached(found: int, total: int, goal: int) -> bool:
    """Whether ``found`` of ``total`` words is at least ``goal`` percent (in whole words:
    50% of 87 words is 44). A board without words has nothing to reach."""
    return total > 0 and found * 100 >= goal * total


def summary(solution_words: frozenset[str], points_by_word: dict[str, int], goal: int) -> dict:
    """The team's result for a finished round: ``solution_words`` the board's words,
    ``points_by_word`` each word anyone found with the points it scored (once per word)."""
    found = found_count(solution_words, points_by_word)
    total = len(solution_words)
    return {
        "goal": goal,
        "total": total,
        "found": found,
        "share": round(found / total, 4) if total else 0.0,
        "reached": reached(found, total, goal),
        "points": sum(points_by_word.values()),
    }
