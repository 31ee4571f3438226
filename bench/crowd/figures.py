"""The load client's shared helpers for figures: its log lines on stderr (seconds since it
started) and percentiles and summaries of lists of numbers."""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Iterable
from typing import Any

_started = time.monotonic()


def log(message: str) -> None:
    print(f"[{time.monotonic() - _started:7.1f}s] {message}", file=sys.stderr, flush=True)


def percentile(values: list[float], p: float) -> float | None:
    """Nearest-rank percentile of ``values`` (None when empty)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def summary(values: list[float], points: Iterable[float] = (50, 95, 99)) -> dict[str, Any]:
    result: dict[str, Any] = {"n": len(values)}
    for p in points:
        value = percentile(values, p)
        result[f"p{p:g}"] = None if value is None else round(value, 1)
    result["max"] = round(max(values), 1) if values else None
    return result


def format_summary(data: dict[str, Any]) -> str:
    if not data["n"]:
        return "no data"
    parts = [f"{key} {value:,.0f}" for key, value in data.items() if key not in ("n",)]
    return ", ".join(parts) + f" (n={data['n']:,})"
