"""The faults scenario (--faults): breaking the site mid-round (``inject``), the leavers,
the next round started by each host, an HTTP prober through the fault, the ghost checks,
and ``run_fault``, which plays one fault's two rounds in a fresh site."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import time
import uuid
from collections import Counter
from typing import Any

from bench.crowd.fault_record import (
    GHOST_GRACE_SECONDS,
    LEAVE_AFTER_SECONDS,
    ROLLING_BACK_SECONDS,
    ROLLING_EXIT_WITHIN,
    WORKER_RESTART_SECONDS,
    FaultRecord,
)
from bench.crowd.fault_report import fault_report
from bench.crowd.figures import log, summary
from bench.crowd.phases import connect_all, set_up_rooms, sleep_until, start_room
from bench.crowd.player import Player
from bench.crowd.run import Room, Run
from solver import dictionaries


def pick_leavers(rooms: list[Room], count: int, on_url: str | None = None) -> list[Player]:
    """Up to ``count`` connected players who are not hosts, one per room first."""
    chosen: list[Player] = []
    for _ in range(2):
        for room in rooms:
            if len(chosen) >= count:
                return chosen
            hosts = {room.host, room.current_host()}
            for player in room.players[1:]:
                if (
                    player not in chosen
                    and player not in hosts
                    and player.connected.is_set()
                    and (on_url is None or player.base == on_url)
                ):
                    chosen.append(player)
                    break
    return chosen


async def inject(run: Run, fault: str, rooms: list[Room], record: FaultRecord) -> None:
    """Break the site as ``fault`` says; sets the record's times and leavers."""
    args, site = run.args, run.site

    async def leave_during(leavers: list[Player]) -> None:
        assert record.fault_at is not None
        await sleep_until(record.fault_at + LEAVE_AFTER_SECONDS)
        await asyncio.gather(*(player.go_away() for player in leavers))

    if fault == "daphne":
        victim = site.find("daphne-")[0]
        url = f"http://127.0.0.1:{victim.name.split('-', 1)[1]}"
        on_it = sum(1 for room in rooms for p in room.players if p.base == url)
        record.leavers = pick_leavers(rooms, args.leavers, on_url=url)
        for player in record.leavers:
            player.leave_on_drop = True  # its socket dies with the Daphne; it does not return
        record.fault_at = time.time()
        await asyncio.to_thread(site.kill, victim)
        for player in record.leavers:
            player.left_at = record.fault_at
        record.back_at = record.fault_at
        site.urls.remove(url)  # the proxy's health check takes it out of rotation
        record.detail = (
            f"{victim.name} SIGKILLed with {on_it} players' sockets; {len(record.leavers)} of"
            f" them leave for good, the rest reconnect to {', '.join(site.urls)}"
        )
        return
    record.leavers = pick_leavers(rooms, args.leavers)
    if fault == "rolling":
        record.fault_at = time.time()
        leaving = run.spawn(leave_during(record.leavers))
        record.back_at = await rolling_restart(run, record)
    elif fault == "redis":
        assert site.private_redis is not None
        record.fault_at = time.time()
        await asyncio.to_thread(site.private_redis.kill)
        leaving = run.spawn(leave_during(record.leavers))
        await asyncio.sleep(args.fault_down)
        record.back_at = await asyncio.to_thread(site.private_redis.start)
        record.detail = (
            f"redis-server :{site.private_redis.port} SIGKILLed, started again after"
            f" {args.fault_down:g} s, answered PING {record.back_at - record.fault_at:.2f} s"
            " after the kill"
        )
    elif fault == "postgres":
        assert site.private_postgres is not None
        record.fault_at = time.time()
        await asyncio.to_thread(site.private_postgres.stop, "fast")
        stopped = time.time() - record.fault_at
        leaving = run.spawn(leave_during(record.leavers))
        await asyncio.sleep(args.fault_down)
        record.back_at = await asyncio.to_thread(site.private_postgres.start)
        record.detail = (
            f"pg_ctl stop -m fast took {stopped:.2f} s; started again after {args.fault_down:g} s;"
            f" accepting connections {record.back_at - record.fault_at:.2f} s after the stop began"
        )
    elif fault == "celery":
        workers = site.find("celery-worker")
        record.fault_at = time.time()
        for worker in workers:
            await asyncio.to_thread(site.kill, worker)
        leaving = run.spawn(leave_during(record.leavers))
        await asyncio.sleep(WORKER_RESTART_SECONDS)
        site.start_worker("celery-worker-restarted")
        answered = await asyncio.to_thread(site.worker_answers)
        record.back_at = answered if answered is not None else time.time()
        record.detail = (
            f"{', '.join(w.name for w in workers)} SIGKILLed (process group); a new worker"
            f" started {WORKER_RESTART_SECONDS:g} s later answered a control ping"
            + (
                f" {answered - record.fault_at:.2f} s after the kill"
                if answered is not None
                else " NEVER (60 s)"
            )
        )
    else:
        raise ValueError(fault)
    await leaving


async def rolling_restart(run: Run, record: FaultRecord) -> float:
    """Each Daphne in turn stopped as a supervisor stops it (SIGTERM: it drains, its sockets
    closed with 1012) and started again on its port, the next one only once the new one
    listens (it listens once ready: production.serve). Returns when the last one listens;
    each step goes in ``record.rolling``."""
    site = run.site
    for old in list(site.find("daphne-")):
        port = int(old.name.split("-", 1)[1])
        load = [round(x, 2) for x in os.getloadavg()]
        stopped = time.time()
        code = await asyncio.to_thread(site.terminate, old, ROLLING_EXIT_WITHIN)
        exited = time.time()
        new = site.start_daphne(port)
        listens = await asyncio.to_thread(wait_listening, port, new.process)
        step = {
            "daphne": old.name,
            "exit_code": code,
            "sigterm_to_exit_s": round(exited - stopped, 2),
            "start_to_listening_s": None if listens is None else round(listens - exited, 2),
            "load_average": load,
        }
        record.rolling.append(step)
        log(
            f"rolling: {old.name} exited {code} {step['sigterm_to_exit_s']} s after SIGTERM;"
            f" the new one listens {step['start_to_listening_s']} s after its start"
        )
        if listens is None:
            break
    steps = record.rolling
    record.detail = (
        f"{len(steps)} Daphnes SIGTERMed one at a time, each started again before the next:"
        f" exit codes {[step['exit_code'] for step in steps]}, SIGTERM -> exit s"
        f" {[step['sigterm_to_exit_s'] for step in steps]}, start -> listening s"
        f" {[step['start_to_listening_s'] for step in steps]}"
    )
    return time.time()


def wait_listening(port: int, process: subprocess.Popen[bytes]) -> float | None:
    """When a new Daphne takes connections on ``port`` (None: it exited, or not in 90 s)."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and process.poll() is None:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            return time.time()
        time.sleep(0.05)
    return None


async def start_next_round(run: Run, room: Room, record: FaultRecord, ends: float) -> None:
    """The host sends start_round for round 2 as soon as it has learned that round 1 ended."""
    info: dict[str, Any] = record.next_round.setdefault(str(room.code), {})
    learned: float | None = None
    deadline = ends + run.args.round_end_wait + 120
    while time.time() < deadline:
        host = room.current_host()
        if host is not None and 1 in host.learned_end:
            learned = host.learned_end[1][0]
            break
        await asyncio.sleep(0.05)
    info["host_learned_end"] = learned
    if learned is None:
        room.start_failed[2] = "the host never learned that round 1 ended"
        run.metrics.rounds_not_started.append(f"room {room.code} round 2: {room.start_failed[2]}")
        room.settled_event(2).set()
        return
    await start_room(run, room, 2)
    info["start_failed"] = room.start_failed.get(2)


async def probe_create(run: Run, record: FaultRecord) -> None:
    """POST /api/rooms as a new visitor would, retried with its Idempotency-Key."""
    key = uuid.uuid4().hex
    for _ in range(3):
        result = await run.http(
            "probe: create a room", "POST", "/api/rooms", {"nickname": "probe"}, idempotency_key=key
        )
        if result.ok:
            record.probe_creations["created"] += 1
            return
        if 400 <= result.status < 500:
            break
        await asyncio.sleep(1)
    record.probe_creations["failed after retries"] += 1


async def http_prober(
    run: Run, rooms: list[Room], record: FaultRecord, stop: asyncio.Event
) -> None:
    """HTTP traffic through the fault: a room's state every 0.5 s, a new room every 2 s."""
    tick = 0
    while not stop.is_set():
        room = rooms[tick % len(rooms)]
        player = next((p for p in room.players if p.left_at is None and p.token), None)
        run.spawn(
            run.http(
                "probe: room state",
                "GET",
                f"/api/rooms/{room.code}",
                token=player.token if player else None,
            )
        )
        if tick % 4 == 0:
            run.spawn(probe_create(run, record))
        tick += 1
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.5)


async def ghost_check(run: Run, rooms: list[Room], label: str, since: float) -> dict[str, Any]:
    """A fresh state of every room (``sync`` from a connected player; GET if none can):
    players shown online whose sockets are all closed (ghosts), and the reverse."""
    checked_at = time.time()

    async def one(room: Room) -> tuple[str, dict[str, Any] | None]:
        reader = next((p for p in room.players if p.left_at is None and p.connected.is_set()), None)
        state = await reader.sync_state(10) if reader is not None else None
        if state is not None:
            return "sync", state
        answer = await run.http("ghost check: room state", "GET", f"/api/rooms/{room.code}")
        body = answer.body if answer.ok and isinstance(answer.body, dict) else {}
        room_state = body.get("room")
        return "HTTP GET", room_state if isinstance(room_state, dict) else None

    states = await asyncio.gather(*(one(room) for room in rooms))
    ghosts: list[str] = []
    transient = wrongly_offline = unknown = unreadable = 0
    leavers_online = leavers = 0
    sources: Counter[str] = Counter()
    for room, (source, state) in zip(rooms, states, strict=True):
        if state is None:
            unreadable += 1
            continue
        sources[source] += 1
        by_id = {p.id: p for p in room.players}
        leavers += sum(1 for p in room.players if p.left_at is not None)
        for entry in state.get("players") or []:
            if not isinstance(entry, dict):
                continue
            player = by_id.get(entry.get("id"))
            online = entry.get("online")
            if player is None:
                unknown += 1
                continue
            is_open = player.connected.is_set() and player.left_at is None
            if online is False and is_open:
                wrongly_offline += 1
            if not online or is_open:
                continue
            closed = player.left_at or player.closed_since or checked_at
            closed_for = checked_at - closed
            if player.left_at is not None:
                leavers_online += 1
            if closed_for < GHOST_GRACE_SECONDS:
                transient += 1
                continue
            what = "left for good" if player.left_at is not None else "reconnecting"
            ghosts.append(
                f"room {room.code} player {player.id} ({what}), closed {closed_for:.1f} s before"
            )
    return {
        "label": label,
        "seconds_after": round(checked_at - since, 1),
        "rooms_read": dict(sources),
        "rooms_unreadable": unreadable,
        "ghosts": len(ghosts),
        "ghost_examples": ghosts[:8],
        "leavers": leavers,
        "leavers_shown_online": leavers_online,
        "closed_under_grace_shown_online": transient,
        "open_shown_offline": wrongly_offline,
        "unknown_players": unknown,
    }


async def ghost_check_at(
    run: Run, rooms: list[Room], record: FaultRecord, at: float, label: str, since: float
) -> None:
    await sleep_until(at)
    check = await ghost_check(run, rooms, label, since)
    record.ghost_checks.append(check)
    log(
        f"ghost check ({label}): {check['ghosts']} ghosts, leavers shown online"
        f" {check['leavers_shown_online']} of {check['leavers']}"
    )


async def fetch_results(run: Run, room: Room, number: int) -> None:
    path = f"/api/rooms/{room.code}/rounds/{number}"
    deadline = time.monotonic() + 30
    room.results[number] = None
    while time.monotonic() < deadline:
        answer = await run.http("read results", "GET", path)
        if answer.ok and isinstance(answer.body, dict):
            results = answer.body.get("results")
            room.results[number] = results if isinstance(results, dict) else None
            return
        if answer.status not in (0, 409) and answer.status < 500:
            return
        await asyncio.sleep(1)


async def run_fault(run: Run, fault: str) -> dict[str, Any]:
    """One fault in a fresh site: round 1 with the fault ``--fault-at`` s in, round 2 started
    by each host as soon as it learns that round 1 ended; then the figures."""
    args = run.args
    record = FaultRecord(fault)
    rooms: list[Room] = []
    stop_probe = asyncio.Event()
    started_wall = time.time()
    try:
        await asyncio.to_thread(run.word_list, dictionaries.DEFAULT_DICTIONARY)
        rooms = await set_up_rooms(run)
        await connect_all(run, rooms)
        players = [player for room in rooms for player in room.players]
        tasks = [asyncio.create_task(p.play_round(n)) for n in (1, 2) for p in players]
        run.phase = "round 1, before the fault"
        await asyncio.gather(*(start_room(run, room, 1) for room in rooms))
        started = [room for room in rooms if 1 not in room.start_failed]

        async def seen(room: Room) -> None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(room.seen_event(1).wait(), 120)

        await asyncio.gather(*(seen(room) for room in started))
        infos = [room.round_info[1] for room in started if 1 in room.round_info]
        starts = [i["starts_at"] / 1000 for i in infos if isinstance(i.get("starts_at"), int)]
        ends = [i["ends_at"] / 1000 for i in infos if isinstance(i.get("ends_at"), int)]
        if not starts or not ends:
            raise RuntimeError("no room started round 1")
        fault_wall = min(starts) + args.fault_at
        log(
            f"{fault}: round 1 runs in {len(infos)} rooms, from {min(starts) - time.time():+.1f} s"
            f" to {max(ends) - time.time():+.1f} s; the fault at {fault_wall - time.time():+.1f} s"
        )
        probe = asyncio.create_task(http_prober(run, rooms, record, stop_probe))
        next_rounds = [
            asyncio.create_task(start_next_round(run, room, record, max(ends))) for room in started
        ]
        await sleep_until(fault_wall)
        run.phase = "round 1, the fault"
        await inject(run, fault, rooms, record)
        assert record.fault_at is not None
        log(f"{fault}: {record.detail}")
        run.phase = "round 1, after the fault"
        last_leave = max([p.left_at or 0.0 for p in record.leavers], default=0.0)
        ghosts = asyncio.create_task(
            ghost_check_at(
                run,
                rooms,
                record,
                max(record.fault_at, last_leave) + args.ghost_after,
                f"{args.ghost_after:g} s after the fault and the leavers' close",
                record.fault_at,
            )
        )
        await asyncio.gather(*next_rounds)
        run.phase = "round 2"
        await asyncio.gather(*tasks)
        stop_probe.set()
        await probe
        await ghosts
        run.phase = "after the rounds"
        for number in (1, 2):
            await asyncio.gather(
                *(fetch_results(run, room, number) for room in rooms if number in room.round_info)
            )
        record.ghost_checks.append(
            await ghost_check(run, rooms, "at the end (round 2 over)", record.fault_at)
        )
        record.disconnected_at_end = sum(
            1 for p in players if p.left_at is None and not p.connected.is_set()
        )
    except Exception as error:
        record.error = f"{type(error).__name__}: {error}"
        log(f"{fault}: the run failed: {record.error}")
    finally:
        run.closing = True
        stop_probe.set()
        sockets = [p.ws for room in rooms for p in room.players if p.ws is not None]
        await asyncio.gather(
            *(asyncio.wait_for(ws.close(), 5) for ws in sockets), return_exceptions=True
        )
        pending = [
            task
            for room in rooms
            for p in room.players
            for task in (p.reader, p.keepalive_task)
            if task is not None
        ] + list(run.background)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
    report = fault_report(run, rooms, record)
    report["seconds"] = round(time.time() - started_wall, 1)
    if fault == "rolling":
        report["rolling"] = rolling_figures(run, record, report)
    return report


def rolling_figures(run: Run, record: FaultRecord, report: dict[str, Any]) -> dict[str, Any]:
    """The rolling restart's floors: words lost, errors shown, and each dropped socket's time
    from its drop to its ``state`` on another Daphne."""
    m = run.metrics
    back = m.reconnect_ms
    return {
        "steps": record.rolling,
        "lost": report["round_1"]["lost"] + report["round_2"]["lost"],
        "error_replies": sum(report["errors_all"].values()),
        "http_5xx": report["http_all"]["5xx"],
        "drops_by_close_code": dict(m.socket_drops),
        "back_ms": summary(back, (50,)),
        "back_over_floor": sum(1 for ms in back if ms > ROLLING_BACK_SECONDS * 1000),
        "never_back": report["sockets"]["staying_clients_disconnected_at_end"],
        "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
    }


def rolling_lines(figures: dict[str, Any]) -> list[str]:
    back = figures["back_ms"]
    back_text = "none" if not back["n"] else f"p50 {back['p50']:,.0f} / max {back['max']:,.0f}"
    lines = [
        f"rolling restart: LOST {figures['lost']} words; errors shown: {figures['error_replies']}"
        f" error replies, {figures['http_5xx']} HTTP 5xx; sockets dropped"
        f" {sum(figures['drops_by_close_code'].values())}"
        f" ({', '.join(f'{k}: {v}' for k, v in figures['drops_by_close_code'].items()) or '-'});"
        f" drop -> back (state) ms {back_text} (n={back['n']}), over"
        f" {ROLLING_BACK_SECONDS:g} s: {figures['back_over_floor']}, never back:"
        f" {figures['never_back']}; load average {figures['load_average_at_end']}",
    ]
    for step in figures["steps"]:
        lines.append(
            f"    {step['daphne']}: SIGTERM -> exit {step['sigterm_to_exit_s']} s (exit code"
            f" {step['exit_code']}), new one listening {step['start_to_listening_s']} s after"
            f" its start; load average then {step['load_average']}"
        )
    return lines
