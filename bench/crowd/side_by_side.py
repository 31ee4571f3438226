"""The headline figures of load runs in columns (``--through-nginx``, ``--side-by-side``):
what a player costs the web tier, Redis and the sockets, next to what the players saw, one
column per run (the direct run, the run through nginx)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Getter = Callable[[dict[str, Any]], Any]


def _get(report: dict[str, Any], *path: str) -> Any:
    value: Any = report
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _play(*path: str) -> Getter:
    return lambda report: _get(report, "costs", "play", *path)


def _pair(first: Getter, second: Getter) -> Getter:
    return lambda report: f"{_text(first(report))} / {_text(second(report))}"


def _five_xx(report: dict[str, Any]) -> int:
    return sum(_get(report, name, "5xx") or 0 for name in ("http_game", "http_burst"))


def _handshake_5xx(report: dict[str, Any]) -> int:
    """Websocket handshakes answered 5xx (a proxy's 502 or 504), by bench.crowd.player_link's
    "InvalidStatus <code>" reasons."""
    failures = _get(report, "websockets", "connect_failures") or {}
    return sum(n for why, n in failures.items() if why.startswith("InvalidStatus 5"))


def _counts(data: Any) -> str:
    if not data:
        return "n/a"
    return ", ".join(f"{key.removeprefix('daphne-')}: {value}" for key, value in data.items())


# (label, figure): the rows, in print order.
ROWS: list[tuple[str, Getter]] = [
    (
        "players playing / rooms",
        _pair(lambda r: r.get("players_playing"), lambda r: r.get("rooms")),
    ),
    (
        "verdict latency ms p50 / p99",
        _pair(
            lambda r: _get(r, "verdict_latency_ms", "p50"),
            lambda r: _get(r, "verdict_latency_ms", "p99"),
        ),
    ),
    (
        "round end ms after ends_at p50 / p99",
        _pair(
            lambda r: _get(r, "round_ended_after_deadline_ms", "p50"),
            lambda r: _get(r, "round_ended_after_deadline_ms", "p99"),
        ),
    ),
    ("lost words", lambda r: r.get("lost_words")),
    ("HTTP 5xx (game + burst)", _five_xx),
    ("HTTP other non-2xx (game)", lambda r: _get(r, "http_game", "other_non_2xx")),
    (
        "websocket connect failures (retried)",
        lambda r: sum((_get(r, "websockets", "connect_failures") or {}).values()),
    ),
    ("    of which handshakes answered 5xx", _handshake_5xx),
    ("missed events", lambda r: r.get("missed_events")),
    ("web CPU ms per verdict (Daphnes)", _play("daphnes", "cpu_ms_per_verdict")),
    ("    Daphnes, less the idle rate", _play("daphnes", "cpu_ms_per_verdict_less_idle")),
    ("nginx CPU ms per verdict", _play("nginx", "cpu_ms_per_verdict")),
    ("web tier CPU ms per verdict (+ nginx)", _play("web", "cpu_ms_per_verdict")),
    (
        "Daphnes / nginx CPU s in play",
        _pair(_play("daphnes", "cpu_seconds"), _play("nginx", "cpu_seconds")),
    ),
    ("Redis commands per room event", _play("redis", "commands_per_room_event")),
    ("    Redis, less the idle rate", _play("redis", "commands_per_room_event_less_idle")),
    ("Redis commands per accepted word", _play("redis", "commands_per_accepted_word")),
    ("frames to a socket in play", _play("sockets", "frames_to_client_per_socket")),
    (
        "frames per socket and round (to / from)",
        _pair(
            lambda r: _get(r, "costs", "per_socket_per_round", "frames_to_client"),
            lambda r: _get(r, "costs", "per_socket_per_round", "frames_from_client"),
        ),
    ),
    ("room events per socket in play", _play("sockets", "room_events_per_socket")),
    (
        "websockets by Daphne (port), all connected",
        lambda r: _counts(_get(r, "websockets", "by_daphne")),
    ),
    ("verdicts in play", _play("verdicts")),
    (
        "load client CPU in play (share of a core)",
        lambda r: _get(r, "client", "cpu_share_of_one_core_in_play"),
    ),
    ("load average (1, 5, 15 min)", lambda r: _get(r, "machine", "load_average")),
    ("warnings", lambda r: len(r.get("warnings") or [])),
]


def _text(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, list):
        return " ".join(_text(item) for item in value)
    if isinstance(value, float):
        return (
            f"{value:,.3f}".rstrip("0").rstrip(".") if not value.is_integer() else f"{value:,.0f}"
        )
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def headlines(report: dict[str, Any]) -> dict[str, str]:
    """One run's row values, as printed."""
    return {label: _text(figure(report)) for label, figure in ROWS}


def side_by_side(reports: dict[str, dict[str, Any]]) -> dict[str, dict[str, str]]:
    """Each row's value in each run: {row label: {run name: value}}."""
    columns = {name: headlines(report) for name, report in reports.items()}
    return {label: {name: columns[name][label] for name in reports} for label, _ in ROWS}


def table_lines(reports: dict[str, dict[str, Any]]) -> list[str]:
    """The rows in columns, one per run."""
    rows = side_by_side(reports)
    names = list(reports)
    label_width = max(len(label) for label in rows)
    widths = [max(len(name), *(len(values[name]) for values in rows.values())) for name in names]
    lines = [
        "  ".join([" " * label_width, *(n.rjust(w) for n, w in zip(names, widths, strict=True))])
    ]
    for label, values in rows.items():
        cells = (values[n].rjust(w) for n, w in zip(names, widths, strict=True))
        lines.append("  ".join([label.ljust(label_width), *cells]))
    return lines
