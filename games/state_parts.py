"""The hook through which features add their part to a room's state (docs/api.md, "State").

``games.state.room_state`` reads what every room has; a feature that only some rooms use
(hints in practice rooms, teams, a locked room's waiting list, another app's photo or daily
board) registers a part here when its app starts (``AppConfig.ready``), and the state
imports none of them: a new feature adds a part, not an import.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from games.models import Player, Room, Round


@dataclass(frozen=True)
class StateView:
    """What a part may read: the room, its current game's latest round (None before the
    first), who looks (None: a table screen), and the room's players, loaded once."""

    room: Room
    current: Round | None
    viewer: Player | None
    players: Sequence[Player]


StatePart = Callable[[StateView], dict[str, Any]]
_parts: list[StatePart] = []


def add_state_part(part: StatePart) -> None:
    """Add ``part``'s keys to every room state from now on (once, however often added)."""
    if part not in _parts:
        _parts.append(part)


def parts_of(view: StateView) -> dict[str, Any]:
    """Every registered part's keys for one state."""
    state: dict[str, Any] = {}
    for part in _parts:
        state.update(part(view))
    return state
