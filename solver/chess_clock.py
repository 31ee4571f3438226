"""The chess clock of a Boggle round played in turns ("speed chess", as the Telegram referee
bot's players wished): each player has a clock; players take turns in a fixed order; only
the player whose turn it is may play a word; a word that counts and that nobody has played
this round stops their clock and passes the turn; a player whose clock reaches zero is out,
and the last one left wins (with two players, the first to reach zero loses).

A pure value: every change returns a new ``ChessClock``; times are integers, milliseconds
on the caller's clock (the server's). The caller keeps it (``to_dict`` / ``from_dict``),
decides what counts as a word, and calls ``flag`` when ``flag_falls_at`` has passed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class ChessClock:
    """Whose turn it is and how much time each player has left.

    - ``order``: the players (ids) in turn order, out or not;
    - ``left_ms``: each player's time left when their clock last stopped, in ``order``;
    - ``turn``: the index in ``order`` of the player whose clock runs, None once over;
    - ``turn_started_ms``: when that clock started running;
    - ``out``: the players who are out, in the order they went out.
    """

    order: tuple[int, ...]
    left_ms: tuple[int, ...]
    turn: int | None
    turn_started_ms: int
    out: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        assert len(self.order) == len(self.left_ms) == len(set(self.order))
        assert self.turn is None or self.order[self.turn] not in self.out

    @classmethod
    def start(cls, players: Sequence[int], seconds: int, now_ms: int) -> ChessClock:
        """Every player ``seconds`` on their clock, the first one's running from ``now_ms``.
        A clock of fewer than two players is over at once (nobody to play against)."""
        order = tuple(players)
        clock = cls(order, (seconds * 1000,) * len(order), 0 if order else None, now_ms)
        return clock if len(order) >= 2 else replace(clock, turn=None)

    @property
    def over(self) -> bool:
        return self.turn is None

    @property
    def playing(self) -> tuple[int, ...]:
        """The players still in, in turn order."""
        return tuple(player for player in self.order if player not in self.out)

    @property
    def current(self) -> int | None:
        """The player whose turn it is, or None once over."""
        return None if self.turn is None else self.order[self.turn]

    @property
    def winner(self) -> int | None:
        """The last player left once the clock is over (None while it runs, or when nobody
        is left: every player skipped)."""
        if not self.over:
            return None
        left = self.playing
        return left[0] if len(left) == 1 else None

    def left(self, player: int, now_ms: int) -> int:
        """Milliseconds left on ``player``'s clock at ``now_ms`` (never below 0)."""
        index = self.order.index(player)
        if index != self.turn:
            return self.left_ms[index]
        return max(0, self.left_ms[index] - max(0, now_ms - self.turn_started_ms))

    def flag_falls_at(self) -> int | None:
        """When the running clock reaches zero, or None once over."""
        if self.turn is None:
            return None
        return self.turn_started_ms + self.left_ms[self.turn]

    def play(self, now_ms: int) -> ChessClock:
        """The player whose turn it is played a word that counts, at ``now_ms`` (before their
        flag fell): their clock stops and the next player still in starts theirs."""
        if self.turn is None:
            raise ValueError("the clock is over")
        falls = self.flag_falls_at()
        assert falls is not None
        if now_ms >= falls:
            raise ValueError("that player's time was up")
        left = list(self.left_ms)
        left[self.turn] = self.left(self.order[self.turn], now_ms)
        return replace(
            self, left_ms=tuple(left), turn=self._next_after(self.turn), turn_started_ms=now_ms
        )

    def flag(self, now_ms: int) -> ChessClock:
        """The running clock reached zero (``now_ms`` at or after ``flag_falls_at``): its
        player is out; the next one's clock starts from the moment it fell."""
        falls = self.flag_falls_at()
        if falls is None or now_ms < falls:
            return self
        assert self.turn is not None
        return self._out(self.order[self.turn], falls)

    def skip(self, player: int, now_ms: int) -> ChessClock:
        """``player`` is out (the host skips a player who left); when it was their turn, the
        next player's clock starts now. Skipping a player already out changes nothing."""
        if self.over or player not in self.playing:
            return self
        if self.current != player:
            skipped = replace(self, out=(*self.out, player))
            if len(skipped.playing) >= 2:
                return skipped
            # The one left wins: their clock stops where it is.
            assert self.turn is not None and self.current is not None
            left = list(self.left_ms)
            left[self.turn] = self.left(self.current, now_ms)
            return replace(skipped, left_ms=tuple(left), turn=None, turn_started_ms=now_ms)
        return self._out(player, now_ms)

    def _out(self, player: int, now_ms: int) -> ChessClock:
        index = self.order.index(player)
        left = list(self.left_ms)
        left[index] = self.left(player, now_ms)
        out = (*self.out, player)
        still_in = [p for p in self.order if p not in out]
        turn = self._next_after(index, out) if len(still_in) >= 2 else None
        return replace(self, left_ms=tuple(left), turn=turn, turn_started_ms=now_ms, out=out)

    def _next_after(self, index: int, out: Sequence[int] | None = None) -> int:
        gone = self.out if out is None else out
        for step in range(1, len(self.order) + 1):
            candidate = (index + step) % len(self.order)
            if self.order[candidate] not in gone:
                return candidate
        raise AssertionError("no player left")

    def to_dict(self) -> dict[str, Any]:
        return {
            "order": list(self.order),
            "left_ms": list(self.left_ms),
            "turn": self.turn,
            "turn_started_ms": self.turn_started_ms,
            "out": list(self.out),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ChessClock:
        return cls(
            tuple(data["order"]),
            tuple(data["left_ms"]),
            data["turn"],
            data["turn_started_ms"],
            tuple(data["out"]),
        )
