"""Which official dice sets a room's own set could be, from the boards its host confirmed.

Each confirmed board narrows it: an official set stays a candidate while its dice could
have rolled every confirmed board of that size (``solver.dice.could_roll``). Once
``MIN_BOARDS`` boards of a size were confirmed and some sets remain, the photo reader checks
that size's boards against their dice (``vision.dice_check``: a die is corrected only where
every remaining set agrees). A set no official set fits (another edition, home-made dice)
is never checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dicesets.models import DiceSet
from solver.dice import DICE_SETS, sets_that_could_roll

# Confirmed boards of a size before its candidate sets are trusted: a board of an edition
# the project does not list often fits a listed set of its size (5 of the 12 5x5 boards of
# the project's photos fit Big Boggle's dice, though their set has an "An" face that Big
# Boggle has not); three together did in 10 of their 220 triples.
MIN_BOARDS = 3


def record_board(dice_set: DiceSet, faces: Sequence[str]) -> None:
    """Narrow the set's candidates by one confirmed board (``faces``, row by row).

    Precondition: in a transaction holding the set's row lock (``select_for_update``), as
    ``dicesets.services.store_exemplars`` is."""
    key = str(len(faces))
    fitting = sets_that_could_roll(list(faces))
    known = dict(dice_set.board_fits or {})
    entry = known.get(key)
    if entry is None:
        entry = {"boards": 0, "sets": fitting}
    else:
        entry = {"boards": entry["boards"], "sets": [s for s in entry["sets"] if s in fitting]}
    entry["boards"] += 1
    known[key] = entry
    dice_set.board_fits = known
    DiceSet.objects.filter(pk=dice_set.pk).update(board_fits=known)


def candidate_dice(dice_set: DiceSet) -> list[tuple[tuple[str, ...], ...]]:
    """The dice of every official set this set could be, for each size it has taught
    enough boards of (none: the reader does not check)."""
    return [
        DICE_SETS[candidate["name"]].dice
        for size in checked_against(dice_set)
        for candidate in size["sets"]
    ]


def checked_against(dice_set: DiceSet) -> list[dict[str, Any]]:
    """What the room's photos are checked against, per board size (docs/api.md, "Dice
    sets"): ``{"dice", "boards", "sets"}``, the sets as ``{"name", "title"}``."""
    shown = []
    for key, entry in sorted((dice_set.board_fits or {}).items(), key=lambda item: int(item[0])):
        names = [name for name in entry.get("sets", []) if name in DICE_SETS]
        if entry.get("boards", 0) >= MIN_BOARDS and names:
            shown.append(
                {
                    "dice": int(key),
                    "boards": entry["boards"],
                    "sets": [{"name": name, "title": DICE_SETS[name].title} for name in names],
                }
            )
    return shown
