"""The load run's figures: built from the run's counters and measurements (with warnings
when the client or the machine may be the bottleneck) and printed."""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Callable
from typing import Any

from bench.crowd.costs import build_costs
from bench.crowd.figures import format_summary, percentile, summary
from bench.crowd.phases import BURST_CREATIONS, BURST_JOINS, BURST_TIMES
from bench.crowd.run import IN_TIME_MARGIN_SECONDS, SLOW_VERDICT_MS, Run
from bench.crowd.window import Window

CLIENT_CPU_WARNING = 0.85  # share of one core


# ------------------------------------------------------------------------ the report


def build_report(run: Run, load: dict[str, Any]) -> dict[str, Any]:
    args, m, site = run.args, run.metrics, run.site
    window: Window = load["window"]
    processes = site.processes
    cpus = os.cpu_count() or 1
    report: dict[str, Any] = {
        "config": {
            "mode": site.mode,
            "urls": site.urls,
            "daphnes": len(site.daphne_urls or site.urls),
            "server": site.server,  # the web processes' ASGI server (--server)
            "through_nginx": site.nginx_url,
            "route": "nginx: hash of the room code"
            if site.nginx_url
            else getattr(args, "route", "round-robin"),
            "private_services": bool(getattr(args, "private_services", False)),
            "players": args.players,
            "room_size": args.room_size,
            "words_per_second": args.words_per_second,
            "round_seconds": args.round_seconds,
            "rounds": args.rounds,
            "burst": args.burst,
            "garbage_share": args.garbage_share,
            "repeat_share": args.repeat_share,
            "seed": args.seed,
            "cpus": os.cpu_count(),
        },
        "rooms": load["rooms"],
        "players_playing": load["players_in"],
        "websockets": {
            "connected": load.get("connected", 0),
            "by_daphne": load.get("sockets_by_daphne", {}),
            "connect_failures": dict(m.connect_failures),
            "drops_by_close_code": dict(m.socket_drops),
            "reconnects": m.reconnects,
            "reconnect_failures": dict(m.reconnect_failures),
        },
        "words_sent": dict(m.words_sent) | {"total": sum(m.words_sent.values())},
        "verdict_latency_ms": summary(m.verdict_ms),
        "verdict_until_server_answer_ms": summary(m.verdict_until_answer_ms),
        "slow_verdicts_until_server_answer_ms": summary(m.slow_verdict_until_answer_ms, (50,)),
        "slow_verdicts_after_server_answer_ms": summary(m.slow_verdict_after_answer_ms, (50,)),
        "verdicts": dict(m.verdicts.most_common()),
        "slow_verdicts_by_second_before_end": dict(
            sorted(Counter(math.floor(-t) for t in m.slow_verdict_sent).items())
        ),
        "round_ended_after_deadline_ms": summary(m.round_ended_ms, (50, 99)),
        # A room's spread: from its first socket to get round.ended to its last.
        "round_ended_spread_in_room_ms": summary(
            [max(times) - min(times) for times in m.round_ended_by_room.values()], (50, 99)
        ),
        "whole_results_read_ms": summary(m.results_read_ms, (50, 99)),
        "whole_results_read_failed": m.results_read_failed,
        "round_ended_never_as_event": m.round_ended_never,
        "round_ended_recovered_by_sync": m.round_ended_by_sync,
        "round_ended_not_even_by_sync": m.round_ended_not_even_sync,
        "round_ended_event_after_wait": m.round_ended_later,
        "http_burst": run.burst_http.to_dict() if args.burst else None,
        "http_game": run.game_http.to_dict(),
        "lost_words": m.lost_missing + m.never_answered,
        "lost_accepted_missing_from_results": m.lost_missing,
        "lost_examples": m.lost_missing_examples,
        "lost_never_answered": m.never_answered,
        "lost_never_answered_never_sent": m.never_sent,
        "answered_after_drain": m.answered_after_drain,
        "in_results_not_seen_accepted": m.in_results_not_seen_accepted,
        "results_unavailable": m.results_unavailable,
        "in_time_words_refused_round_over": m.in_time_round_over,
        "in_time_round_over_examples": m.in_time_round_over_examples,
        "resent_after_reconnect_round_over": m.resent_round_over,
        "missed_events": m.missed_events,
        "missed_events_on_reconnected_clients": m.missed_events_reconnected,
        "clients_with_gaps": m.clients_with_gaps,
        "missed_events_by_type": dict(m.missed_by_type.most_common()),
        "messages_received_by_type": {str(k): v for k, v in m.received.most_common()},
        "events_out_of_order": m.out_of_order,
        "events_duplicated": m.duplicate_events,
        "errors": dict(m.errors.most_common()),
        "submit_errors": dict(m.submit_errors.most_common()),
        "round_started_missed_synced": m.round_started_missed,
        "round_never_started_for_client": m.round_never_started_for_client,
        "rounds_not_started": m.rounds_not_started,
        "odd": dict(m.odd.most_common()),
        "words_unsent_socket_down": m.words_unsent,
        "play_seconds": round(window.seconds, 1),
        "accepted_in_play_window": m.accepted_in_window,
        "accepted_total": m.accepted_total,
    }
    if window.measured:
        statements = window.statements["statements"]
        per_word = statements / m.accepted_in_window if m.accepted_in_window else None
        idle = window.idle_statements_per_second
        net = None
        if per_word is not None and idle is not None:
            net = (statements - idle * window.seconds) / m.accepted_in_window
        report["database"] = {
            "statements_in_play": statements,
            "statements_per_accepted_word": None if per_word is None else round(per_word, 2),
            "statements_per_accepted_word_less_idle": None if net is None else round(net, 2),
            "by_kind_in_play": {k: v for k, v in window.by_kind.items()},
            "by_kind_per_accepted_word": {
                k: round(v / m.accepted_in_window, 2) for k, v in window.by_kind.items()
            }
            if m.accepted_in_window
            else None,
            "transaction_control_in_play": {k: v for k, v in window.transaction.items()},
            "idle_statements_per_second": None
            if window.idle_statements_per_second is None
            else round(window.idle_statements_per_second, 1),
        }
    else:
        report["database"] = None
    if processes:
        report["server"] = {
            "cpu_seconds_in_play": round(window.server_cpu, 1),
            "cpu_share_in_play": round(window.server_cpu / window.seconds / cpus, 3)
            if window.seconds
            else None,
            "cpu_seconds_total": round(site.monitor.cpu_total, 1),
            "cpu_seconds_by_process": site.monitor.cpu_by_group(),
            "peak_rss_mb": round(site.monitor.peak_rss / 2**20),
            "peak_rss_mb_by_process": {
                k: round(v / 2**20) for k, v in site.monitor.peak_rss_by_group.items()
            },
            "exited_early": [s.name for s in processes if s.process.poll() is not None],
            "logs": site.server_logs(),
        }
    else:
        report["server"] = None
    if processes and window.play_costs_seconds:
        report["costs"] = build_costs(
            window.costs,
            window.play_costs_seconds,
            window.end_costs,
            window.end_seconds,
            window.rooms_ended,
            window.idle_costs,
            window.idle_seconds,
            end_play_room_seconds=window.end_play_room_seconds,
            round_seconds=args.round_seconds * args.rounds,
            sockets=load["players_in"],
            daphnes=len(site.daphne_urls or site.urls),
            sources=site.services_note()
            if site.mode == "production"
            else {"redis": "none (embedded: the channel layer is in memory)", "postgres": "none"},
        )
        if site.probe is not None and site.probe.failures:
            site.notes.append(f"costs: counters not read: {_counts(dict(site.probe.failures))}")
    else:
        report["costs"] = None
    client_share = window.client_cpu / window.seconds if window.seconds else None
    # Everything else on the machine: other people's tests, browsers, the database server...
    # (with --private-services, their redis-server and PostgreSQL are the site's: not others)
    services_cpu = window.costs.get("cpu.redis", 0.0) + window.costs.get("cpu.postgres", 0.0)
    others = (
        window.machine_cpu
        - window.client_cpu
        - (window.server_cpu + services_cpu if processes else 0.0)
    )
    report["machine"] = {
        "cpus": cpus,
        "busy_cpu_seconds_in_play": round(window.machine_cpu, 1),
        "other_processes_cpu_seconds_in_play": round(others, 1),
        "other_processes_cores_in_play": round(others / window.seconds, 2)
        if window.seconds
        else None,
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    report["client"] = {
        "cpu_seconds_in_play": round(window.client_cpu, 1),
        "cpu_share_of_one_core_in_play": None if client_share is None else round(client_share, 3),
        "cpu_seconds_total": round(load["client_cpu"], 1),
        "loop_lag_ms_in_play": summary(load["lag_in_play"], (50, 99)),
        "loop_lag_ms_whole_run": summary(load["lag"], (50, 99)),
        "send_lag_ms": summary(m.send_lag_ms, (50, 99)),
    }
    warnings: list[str] = list(site.notes)
    if not m.words_sent:
        warnings.append("no word was sent: these figures measure nothing")
    if client_share is not None and client_share >= CLIENT_CPU_WARNING:
        warnings.append(
            f"the load client used {client_share:.0%} of a core while playing: it may be the"
            " bottleneck, and latencies include its own delays"
        )
    lag_p99 = percentile(load["lag_in_play"], 99)
    if lag_p99 is not None and lag_p99 > 50:
        warnings.append(
            f"while playing, the load client's event loop woke up {lag_p99:.0f} ms late (p99):"
            " the client or the machine is busy, and these delays are part of the latencies"
        )
    other_cores = report["machine"]["other_processes_cores_in_play"]
    if other_cores is not None and other_cores > 0.25:
        what = (
            "besides the site and this client"
            if processes
            else "besides this client (the site included: this run did not start it)"
        )
        warnings.append(
            f"other processes {what} kept {other_cores:.1f} of {cpus} cores busy while playing"
            " (a shared PostgreSQL and Redis count here too, and the kernel's work for the"
            " sockets): the figures include that contention"
        )
    if report["server"] and report["server"]["exited_early"]:
        warnings.append(f"server processes exited: {', '.join(report['server']['exited_early'])}")
    report["warnings"] = warnings
    return report


def print_report(report: dict[str, Any]) -> None:
    c = report["config"]
    lines: list[str] = []
    add = lines.append
    add("")
    add(
        f"== bench/load.py: {c['mode']}, {c['daphnes']} Daphne(s) or URL(s) ({c['route']}),"
        f" {report['players_playing']}"
        f" of {c['players']} players in {report['rooms']} rooms of <= {c['room_size']},"
        f" {c['words_per_second']:g} words/s, {c['round_seconds']} s rounds x {c['rounds']} =="
    )
    for name, label in (("http_burst", "burst HTTP"), ("http_game", "game HTTP")):
        tally = report[name]
        if tally is None:
            continue
        what = (
            f" ({BURST_TIMES} x {BURST_JOINS} joins + {BURST_CREATIONS} creations at once)"
            if name == "http_burst"
            else ""
        )
        add(
            f"{label}{what}: {tally['requests']} requests: {tally['2xx']} 2xx, {tally['5xx']} 5xx,"
            f" {tally['other_non_2xx']} other non-2xx, {tally['no_answer']} no answer;"
            f" latency {format_summary(tally['latency_ms'])}"
        )
        for example, count in tally["examples"].items():
            add(f"    {count} x {example}")
    ws = report["websockets"]
    add(
        f"websockets: {ws['connected']} connected; failed attempts (retried up to 3 times)"
        f" {_counts(ws['connect_failures']) or 0}; drops {_counts(ws['drops_by_close_code']) or 0};"
        f" reconnects {ws['reconnects']}, failed {_counts(ws['reconnect_failures']) or 0}"
    )
    if ws["by_daphne"]:
        add(f"    websockets each Daphne held, all connected: {_counts(ws['by_daphne'])}")
    sent = report["words_sent"]
    add(
        f"words sent: {sent['total']:,} (real {sent.get('real', 0):,}, garbage"
        f" {sent.get('garbage', 0):,}, repeats {sent.get('repeat', 0):,}); typed while the"
        f" socket was down, kept to resend: {report['words_unsent_socket_down']}"
    )
    add(f"verdict latency ms: {format_summary(report['verdict_latency_ms'])}")
    if report["verdict_until_server_answer_ms"]["n"]:
        add(
            "    until the server stamped its answer (server_time), ms: "
            f"{format_summary(report['verdict_until_server_answer_ms'])}"
        )
    if report["slow_verdicts_until_server_answer_ms"]["n"]:
        add(
            f"    verdicts over {SLOW_VERDICT_MS} ms, until the server's answer: "
            f"{format_summary(report['slow_verdicts_until_server_answer_ms'])}; after it (the way"
            f" back, the client's delays): {format_summary(report['slow_verdicts_after_server_answer_ms'])}"
        )
    add(f"verdicts: {_counts(report['verdicts'])}")
    slow = report["slow_verdicts_by_second_before_end"]
    if slow:
        add(
            f"verdicts over {SLOW_VERDICT_MS} ms by when they were sent (s before ends_at: count): "
            + ", ".join(f"{second}: {count}" for second, count in slow.items())
        )
    add(
        f"deadline -> round.ended, ms after ends_at: "
        f"{format_summary(report['round_ended_after_deadline_ms'])}"
    )
    add(
        "    spread in a room (first socket to last), ms: "
        f"{format_summary(report['round_ended_spread_in_room_ms'])}"
    )
    add(
        "    then the whole results (asked for, as the page does), ms after ends_at: "
        f"{format_summary(report['whole_results_read_ms'])};"
        f" failed {report['whole_results_read_failed']}"
    )
    add(
        f"    never as an event within the wait: {report['round_ended_never_as_event']}"
        f" (recovered by sync {report['round_ended_recovered_by_sync']}, not even by sync"
        f" {report['round_ended_not_even_by_sync']}; the event came later for"
        f" {report['round_ended_event_after_wait']})"
    )
    add(
        f"lost words: {report['lost_words']} (accepted but missing from the results"
        f" {report['lost_accepted_missing_from_results']}, never answered"
        f" {report['lost_never_answered']}, of which never sent as the socket was down"
        f" {report['lost_never_answered_never_sent']}); answered after the drain"
        f" {report['answered_after_drain']}; in the results but never seen accepted"
        f" {report['in_results_not_seen_accepted']}; results unreadable"
        f" {report['results_unavailable']}"
    )
    for example in report["lost_examples"]:
        add(f"    {example}")
    add(
        f"words sent >= {IN_TIME_MARGIN_SECONDS * 1000:.0f} ms before ends_at answered round_over:"
        f" {report['in_time_words_refused_round_over']} (resent after a reconnect, not counted:"
        f" {report['resent_after_reconnect_round_over']})"
    )
    for example in report["in_time_round_over_examples"]:
        add(f"    {example}")
    add(
        f"missed events: {report['missed_events']} (on clients that reconnected"
        f" {report['missed_events_on_reconnected_clients']}; clients with gaps"
        f" {report['clients_with_gaps']}; out of order {report['events_out_of_order']},"
        f" duplicated {report['events_duplicated']})"
    )
    if report["missed_events_by_type"]:
        add(f"    missed by type: {_counts(report['missed_events_by_type'])}")
    add(f"messages received by type: {_counts(report['messages_received_by_type'])}")
    add(
        f"error replies: {_counts(report['errors']) or 'none'}"
        f" (to submits: {_counts(report['submit_errors']) or 'none'})"
    )
    if report["round_started_missed_synced"] or report["round_never_started_for_client"]:
        add(
            f"round.started missed, learned by sync: {report['round_started_missed_synced']};"
            f" never learned: {report['round_never_started_for_client']}"
        )
    for failure in report["rounds_not_started"]:
        add(f"    round not started: {failure}")
    if report["odd"]:
        add(f"odd replies: {_counts(report['odd'])}")
    db = report["database"]
    if db:
        per = db["statements_per_accepted_word"]
        add(
            f"database, {report['play_seconds']} s of play: {db['statements_in_play']:,} statements"
            f" / {report['accepted_in_play_window']:,} words accepted in that window ="
            f" {'n/a' if per is None else f'{per:.2f}'} per accepted word"
            f" (BEGIN/COMMIT aside: {_counts(db['transaction_control_in_play'])})"
        )
        net = db["statements_per_accepted_word_less_idle"]
        if net is not None:
            add(f"    less the idle rate below over the same time: {net:.2f} per accepted word")
        if db["by_kind_per_accepted_word"]:
            add(f"    per accepted word by kind: {_counts(db['by_kind_per_accepted_word'])}")
        add(
            f"    idle (all connected, no round, before the game): "
            f"{db['idle_statements_per_second']} statements/s"
        )
    else:
        add("database statements: not measured (a site this run did not start)")
    server = report["server"]
    if server:
        share = server["cpu_share_in_play"]
        add(
            f"server CPU: {server['cpu_seconds_in_play']} s in play"
            f" ({'n/a' if share is None else f'{share:.0%}'} of {c['cpus']} cores),"
            f" {server['cpu_seconds_total']} s in all ({_counts(server['cpu_seconds_by_process'])});"
            f" peak RSS {server['peak_rss_mb']} MB together"
            f" ({_counts(server['peak_rss_mb_by_process'])})"
        )
        logs = server["logs"]
        add(f"server logs: {logs['error_lines']} error lines, {logs['tracebacks']} tracebacks")
        for line, count in logs["most_common"].items():
            add(f"    {count} x {line}")
    else:
        add("server CPU/RSS: not measured (a site this run did not start)")
    if report.get("costs"):
        lines.extend(cost_lines(report["costs"]))
    client = report["client"]
    share = client["cpu_share_of_one_core_in_play"]
    add(
        f"load client: CPU {client['cpu_seconds_in_play']} s in play"
        f" ({'n/a' if share is None else f'{share:.0%}'} of one core),"
        f" {client['cpu_seconds_total']} s in all; event-loop lag ms in play"
        f" {format_summary(client['loop_lag_ms_in_play'])}, whole run max"
        f" {client['loop_lag_ms_whole_run']['max']}; send lag ms"
        f" {format_summary(client['send_lag_ms'])}"
    )
    machine = report["machine"]
    add(
        f"machine: {machine['busy_cpu_seconds_in_play']} CPU s busy in play, of which other"
        f" processes {machine['other_processes_cpu_seconds_in_play']} s"
        f" ({machine['other_processes_cores_in_play']} cores; shared PostgreSQL/Redis included, private ones not);"
        f" load average {machine['load_average']}"
    )
    for warning in report["warnings"]:
        add(f"WARNING: {warning}")
    print("\n".join(lines), flush=True)


def _counts(data: dict[str, Any]) -> str:
    return ", ".join(
        f"{key} {value:,}" if isinstance(value, int) else f"{key} {value}"
        for key, value in data.items()
    )


def _n(value: Any, unit: str = "") -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,}{unit}"
    return f"{int(value):,}{unit}"


def cost_lines(costs: dict[str, Any]) -> list[str]:
    """The costs of each part (bench/crowd/costs.py), for docs/scaling.md."""
    lines: list[str] = []
    add = lines.append
    play, end, idle = costs["play"], costs["round_end"], costs["idle"]
    add(
        f"costs in play ({play['seconds']} s, from the last room's start to the first deadline):"
        f" {play['verdicts']:,} verdicts,"
        f" {play['accepted_words']:,} accepted, {play['room_events']:,} room events,"
        f" {play['frames_to_clients']:,} frames to clients"
    )
    d = play["daphnes"]
    add(
        f"    Daphnes: {d['cpu_seconds']} CPU s ({_n(d['cores_each'])} of a core each):"
        f" {_n(d['cpu_ms_per_verdict'])} ms per verdict, or {_n(d['cpu_ms_per_frame_sent'])} ms"
        f" per frame sent ({_n(d['verdicts_per_cpu_second'])} verdicts per CPU second);"
        f" less the idle rate {_n(d['cpu_ms_per_verdict_less_idle'])} ms per verdict;"
        f" CPU s by process: {_counts(play['cpu_seconds'])}"
    )
    n = play["nginx"]
    if n is not None:
        add(
            f"    nginx: {n['cpu_seconds']} CPU s: {_n(n['cpu_ms_per_verdict'])} ms per verdict,"
            f" {_n(n['cpu_ms_per_frame_sent'])} ms per frame sent; web tier (Daphnes + nginx)"
            f" {_n(play['web']['cpu_ms_per_verdict'])} ms per verdict"
        )
    r = play["redis"]
    if r["commands"]:
        add(
            f"    Redis: {r['commands']:,} commands = {_n(r['commands_per_accepted_word'])} per"
            f" accepted word, {_n(r['commands_per_room_event'])} per room event (less the idle"
            f" rate {_n(r['commands_per_accepted_word_less_idle'])} and"
            f" {_n(r['commands_per_room_event_less_idle'])}),"
            f" {_n(r['commands_per_second'])}/s; {r['cpu_seconds']} CPU s"
            f" ({_n(r['cpu_us_per_command'])} us per command); network"
            f" {_n(r['net_bytes_per_accepted_word'])} B per accepted word"
        )
        add(f"        by command: {_counts(dict(list(r['by_command'].items())[:10]))}")
    p = play["postgres"]
    if p["database"]:
        w = p["per_accepted_word"]
        add(
            f"    PostgreSQL per accepted word: {_n(w['transactions'])} transactions,"
            f" rows inserted {_n(w['rows_inserted'])}, updated {_n(w['rows_updated'])},"
            f" deleted {_n(w['rows_deleted'])}, fetched {_n(w['rows_fetched'])};"
            f" WAL {_n(w['wal_bytes'])} B; CPU {_n(w['cpu_ms'])} ms; less the idle rate:"
            f" {_n(p['transactions_per_accepted_word_less_idle'])} transactions, rows fetched"
            f" {_n(p['rows_fetched_per_accepted_word_less_idle'])}"
        )
        add(f"        rows written by table: {_tables(p['tables_written'])}")
    so = play["sockets"]
    add(
        f"    per socket and second: {_n(so.get('bytes_to_client_per_socket_second'))} B to the"
        f" client, {_n(so.get('bytes_from_client_per_socket_second'))} B from it; room events"
        f" per socket {_n(so['room_events_per_socket'])}; bytes to clients by type:"
        f" {_counts(so['bytes_to_clients_by_type'])}"
    )
    add_loop_lag(add, "    web event-loop lag in play", play.get("loop_lag"))
    add(
        f"costs of the rounds' end ({end['seconds']} s from the first deadline to the last"
        f" player's results, {end['rooms']} rooms; less the play of the rooms still playing"
        f" then, {end['play_taken_off_room_seconds']} room-seconds at the play rate):"
        f" CPU ms per room {_counts(end['cpu_ms_per_room'])}"
    )
    add_loop_lag(add, "    web event-loop lag at the rounds' end", end.get("loop_lag"))
    if end["redis"]["commands"]:
        add(
            f"    Redis {_n(end['redis']['commands_per_room'])} commands per room"
            f" ({_counts(dict(list(end['redis']['by_command'].items())[:8]))})"
        )
    if end["postgres"]["database"]:
        w = end["postgres"]["per_room"]
        add(
            f"    PostgreSQL per room: {_n(w['transactions'])} transactions, rows inserted"
            f" {_n(w['rows_inserted'])}, updated {_n(w['rows_updated'])}, deleted"
            f" {_n(w['rows_deleted'])}, fetched {_n(w['rows_fetched'])}; WAL {_n(w['wal_bytes'])}"
            f" B; CPU {_n(w['cpu_ms'])} ms"
        )
        add(f"        rows written by table: {_tables(end['postgres']['tables_written'])}")
    add(f"    bytes to clients by type: {_counts(end['sockets']['bytes_to_clients_by_type'])}")
    ps = costs["per_socket_per_round"]
    add(
        f"per socket and round (play at its rate over the round, + end):"
        f" {_n(ps['bytes_to_client'])} B in"
        f" {_n(ps['frames_to_client'])} frames to the client, {_n(ps['bytes_from_client'])} B in"
        f" {_n(ps['frames_from_client'])} frames from it (payloads, without framing)"
    )
    add(
        f"idle ({idle['seconds']} s, all connected, no round): cores {_counts(idle['cpu_cores'])};"
        f" Redis {_n(idle['redis_commands_per_second'])} commands/s; PostgreSQL"
        f" {_n(idle['postgres_transactions_per_second'])} transactions/s,"
        f" {_n(idle['postgres_rows_written_per_second'])} rows written/s"
    )
    for part, note in costs["sources"].items():
        add(f"    {part}: {note}")
    return lines


def _tables(tables: dict[str, dict[str, int]]) -> str:
    return (
        "; ".join(
            f"{table} " + " ".join(f"{what} {count:,}" for what, count in counts.items())
            for table, counts in tables.items()
        )
        or "none"
    )


def add_loop_lag(add: Callable[[str], None], title: str, lag: dict[str, Any] | None) -> None:
    """One line: each web process's event-loop lag (web.loop_lag) over a window."""
    if lag:
        parts = [
            f"{name} p50 {f['p50']}, p99 {f['p99']}, max {f['max']} (n={f['wakeups']})"
            for name, f in lag.items()
        ]
        add(f"{title}: {'; '.join(parts)}")
