"""The faults of the faults scenario (--faults) by name, its timings, and the record of one
fault: its moments, its leavers, its ghost checks and the next round in each room."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bench.crowd.player import Player


# ------------------------------------------------------------------------ faults

FAULTS: dict[str, str] = {
    "redis": "Redis restart: the private redis-server SIGKILLed mid-round, started again on its"
    " port --fault-down s later (empty: no persistence)",
    "postgres": "PostgreSQL restart: the private cluster stopped mid-round (pg_ctl stop -m fast),"
    " started again --fault-down s later",
    "celery": "Celery worker SIGKILLed mid-round (its process group), a new worker started"
    " 1 s later",
    "daphne": "the first Daphne SIGKILLed mid-round (every host's socket is on it with rooms of"
    " 8): its players reconnect to another (as a proxy routes them), but --leavers of them"
    " leave for good",
    "rolling": "a rolling restart mid-round: each Daphne in turn SIGTERMed (it drains: its"
    " sockets closed with 1012, its words written) and started again, the next once the new"
    " one listens; the players reconnect at once to another (as a proxy routes them)",
}
WORKER_RESTART_SECONDS = 1.0
LEAVE_AFTER_SECONDS = 0.5  # leavers close during the outage (the Daphne kill: at once)
GHOST_GRACE_SECONDS = 5.0  # a socket closed this recently may still show online
FAULT_WINDOW_AFTER_BACK = 10.0  # "during the fault": from the fault to this long after back
SLOW_ROUND_END_SECONDS = 2.0
# A Daphne SIGTERMed in a rolling restart has this long to drain and exit (then SIGKILL).
ROLLING_EXIT_WITHIN = 30.0
# The floor of a rolling restart: every dropped socket back (a state) within this long.
ROLLING_BACK_SECONDS = 2.0


@dataclass
class FaultRecord:
    name: str
    fault_at: float | None = None  # wall time of the fault
    back_at: float | None = None  # the service answering again (the fault itself for kills)
    detail: str = ""
    leavers: list[Player] = field(default_factory=list)
    ghost_checks: list[dict[str, Any]] = field(default_factory=list)
    next_round: dict[str, dict[str, Any]] = field(default_factory=dict)  # by room code
    disconnected_at_end: int = 0
    probe_creations: Counter[str] = field(default_factory=Counter)
    error: str | None = None
    rolling: list[dict[str, Any]] = field(default_factory=list)  # each Daphne's restart
