"""How a room plays: each for themselves (classic), as one team against the board (co-op,
``games.coop``), or in teams against each other (``games.teams``). A round copies its
room's mode when it starts."""

from __future__ import annotations

CLASSIC = "classic"
COOP = "coop"
TEAMS = "teams"
MODES = (CLASSIC, COOP, TEAMS)
