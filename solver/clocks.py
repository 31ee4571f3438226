"""The shrinking clock: each round of a game is a little shorter than the one before.

A house rule from the tables that play "one more round" until late: the first round is the
room's full length, each later round of the same game ``shrink_seconds`` shorter, never
below a floor. The rule is here, pure; the room (``games.models.Room``) counts the game's
rounds and a round copies the length it gets when it starts.
"""

from __future__ import annotations


def round_length(
    round_seconds: int | None, number_in_game: int, shrink_seconds: int = 0, floor: int = 30
) -> int | None:
    """The length of the game's round ``number_in_game`` (1 for its first round): the full
    ``round_seconds`` less ``shrink_seconds`` for each round before it, never below
    ``floor``. A floor above the full length leaves the full length (the host may shorten
    the rounds after choosing the floor); untimed rounds (``None``) stay untimed."""
    if round_seconds is None or shrink_seconds <= 0:
        return round_seconds
    shrunk = round_seconds - shrink_seconds * max(number_in_game - 1, 0)
    return max(min(floor, round_seconds), shrunk)
