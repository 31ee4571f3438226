"""The play window's measurements: snapshots of the statement counts, server, client and
machine CPU and the costs' counters (``bench.crowd.costs``) at each round's start and
deadline, added up into a ``Window`` (with the idle rates before the game); and the round's
end, from the deadline until every player has had ``round.ended`` and the results."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import psutil

from bench.crowd.costs import Counts, accumulate, delta, read_counters
from bench.crowd.run import Run


@dataclass
class Snapshot:
    wall: float
    statements: dict[str, Any] | None
    server_cpu: float | None
    client_cpu: float
    machine_cpu: float  # busy CPU seconds of the whole machine so far
    counters: dict[str, float] = field(default_factory=dict)  # bench.crowd.costs


async def take_snapshot(run: Run) -> Snapshot:
    wall = time.time()
    client_cpu = time.process_time()
    statements = await asyncio.to_thread(run.site.statements)
    server_cpu = await asyncio.to_thread(run.site.monitor.sample) if run.site.processes else None
    counters = await asyncio.to_thread(read_counters, run)
    return Snapshot(wall, statements, server_cpu, client_cpu, machine_busy_seconds(), counters)


def machine_busy_seconds() -> float:
    times = psutil.cpu_times()
    return sum(times) - times.idle - getattr(times, "iowait", 0.0)


@dataclass
class Window:
    seconds: float = 0.0
    statements: Counter[str] = field(default_factory=Counter)
    by_kind: Counter[str] = field(default_factory=Counter)
    transaction: Counter[str] = field(default_factory=Counter)
    idle_statements_per_second: float | None = None
    server_cpu: float = 0.0
    client_cpu: float = 0.0
    machine_cpu: float = 0.0
    measured: bool = False
    # the costs' counters grown in play, at the rounds' ends, and idle (bench.crowd.costs)
    costs: Counts = field(default_factory=dict)
    end_costs: Counts = field(default_factory=dict)
    play_costs_seconds: float = 0.0
    end_seconds: float = 0.0
    rooms_ended: int = 0
    end_play_room_seconds: float = 0.0  # rooms still playing after the first deadline
    idle_costs: Counts = field(default_factory=dict)
    idle_seconds: float = 0.0

    def add_costs(
        self, all_playing: Snapshot, first_end: Snapshot, after: Snapshot, still: list[float]
    ) -> None:
        """The costs' windows of one round: play, from the last room's start to the first
        room's deadline (every room playing, none ending), and the rounds' end, from the
        first deadline until every player had round.ended and the results. ``still``: each
        room's seconds of play left at the first deadline; what that play costs at the play
        window's rate is taken off the end's counts (``end_play_room_seconds``)."""
        self.play_costs_seconds += first_end.wall - all_playing.wall
        accumulate(self.costs, delta(all_playing.counters, first_end.counters))
        self.end_seconds += after.wall - first_end.wall
        accumulate(self.end_costs, delta(first_end.counters, after.counters))
        self.rooms_ended += len(still)
        self.end_play_room_seconds += sum(max(0.0, left) for left in still)

    def add(self, start: Snapshot, end: Snapshot) -> None:
        self.seconds += end.wall - start.wall
        self.client_cpu += end.client_cpu - start.client_cpu
        self.machine_cpu += end.machine_cpu - start.machine_cpu
        if start.server_cpu is not None and end.server_cpu is not None:
            self.server_cpu += end.server_cpu - start.server_cpu
        if start.statements and end.statements:
            self.measured = True
            self.statements["statements"] += (
                end.statements["statements"] - start.statements["statements"]
            )
            self.by_kind.update(end.statements["by_kind"])
            self.by_kind.subtract(start.statements["by_kind"])
            self.transaction.update(end.statements["transaction"])
            self.transaction.subtract(start.statements["transaction"])

    async def measure_idle(self, run: Run, seconds: float = 3.0) -> None:
        """Statements a second with every player connected and no round: the floor."""
        if run.site.stats_dir is None:
            return
        await asyncio.sleep(1.0)  # let the connections' own work reach the files
        before = await take_snapshot(run)
        await asyncio.sleep(seconds)
        after = await take_snapshot(run)
        accumulate(self.idle_costs, delta(before.counters, after.counters))
        self.idle_seconds += after.wall - before.wall
        if before.statements and after.statements:
            self.idle_statements_per_second = (
                after.statements["statements"] - before.statements["statements"]
            ) / (after.wall - before.wall)
