"""bench/crowd/costs.py: the load bench's costs per part, from counter snapshots."""

from __future__ import annotations

from bench.crowd.costs import accumulate, build_costs, delta
from bench.crowd.report import cost_lines
from bench.crowd.service_probe import redis_counters


def test_redis_counters_flatten_info_sections() -> None:
    counters = redis_counters(
        {"cmdstat_zadd": {"calls": 10, "usec": 5}, "cmdstat_eval": {"calls": 3}},
        {"used_cpu_sys": 1.5, "used_cpu_user": 2.0},
        {"total_net_input_bytes": 100, "total_net_output_bytes": 300},
    )
    assert counters["redis.cmd.zadd"] == 10
    assert counters["redis.cmd.eval"] == 3
    assert counters["redis.cpu"] == 3.5
    assert counters["redis.net_in"] == 100
    assert counters["redis.net_out"] == 300


def test_delta_counts_a_new_counter_from_zero_and_accumulate_adds() -> None:
    grown = delta({"a": 1.0}, {"a": 4.0, "b": 2.0})
    assert grown == {"a": 3.0, "b": 2.0}
    total = {"a": 1.0}
    accumulate(total, grown)
    assert total == {"a": 4.0, "b": 2.0}


def _costs(**overrides: object) -> dict:
    play = {
        "ws.accepted": 100.0,
        "ws.verdicts": 200.0,
        "ws.room_events": 10.0,
        "ws.event_frames": 80.0,
        "ws.frames_in": 400.0,
        "ws.frames_out": 200.0,
        "ws.bytes_in": 40_000.0,
        "ws.bytes_out": 10_000.0,
        "cpu.daphne-1": 0.3,
        "cpu.daphne-2": 0.1,
        "cpu.celery-worker": 0.05,
        "redis.cmd.zadd": 300.0,
        "redis.cmd.eval": 100.0,
        "redis.cpu": 0.04,
        "pg.db.xact_commit": 150.0,
        "pg.db.tup_inserted": 100.0,
        "pg.db.tup_updated": 50.0,
        "pg.table.games_submission.ins": 100.0,
        "pg.table.games_room.upd": 0.0,
        "pg.wal": 20_000.0,
    }
    end = {
        "cpu.celery-worker": 0.2,
        "ws.bytes_in": 16_000.0,
        "ws.frames_in": 16.0,
        "pg.db.xact_commit": 15.0,
        "pg.db.tup_updated": 100.0,
        "redis.cmd.zadd": 60.0,
    }
    idle = {"cpu.daphne-1": 0.01, "cpu.daphne-2": 0.01, "redis.cmd.zadd": 10.0}
    arguments: dict = {
        "play": play,
        "play_seconds": 10.0,
        "end": end,
        "end_seconds": 1.0,
        "rooms_ended": 2,
        "idle": idle,
        "idle_seconds": 2.0,
        "end_play_room_seconds": 0.0,
        "round_seconds": 10.0,
        "sockets": 8,
        "daphnes": 2,
        "sources": {"redis": "private", "postgres": "private"},
    }
    arguments.update(overrides)
    return build_costs(**arguments)


def test_costs_per_word_event_verdict_and_socket() -> None:
    costs = _costs()
    play = costs["play"]
    assert play["daphnes"]["cpu_ms_per_verdict"] == 2.0  # 0.4 s / 200 verdicts
    assert play["daphnes"]["cores_each"] == 0.02  # 0.4 s over 10 s and 2 Daphnes
    # 0.4 s less the idle 0.01 cores x 10 s = 0.3 s, over 200 verdicts
    assert play["daphnes"]["cpu_ms_per_verdict_less_idle"] == 1.5
    assert play["redis"]["commands"] == 400
    assert play["redis"]["commands_per_accepted_word"] == 4.0
    assert play["redis"]["commands_per_room_event"] == 40.0
    assert play["redis"]["commands_per_accepted_word_less_idle"] == 3.5  # 400 - 5/s x 10 s
    assert play["postgres"]["per_accepted_word"]["rows_inserted"] == 1.0
    assert play["postgres"]["per_accepted_word"]["transactions"] == 1.5
    assert play["postgres"]["tables_written"] == {"games_submission": {"ins": 100}}
    assert play["sockets"]["bytes_to_client_per_socket_second"] == 500.0
    assert play["sockets"]["room_events_per_socket"] == 10.0
    end = costs["round_end"]
    assert end["cpu_ms_per_room"]["celery-worker"] == 100.0
    assert end["postgres"]["per_room"]["rows_updated"] == 50.0
    assert end["redis"]["commands_per_room"] == 30.0
    # a round of 10 s at the play rate, and the end: (40,000 + 16,000) / 8 sockets
    assert costs["per_socket_per_round"]["bytes_to_client"] == 7000.0


def test_the_end_loses_the_play_of_rooms_still_playing() -> None:
    # 2 room-seconds still played after the first deadline: a tenth of the 2 rooms' 10 s
    # of play window, so a tenth of the play's counts is taken off the end's.
    costs = _costs(end_play_room_seconds=2.0)
    end = costs["round_end"]
    assert end["redis"]["commands_per_room"] == (60 - 300 / 10) / 2
    assert end["postgres"]["per_room"]["rows_updated"] == (100 - 50 / 10) / 2


def test_the_report_prints_the_costs() -> None:
    text = "\n".join(cost_lines(_costs()))
    assert "2 ms per verdict" in text
    assert "4 per accepted word" in text
    assert "games_submission ins 100" in text
