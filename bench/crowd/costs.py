"""What each part of the site costs, for docs/scaling.md: counters read over three windows
and turned into costs per accepted word, per verdict, per room event, per socket and per
room's end:

- play: from the last room's ``starts_at`` to the first room's ``ends_at`` (every room
  playing, none ending);
- the rounds' end: from the first ``ends_at`` until every player has had ``round.ended``
  and the whole results, less what the rooms still playing then cost at the play rate;
- idle: a few seconds with every player connected, before the first round.

The counters, flattened into one ``dict[str, float]`` per snapshot (``read_counters``):

- ``redis.cmd.<name>``: calls per command from Redis's ``INFO commandstats`` (commands run
  by a Lua script count under their own names too, as Redis counts them), ``redis.cpu``
  (``used_cpu_sys + used_cpu_user``), ``redis.net_in`` / ``redis.net_out`` (bytes);
- ``pg.db.<column>``: ``pg_stat_database`` of the run's own database (transactions, rows
  inserted, updated, deleted, fetched, returned), ``pg.table.<table>.<ins|upd|del>`` from
  ``pg_stat_user_tables``, and ``pg.wal`` (bytes of write-ahead log, the whole cluster);
- ``cpu.<process>``: CPU seconds of each server process tree (Daphnes, worker, beat, and
  with ``--through-nginx`` nginx) and, with private services, of the redis-server and the
  PostgreSQL cluster;
- ``ws.*``: what this client's sockets sent and received (frames, payload bytes, room
  events, verdicts).

On the shared Redis and PostgreSQL (the default) the Redis counters and the WAL include
every other program's work, and the services' CPU is not measured: ``--private-services``
gives this run a redis-server and a PostgreSQL cluster of its own, and clean counts.
PostgreSQL's statistics reach ``pg_stat_*`` when a backend goes idle, at most once a second,
so a window's row counts may lag its edges by up to a second.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from bench.crowd import loop_lag

if TYPE_CHECKING:
    from bench.crowd.run import Metrics, Run


def client_counters(m: Metrics) -> dict[str, float]:
    """What this client's sockets sent and received so far."""
    counters = {
        "ws.frames_in": float(m.ws_frames_in),
        "ws.frames_out": float(m.ws_frames_out),
        "ws.bytes_in": float(m.ws_bytes_in),
        "ws.bytes_out": float(m.ws_bytes_out),
        "ws.room_events": float(m.room_events),
        "ws.event_frames": float(m.event_frames),
        "ws.verdicts": float(sum(m.verdicts.values())),
        "ws.accepted": float(m.accepted_total),
    }
    for kind, size in m.ws_bytes_in_by_type.items():
        counters[f"ws.bytes_in.{kind}"] = float(size)
    for kind, count in m.received.items():
        counters[f"ws.frames_in.{kind}"] = float(count)
    return counters


def read_counters(run: Run) -> dict[str, float]:
    """Every counter of one snapshot (called from a thread: the services' reads block)."""
    counters = client_counters(run.metrics)
    site = run.site
    if site.processes:
        for name, seconds in site.monitor.cpu_by_group(exact=True).items():
            counters[f"cpu.{name}"] = seconds
    if site.services_monitor.roots:
        site.services_monitor.sample()
        for name, seconds in site.services_monitor.cpu_by_group(exact=True).items():
            counters[f"cpu.{name}"] = seconds
    if site.probe is not None:
        counters.update(site.probe.read())
    if site.processes:  # a site this run started: its web processes' /metrics
        counters.update(loop_lag.counters(site.daphne_urls or site.urls))
    return counters


Counts = dict[str, float]


def delta(start: Counts, end: Counts) -> Counts:
    """What grew between two snapshots (a counter missing at the start counts from 0)."""
    return {key: value - start.get(key, 0.0) for key, value in end.items()}


def accumulate(into: Counts, more: Counts) -> None:
    """Add ``more`` to ``into``, key by key."""
    for key, value in more.items():
        into[key] = into.get(key, 0.0) + value


# ------------------------------------------------------------------ derived figures


def _ratio(numerator: float, denominator: float, digits: int = 2) -> float | None:
    return round(numerator / denominator, digits) if denominator else None


def _prefixed(counts: Counts, prefix: str) -> dict[str, float]:
    return {k.removeprefix(prefix): v for k, v in counts.items() if k.startswith(prefix)}


def _sum(counts: Counts, prefix: str, names: Iterable[str] | None = None) -> float:
    if names is None:
        return sum(v for k, v in counts.items() if k.startswith(prefix))
    return sum(counts.get(prefix + name, 0.0) for name in names)


def redis_figures(counts: Counts, per: dict[str, float]) -> dict[str, Any]:
    commands = {k: int(v) for k, v in _prefixed(counts, "redis.cmd.").items() if v > 0}
    total = sum(commands.values())
    figures: dict[str, Any] = {
        "commands": total,
        "by_command": dict(sorted(commands.items(), key=lambda kv: -kv[1])),
        "cpu_seconds": round(counts.get("redis.cpu", 0.0), 2),
        "cpu_us_per_command": _ratio(counts.get("redis.cpu", 0.0) * 1e6, total, 1),
        "net_in_bytes": int(counts.get("redis.net_in", 0.0)),
        "net_out_bytes": int(counts.get("redis.net_out", 0.0)),
    }
    for name, denominator in per.items():
        figures[f"commands_per_{name}"] = _ratio(total, denominator)
        figures[f"net_bytes_per_{name}"] = _ratio(
            counts.get("redis.net_in", 0.0) + counts.get("redis.net_out", 0.0), denominator, 0
        )
    return figures


def postgres_figures(counts: Counts, per: dict[str, float]) -> dict[str, Any]:
    database = {k: int(v) for k, v in _prefixed(counts, "pg.db.").items()}
    tables: dict[str, dict[str, int]] = {}
    for key, value in _prefixed(counts, "pg.table.").items():
        table, _, what = key.rpartition(".")
        if value > 0:
            tables.setdefault(table, {})[what] = int(value)
    written = sum(database.get(f"tup_{k}", 0) for k in ("inserted", "updated", "deleted"))
    figures: dict[str, Any] = {
        "database": database,
        "rows_written": written,
        "tables_written": dict(sorted(tables.items())),
        "wal_bytes": int(counts.get("pg.wal", 0.0)),
    }
    if "cpu.postgres" in counts:
        figures["cpu_seconds"] = round(counts["cpu.postgres"], 2)
    for name, denominator in per.items():
        figures[f"per_{name}"] = {
            "transactions": _ratio(database.get("xact_commit", 0), denominator),
            "rows_inserted": _ratio(database.get("tup_inserted", 0), denominator),
            "rows_updated": _ratio(database.get("tup_updated", 0), denominator),
            "rows_deleted": _ratio(database.get("tup_deleted", 0), denominator),
            "rows_fetched": _ratio(database.get("tup_fetched", 0), denominator),
            "rows_written": _ratio(written, denominator),
            "wal_bytes": _ratio(counts.get("pg.wal", 0.0), denominator, 0),
            "cpu_ms": _ratio(counts.get("cpu.postgres", 0.0) * 1000, denominator)
            if "cpu.postgres" in counts
            else None,
        }
    return figures


def nginx_figures(play: Counts, verdicts: float, frames_in: float) -> dict[str, Any] | None:
    """nginx's CPU in play (--through-nginx), per verdict and per frame it passed on."""
    if "cpu.nginx" not in play:
        return None
    seconds = play["cpu.nginx"]
    return {
        "cpu_seconds": round(seconds, 2),
        "cpu_ms_per_verdict": _ratio(seconds * 1000, verdicts, 3),
        "cpu_ms_per_frame_sent": _ratio(seconds * 1000, frames_in, 3),
    }


def cpu_figures(counts: Counts) -> dict[str, float]:
    return {k: round(v, 2) for k, v in sorted(_prefixed(counts, "cpu.").items())}


def build_costs(
    play: Counts,
    play_seconds: float,
    end: Counts,
    end_seconds: float,
    rooms_ended: int,
    idle: Counts,
    idle_seconds: float,
    end_play_room_seconds: float,
    round_seconds: float,
    sockets: int,
    daphnes: int,
    sources: dict[str, str],
) -> dict[str, Any]:
    """The costs section of the report, from the windows' counter deltas."""
    accepted = play.get("ws.accepted", 0.0)
    verdicts = play.get("ws.verdicts", 0.0)
    events = play.get("ws.room_events", 0.0)
    frames_in = play.get("ws.frames_in", 0.0)
    daphne_cpu = _sum(play, "cpu.daphne")
    per_play = {"accepted_word": accepted, "room_event": events, "second": play_seconds}
    costs: dict[str, Any] = {"sources": sources}

    def less_idle(key_prefix: str, denominator: float, scale: float = 1.0) -> float | None:
        """Per unit, less what the same time costs idle (presence beats, watchers, pings)."""
        if not idle_seconds or not denominator:
            return None
        grown = _sum(play, key_prefix) - _sum(idle, key_prefix) * play_seconds / idle_seconds
        return round(grown * scale / denominator, 3)

    # The rounds' end, less the play of the rooms still playing after the first deadline
    # (at the play window's rate per room-second).
    rooms_playing = rooms_ended  # every room of the round played through the play window
    play_share = (
        end_play_room_seconds / (rooms_playing * play_seconds)
        if rooms_playing and play_seconds
        else 0.0
    )
    end = {
        k: v if k.startswith("lag.") else v - play.get(k, 0.0) * play_share for k, v in end.items()
    }

    costs["play"] = {
        "seconds": round(play_seconds, 1),
        "accepted_words": int(accepted),
        "verdicts": int(verdicts),
        "room_events": int(events),
        "frames_to_clients": int(frames_in),
        "frames_from_clients": int(play.get("ws.frames_out", 0.0)),
        "cpu_seconds": cpu_figures(play),
        "daphnes": {
            "cpu_seconds": round(daphne_cpu, 2),
            "cores_each": _ratio(daphne_cpu, play_seconds * daphnes, 3),
            # The same CPU divided two ways: by what the clients sent, by what they got.
            "cpu_ms_per_verdict": _ratio(daphne_cpu * 1000, verdicts, 3),
            "cpu_ms_per_frame_sent": _ratio(daphne_cpu * 1000, frames_in, 3),
            "verdicts_per_cpu_second": _ratio(verdicts, daphne_cpu, 0),
            "cpu_ms_per_verdict_less_idle": less_idle("cpu.daphne", verdicts, 1000.0),
        },
        "nginx": nginx_figures(play, verdicts, frames_in),
        # The web tier: what serving the players cost, nginx included when it is there.
        "web": {
            "cpu_ms_per_verdict": _ratio(
                (daphne_cpu + play.get("cpu.nginx", 0.0)) * 1000, verdicts, 3
            ),
        },
        "redis": redis_figures(play, per_play)
        | {
            "commands_per_accepted_word_less_idle": less_idle("redis.cmd.", accepted),
            "commands_per_room_event_less_idle": less_idle("redis.cmd.", events),
        },
        "postgres": postgres_figures(play, {"accepted_word": accepted})
        | {
            "transactions_per_accepted_word_less_idle": less_idle("pg.db.xact_commit", accepted),
            "rows_fetched_per_accepted_word_less_idle": less_idle("pg.db.tup_fetched", accepted),
        },
        "sockets": socket_figures(play, sockets, play_seconds),
        "loop_lag": loop_lag.summary(play),
    }
    costs["round_end"] = {
        "seconds": round(end_seconds, 1),
        "rooms": rooms_ended,
        "play_taken_off_room_seconds": round(end_play_room_seconds, 1),
        "cpu_seconds": cpu_figures(end),
        "cpu_ms_per_room": {
            k: _ratio(v * 1000, rooms_ended, 1) for k, v in cpu_figures(end).items()
        },
        "redis": redis_figures(end, {"room": rooms_ended}),
        "postgres": postgres_figures(end, {"room": rooms_ended}),
        "sockets": socket_figures(end, sockets, None),
        "loop_lag": loop_lag.summary(end),
    }
    costs["idle"] = {
        "seconds": round(idle_seconds, 1),
        "cpu_cores": {k: _ratio(v, idle_seconds, 3) for k, v in cpu_figures(idle).items()},
        "redis_commands_per_second": _ratio(_sum(idle, "redis.cmd."), idle_seconds, 1),
        "redis_by_command_per_second": {
            k: _ratio(v, idle_seconds, 1)
            for k, v in sorted(_prefixed(idle, "redis.cmd.").items(), key=lambda kv: -kv[1])
            if v > 0
        },
        "postgres_transactions_per_second": _ratio(
            idle.get("pg.db.xact_commit", 0.0), idle_seconds, 1
        ),
        "postgres_rows_written_per_second": _ratio(
            _sum(idle, "pg.db.tup_", ("inserted", "updated", "deleted")), idle_seconds, 1
        ),
    }
    # A socket's round: the play window's rate over the whole round, and the end.
    both = {k: v * round_seconds / play_seconds for k, v in play.items()} if play_seconds else {}
    accumulate(both, end)
    costs["per_socket_per_round"] = {
        "bytes_to_client": _ratio(both.get("ws.bytes_in", 0.0), sockets, 0),
        "bytes_from_client": _ratio(both.get("ws.bytes_out", 0.0), sockets, 0),
        "frames_to_client": _ratio(both.get("ws.frames_in", 0.0), sockets, 1),
        "frames_from_client": _ratio(both.get("ws.frames_out", 0.0), sockets, 1),
    }
    return costs


def socket_figures(counts: Counts, sockets: int, seconds: float | None) -> dict[str, Any]:
    by_type = {k: int(v) for k, v in _prefixed(counts, "ws.bytes_in.").items() if v > 0}
    frames_by_type = {k: int(v) for k, v in _prefixed(counts, "ws.frames_in.").items() if v > 0}
    figures: dict[str, Any] = {
        "bytes_to_clients": int(counts.get("ws.bytes_in", 0.0)),
        "bytes_from_clients": int(counts.get("ws.bytes_out", 0.0)),
        "bytes_to_clients_by_type": dict(sorted(by_type.items(), key=lambda kv: -kv[1])),
        "frames_to_clients_by_type": dict(sorted(frames_by_type.items(), key=lambda kv: -kv[1])),
        "bytes_to_client_per_socket": _ratio(counts.get("ws.bytes_in", 0.0), sockets, 0),
        "bytes_from_client_per_socket": _ratio(counts.get("ws.bytes_out", 0.0), sockets, 0),
        "frames_to_client_per_socket": _ratio(counts.get("ws.frames_in", 0.0), sockets, 1),
        # Room events (frames with a version) each socket got: a room's event reaches all
        # of its sockets.
        "room_events_per_socket": _ratio(counts.get("ws.event_frames", 0.0), sockets, 1),
    }
    if seconds:
        figures["bytes_to_client_per_socket_second"] = _ratio(
            counts.get("ws.bytes_in", 0.0), sockets * seconds, 0
        )
        figures["bytes_from_client_per_socket_second"] = _ratio(
            counts.get("ws.bytes_out", 0.0), sockets * seconds, 0
        )
    return figures
