"""One fault's figures (lost words, the round's end, ghosts, presence, the next round, HTTP
and error replies, sockets, server logs), printed per fault and as a summary table of
all faults."""

from __future__ import annotations

import contextlib
from collections import Counter
from typing import Any

from bench.crowd.fault_record import (
    FAULT_WINDOW_AFTER_BACK,
    FAULTS,
    GHOST_GRACE_SECONDS,
    SLOW_ROUND_END_SECONDS,
    FaultRecord,
)
from bench.crowd.figures import summary
from bench.crowd.http_client import HttpTally
from bench.crowd.report import _counts
from bench.crowd.run import Room, Run


def fault_report(run: Run, rooms: list[Room], record: FaultRecord) -> dict[str, Any]:
    m, site, args = run.metrics, run.site, run.args
    fault_at = record.fault_at
    back_at = record.back_at or fault_at
    everyone = [p for room in rooms for p in room.players]
    stayers = [p for p in everyone if p.left_at is None]
    report: dict[str, Any] = {
        "fault": record.name,
        "what": FAULTS[record.name],
        "detail": record.detail,
        "error": record.error,
        "players": len(everyone),
        "rooms": len(rooms),
        "leavers": len(everyone) - len(stayers),
        "fault_seconds_into_round_1": None,
        "service_back_seconds_after_fault": None
        if fault_at is None or back_at is None
        else round(back_at - fault_at, 2),
    }
    first_start = [
        r.round_info[1]["starts_at"] / 1000
        for r in rooms
        if 1 in r.round_info and isinstance(r.round_info[1].get("starts_at"), int)
    ]
    if fault_at is not None and first_start:
        report["fault_seconds_into_round_1"] = round(fault_at - min(first_start), 1)
    for number in (1, 2):
        delays: list[float] = []
        how: Counter[str] = Counter()
        never: list[str] = []
        typed = lost_missing = lost_unanswered = stored_unanswered = leaver_unanswered = 0
        unreadable = rooms_played = 0
        late: Counter[str] = Counter()
        examples: list[str] = []
        for room in rooms:
            info = room.round_info.get(number)
            ends_at = info.get("ends_at") if info else None
            if not isinstance(ends_at, int):
                continue
            rooms_played += 1
            ends = ends_at / 1000
            results = room.results.get(number)
            entries: dict[int, tuple[set[str], set[str]]] = {}
            if isinstance(results, dict):
                for entry in results.get("players") or []:
                    with contextlib.suppress(KeyError, TypeError, ValueError):
                        entries[int(entry["id"])] = (
                            {str(w["word"]) for w in entry.get("words") or []},
                            {str(w["word"]) for w in entry.get("rejected") or []},
                        )
            else:
                unreadable += 1
            for player in room.players:
                typed += player.typed[number]
                late.update(player.late_round_over.get(number, Counter()))
                if player.left_at is None:
                    if number in player.learned_end:
                        when, way = player.learned_end[number]
                        delays.append((when - ends) * 1000)
                        how[way] += 1
                    else:
                        never.append(f"room {room.code} player {player.id}")
                if not isinstance(results, dict):
                    continue
                words, rejected = entries.get(player.id or -1, (set(), set()))
                missing = player.accepted.get(number, set()) - words
                lost_missing += len(missing)
                for word in sorted(missing):
                    if len(examples) < 5:
                        examples.append(
                            f"room {room.code} player {player.id}: {word!r} accepted, not in results"
                        )
                for entry in player.unanswered.get(number, []):
                    if player.left_at is not None:
                        leaver_unanswered += 1
                    elif entry.word.strip().lower() in words | rejected:
                        stored_unanswered += 1
                    else:
                        lost_unanswered += 1
                        if len(examples) < 5:
                            examples.append(
                                f"room {room.code} player {player.id}: {entry.word!r} never"
                                " answered, not in results"
                            )
        report[f"round_{number}"] = {
            "rooms_played": rooms_played,
            "words_typed": typed,
            "lost": lost_missing + lost_unanswered,
            "lost_accepted_missing": lost_missing,
            "lost_never_answered": lost_unanswered,
            "never_answered_but_in_results": stored_unanswered,
            "leavers_unanswered": leaver_unanswered,
            "typed_in_time_answered_round_over": dict(late),
            "results_unreadable": unreadable,
            "lost_examples": examples,
            "clients": len(delays) + len(never),
            "learned_end": len(delays),
            "learned_end_how": dict(how.most_common()),
            "never_learned_end": len(never),
            "never_learned_examples": never[:5],
            "end_learned_ms_after_deadline": summary(delays, (50,)),
            "end_learned_over_2s": sum(1 for d in delays if d > SLOW_ROUND_END_SECONDS * 1000),
        }
    # The next round: round 2's round.started as the room's first staying client got it.
    back_to: list[float] = []
    deadline_to: list[float] = []
    learned_to: list[float] = []
    not_started: list[str] = []
    for room in rooms:
        info = record.next_round.get(str(room.code))
        if info is None or 1 not in room.round_info:
            continue
        got = [p.learned_start[2][0] for p in room.players if 2 in p.learned_start]
        ends_at = room.round_info[1].get("ends_at")
        if not got or not isinstance(ends_at, int):
            not_started.append(
                f"room {room.code}: {room.start_failed.get(2) or 'round.started never came'}"
            )
            continue
        started = min(got)
        if back_at is not None:
            back_to.append((started - back_at) * 1000)
        deadline_to.append((started - ends_at / 1000) * 1000)
        if info.get("host_learned_end"):
            learned_to.append((started - info["host_learned_end"]) * 1000)
    report["next_round"] = {
        "rooms_started": len(deadline_to),
        "not_started": not_started,
        "service_back_to_started_ms": summary(back_to, (50,)),
        "deadline_to_started_ms": summary(deadline_to, (50,)),
        "host_learned_end_to_started_ms": summary(learned_to, (50,)),
    }
    report["ghost_checks"] = record.ghost_checks
    # Presence by events: when each leaver was announced offline; stayers shown offline.
    offline_after: list[float] = []
    never_offline: list[str] = []
    flickers = 0
    for room in rooms:
        events = sorted(room.presence_events.items())
        for player in room.players:
            if player.left_at is not None:
                when = next(
                    (
                        t
                        for _, (pid, online, t) in events
                        if pid == player.id and not online and t >= player.left_at
                    ),
                    None,
                )
                if when is None:
                    never_offline.append(f"room {room.code} player {player.id}")
                else:
                    offline_after.append((when - player.left_at) * 1000)
            elif fault_at is not None:
                flickers += sum(
                    1
                    for _, (pid, online, t) in events
                    if pid == player.id and not online and t >= fault_at
                )
    report["presence"] = {
        "leaver_offline_event_ms_after_close": summary(offline_after, (50,)),
        "leavers_never_announced_offline": never_offline,
        "staying_players_announced_offline_after_fault": flickers,
    }
    # HTTP answers and error replies: during the fault, and over both rounds.
    window_end = (back_at or 0.0) + FAULT_WINDOW_AFTER_BACK
    during = HttpTally()
    for sent, what, result in run.http_log:
        if fault_at is not None and fault_at <= sent <= window_end:
            during.record(what, result)
    report["http_during_fault"] = during.to_dict()
    report["http_all"] = run.game_http.to_dict()
    report["errors_during_fault"] = dict(
        Counter(
            f"{code} (to {request})"
            for when, code, request in run.error_log
            if fault_at is not None and fault_at <= when <= window_end
        ).most_common()
    )
    report["errors_all"] = dict(
        Counter(f"{code} (to {request})" for _, code, request in run.error_log).most_common()
    )
    report["probe_creations"] = dict(record.probe_creations)
    report["sockets"] = {
        "drops_by_close_code": dict(m.socket_drops),
        "reconnects": m.reconnects,
        "reconnect_ms": summary(m.reconnect_ms, (50,)),
        "reconnect_failures": dict(m.reconnect_failures),
        "failovers_to_another_daphne": m.failovers,
        "closed_after_12s_silence": m.keepalive_closes,
        "syncs": dict(m.syncs),
        "resends_after_error": dict(m.resends_after_error),
        "resends_after_reconnect": m.resends_after_reconnect,
        "staying_clients_disconnected_at_end": record.disconnected_at_end,
    }
    report["rounds_not_started"] = m.rounds_not_started
    report["odd"] = dict(m.odd.most_common())
    report["server_logs"] = site.server_logs()
    report["processes_exited"] = [
        f"{started.name} (exit {started.process.returncode})"
        for started in site.processes
        if not started.killed and started.process.poll() is not None
    ]
    report["window_seconds_after_back"] = FAULT_WINDOW_AFTER_BACK
    report["config"] = {
        "players": args.players,
        "room_size": args.room_size,
        "words_per_second": args.words_per_second,
        "round_seconds": args.round_seconds,
        "fault_at": args.fault_at,
        "fault_down": args.fault_down,
        "leavers": args.leavers,
        "ghost_after": args.ghost_after,
        "daphnes": args.daphnes,
    }
    return report


def _ms(data: dict[str, Any]) -> str:
    if not data["n"]:
        return "none"
    p50 = data.get("p50")
    return f"p50 {p50:,.0f} / max {data['max']:,.0f} (n={data['n']})"


def print_fault_report(report: dict[str, Any]) -> None:
    lines: list[str] = []
    add = lines.append
    c = report["config"]
    add("")
    add(
        f"== fault: {report['fault']}: {report['players']} players in {report['rooms']} rooms of"
        f" <= {c['room_size']}, {c['words_per_second']:g} word/s, {c['round_seconds']} s rounds"
        f" ({report.get('seconds', '?')} s) =="
    )
    add(f"{report['what']}")
    if report["error"]:
        add(f"RUN FAILED: {report['error']}")
    add(
        f"fault {report['fault_seconds_into_round_1']} s into round 1: {report['detail']};"
        f" service back {report['service_back_seconds_after_fault']} s after the fault;"
        f" {report['leavers']} players left for good"
    )
    for number, label in ((1, "round 1 (the fault)"), (2, "round 2 (the next)")):
        r = report[f"round_{number}"]
        late = r["typed_in_time_answered_round_over"]
        add(
            f"{label}: {r['rooms_played']} rooms, {r['words_typed']:,} words typed;"
            f" LOST {r['lost']} (accepted but missing from the results {r['lost_accepted_missing']},"
            f" never answered and not in the results {r['lost_never_answered']});"
            f" never answered but in the results {r['never_answered_but_in_results']};"
            f" leavers' unanswered (not counted) {r['leavers_unanswered']};"
            f" typed in time, answered round_over {_counts(late) or 0};"
            f" results unreadable {r['results_unreadable']}"
        )
        for example in r["lost_examples"]:
            add(f"    {example}")
        add(
            f"    round end: {r['learned_end']} of {r['clients']} clients learned it"
            f" ({_counts(r['learned_end_how']) or 'none'}); ms after the deadline"
            f" {_ms(r['end_learned_ms_after_deadline'])}; over {SLOW_ROUND_END_SECONDS:g} s:"
            f" {r['end_learned_over_2s']}; NEVER: {r['never_learned_end']}"
        )
        for example in r["never_learned_examples"]:
            add(f"    never learned: {example}")
    n = report["next_round"]
    add(
        f"next round: started in {n['rooms_started']} rooms; service back -> round.started ms"
        f" {_ms(n['service_back_to_started_ms'])}; round 1 deadline -> round.started ms"
        f" {_ms(n['deadline_to_started_ms'])}; host learned round.ended -> round.started ms"
        f" {_ms(n['host_learned_end_to_started_ms'])}"
    )
    for failure in n["not_started"]:
        add(f"    NOT STARTED: {failure}")
    for check in report["ghost_checks"]:
        add(
            f"ghosts {check['label']} ({check['seconds_after']} s after the fault):"
            f" {check['ghosts']} shown online with every socket closed >="
            f" {GHOST_GRACE_SECONDS:g} s (leavers shown online: {check['leavers_shown_online']}"
            f" of {check['leavers']}); closed < {GHOST_GRACE_SECONDS:g} s and still online"
            f" {check['closed_under_grace_shown_online']}; open but shown offline"
            f" {check['open_shown_offline']}; rooms read {_counts(check['rooms_read']) or 0},"
            f" unreadable {check['rooms_unreadable']}"
        )
        for example in check["ghost_examples"]:
            add(f"    ghost: {example}")
    presence = report["presence"]
    add(
        f"presence events: leavers announced offline (player.online false) ms after their"
        f" close {_ms(presence['leaver_offline_event_ms_after_close'])}; never announced"
        f" {len(presence['leavers_never_announced_offline'])}; staying players announced"
        f" offline after the fault {presence['staying_players_announced_offline_after_fault']}"
    )
    for example in presence["leavers_never_announced_offline"][:5]:
        add(f"    never announced offline: {example}")
    during = report["http_during_fault"]
    add(
        f"during the fault (the fault -> back + {report['window_seconds_after_back']:g} s):"
        f" HTTP {during['requests']} requests: {during['2xx']} 2xx, {during['5xx']} 5xx,"
        f" {during['other_non_2xx']} other non-2xx, {during['no_answer']} no answer"
        f" ({_counts(during['by_status'])}); error replies {_counts(report['errors_during_fault']) or 'none'}"
    )
    for example, count in during["examples"].items():
        add(f"    {count} x {example}")
    whole = report["http_all"]
    add(
        f"both rounds: HTTP {whole['requests']} requests, {whole['5xx']} 5xx,"
        f" {whole['no_answer']} no answer; error replies {_counts(report['errors_all']) or 'none'};"
        f" probe room creations {_counts(report['probe_creations']) or 'none'}"
    )
    sockets = report["sockets"]
    add(
        f"sockets: drops {_counts(sockets['drops_by_close_code']) or 0}; reconnects"
        f" {sockets['reconnects']} (drop -> state ms {_ms(sockets['reconnect_ms'])},"
        f" failed attempts {_counts(sockets['reconnect_failures']) or 0}, to another Daphne"
        f" {sockets['failovers_to_another_daphne']}); closed after 12 s silence"
        f" {sockets['closed_after_12s_silence']}; syncs {_counts(sockets['syncs']) or 0};"
        f" resends after error {_counts(sockets['resends_after_error']) or 0}, after reconnect"
        f" {sockets['resends_after_reconnect']}; staying clients disconnected at the end"
        f" {sockets['staying_clients_disconnected_at_end']}"
    )
    for failure in report["rounds_not_started"]:
        add(f"    round not started: {failure}")
    if report["odd"]:
        add(f"odd replies: {_counts(report['odd'])}")
    if report["processes_exited"]:
        add(
            f"SERVER PROCESSES EXITED (not killed by the bench): {', '.join(report['processes_exited'])}"
        )
    logs = report["server_logs"]
    add(f"server logs: {logs['error_lines']} error lines, {logs['tracebacks']} tracebacks")
    for line, count in logs["most_common"].items():
        add(f"    {count} x {line}")
    for line, count in logs["traceback_exceptions"].items():
        add(f"    {count} x traceback ending {line}")
    print("\n".join(lines), flush=True)


def print_fault_summary(reports: list[dict[str, Any]]) -> None:
    if not reports:
        return
    lines = [
        "",
        "== faults, in short (round 1 = the fault's round) ==",
        f"{'fault':<9} {'lost r1/r2':>10} {'end never':>9} {'end ms p50/max':>15}"
        f" {'>2s':>4} {'ghosts 30s/end':>14} {'leavers online 30s':>18}"
        f" {'leaver offline s p50/max':>24}"
        f" {'back->next ms p50/max':>22} {'5xx':>4}  error replies during",
    ]
    for r in reports:
        r1, r2 = r["round_1"], r["round_2"]
        end = r1["end_learned_ms_after_deadline"]
        end_text = "-" if not end["n"] else f"{end['p50']:,.0f}/{end['max']:,.0f}"
        checks = r["ghost_checks"]
        ghosts = "/".join(str(c["ghosts"]) for c in checks) or "-"
        leavers = (
            f"{checks[0]['leavers_shown_online']} of {checks[0]['leavers']}" if checks else "-"
        )
        nxt = r["next_round"]["service_back_to_started_ms"]
        nxt_text = "-" if not nxt["n"] else f"{nxt['p50']:,.0f}/{nxt['max']:,.0f}"
        if r["next_round"]["not_started"]:
            nxt_text += f" ({len(r['next_round']['not_started'])} not)"
        offline = r["presence"]["leaver_offline_event_ms_after_close"]
        offline_text = (
            "-" if not offline["n"] else f"{offline['p50'] / 1000:.1f}/{offline['max'] / 1000:.1f}"
        )
        if r["presence"]["leavers_never_announced_offline"]:
            offline_text += f" ({len(r['presence']['leavers_never_announced_offline'])} never)"
        lines.append(
            f"{r['fault']:<9} {str(r1['lost']) + '/' + str(r2['lost']):>10}"
            f" {r1['never_learned_end']:>9} {end_text:>15} {r1['end_learned_over_2s']:>4}"
            f" {ghosts:>14} {leavers:>18} {offline_text:>24} {nxt_text:>22}"
            f" {r['http_during_fault']['5xx']:>4}  {_counts(r['errors_during_fault']) or 'none'}"
        )
        if r["error"]:
            lines.append(f"    RUN FAILED: {r['error']}")
    print("\n".join(lines), flush=True)
