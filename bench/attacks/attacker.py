"""The attacking machine of bench/abuse.py: each attack's attacker side runs in a process of
its own (``bench/abuse.py --child NAME``), on a host of the simulated Wi-Fi or here, and
reports what it saw as JSON (``SideReport``), turned into the outcome's notes here."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.attacks.outcome import Outcome
from netlab import Host

# The script whose ``--child NAME`` runs one attack's attacker side.
SCRIPT = Path(__file__).resolve().parent.parent / "abuse.py"


# ----------------------------------------------------------------------------- attacks
#
# Each attack has two sides. The attacker's side (``side_*``) runs in the attacker's own
# process, on its own machine of the simulated Wi-Fi (``Attacker``): it sends the attack and
# returns what it saw as JSON, with its moments in epoch seconds. This side (``attack_*``)
# turns that into the outcome's notes, with the server's RSS at those moments.


class Attacker:
    """The attacking machine: a process of its own per attack, started on ``host`` (a
    namespace of the simulated Wi-Fi) or, with ``--attacker loopback``, here. It reaches
    the site at ``base``; only ``allow`` (the Wi-Fi's subnet) and loopback are open to it."""

    def __init__(self, base: str, host: Host | None, allow: str | None) -> None:
        self.base = base
        self.host = host
        self.allow = allow

    async def run(self, side: str, **params: Any) -> dict[str, Any]:
        argv = [sys.executable, str(SCRIPT), "--child", side]
        child = await asyncio.create_subprocess_exec(
            *(self.host.command(argv) if self.host else argv),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        given = {"base": self.base, "allow": self.allow, **params}
        out, _ = await child.communicate(json.dumps(given).encode())
        lines = out.decode().strip().splitlines()
        if child.returncode != 0 or not lines:
            raise RuntimeError(f"the attacker's {side} process failed (exit {child.returncode})")
        return dict(json.loads(lines[-1]))


def to_monotonic(epoch: float) -> float:
    """An epoch time from the attacker's process on this process's monotonic clock."""
    return epoch + time.monotonic() - time.time()


def take_report(outcome: Outcome, report: dict[str, Any]) -> None:
    """The notes and HTTP statuses the attacker's side reported."""
    outcome.http_statuses.update({int(status): n for status, n in report["statuses"].items()})
    for text in report["notes"]:
        outcome.note(text)


@dataclass
class SideReport:
    """What an attacker's side saw: its notes and the HTTP statuses it was answered."""

    notes: list[str] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)

    def note(self, text: str) -> None:
        self.notes.append(text)

    def as_dict(self, **extra: Any) -> dict[str, Any]:
        return {"notes": self.notes, "statuses": dict(self.statuses), **extra}
