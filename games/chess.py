"""Chess-clock rounds (docs/api.md, "Chess clock"): the players take turns against their own
clocks (``solver.chess_clock``); a word nobody has played this round passes the turn, a
player whose clock runs out is out, the last one left wins.

This module holds what a round keeps of its game (``Round.chess``: the seconds each player
has, the clock once the countdown is over, the words played) and how clients see it. The
moves (the clock's start, a word, a flag, the host's skip) are ``games.chess_turns``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games import modes
from games.models import Round
from solver.chess_clock import ChessClock


@dataclass(frozen=True)
class ChessGame:
    """A chess round's game as stored in ``Round.chess``: each player's time
    (``seconds``), the clock (None until the countdown is over, when the order is drawn)
    and the words played, as (player id, word), in order."""

    seconds: int
    clock: ChessClock | None = None
    played: tuple[tuple[int, str], ...] = ()

    @classmethod
    def of(cls, round_: Round) -> ChessGame | None:
        """The round's game; None for a round of another mode."""
        if round_.mode != modes.CHESS or not round_.chess:
            return None
        data = round_.chess
        clock = data.get("clock")
        return cls(
            int(data["seconds"]),
            None if clock is None else ChessClock.from_dict(clock),
            tuple((int(player_id), str(word)) for player_id, word in data.get("played", [])),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "seconds": self.seconds,
            "clock": None if self.clock is None else self.clock.to_dict(),
            "played": [[player_id, word] for player_id, word in self.played],
        }

    def has_played(self, word: str) -> bool:
        return any(played == word for _, played in self.played)

    def as_dict(self, stopped_ms: int | None = None) -> dict[str, Any]:
        """What clients see (docs/api.md, "Round": ``chess``). ``stopped_ms``: when the round
        ended, if it did (the host may stop it before one player is left): no clock runs
        after that, and the one that ran shows what it had left then."""
        clock = self.clock
        running = clock is not None and not clock.over and stopped_ms is None
        players = []
        if clock is not None:
            for index, player_id in enumerate(clock.order):
                left = clock.left_ms[index]
                if stopped_ms is not None and index == clock.turn:
                    left = clock.left(player_id, stopped_ms)
                players.append({"id": player_id, "left_ms": left, "out": player_id in clock.out})
        return {
            "seconds": self.seconds,
            "players": players,
            "turn": clock.current if running and clock is not None else None,
            "turn_started_at": clock.turn_started_ms if running and clock is not None else None,
            "flag_at": clock.flag_falls_at() if running and clock is not None else None,
            "out": [] if clock is None else list(clock.out),
            "winner": None if clock is None else clock.winner,
            "played": [{"player_id": player_id, "word": word} for player_id, word in self.played],
        }


def chess_dict(round_: Round, ended_at_ms: int | None) -> dict[str, Any] | None:
    """A round's ``chess`` as clients see it (None in other modes); ``ended_at_ms``: when
    it ended, if it has."""
    game = ChessGame.of(round_)
    return None if game is None else game.as_dict(ended_at_ms)


def places(round_: Round) -> dict[int, int]:
    """Where each player of a chess round's order ranks (lower is better, equal places
    ranked by points): the winner, or the players still in when the host stopped the
    round, then the players who went out, the last one out first. Empty in other modes;
    players not in the order (they joined during the round) are not listed."""
    game = ChessGame.of(round_)
    if game is None or game.clock is None:
        return {}
    clock = game.clock
    ranked = {player_id: 0 for player_id in clock.playing}
    for place, player_id in enumerate(reversed(clock.out), start=1):
        ranked[player_id] = place
    return ranked
