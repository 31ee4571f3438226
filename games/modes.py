"""How a room plays: each for themselves (classic), as one team against the board (co-op,
``games.coop``), in teams against each other (``games.teams``), or in turns against the
clock (chess clock, ``games.chess``). A round copies its room's mode when it starts."""

from __future__ import annotations

CLASSIC = "classic"
COOP = "coop"
TEAMS = "teams"
CHESS = "chess"
MODES = (CLASSIC, COOP, TEAMS, CHESS)
