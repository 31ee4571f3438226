"""The phases of a load run: the burst of joins and creations, the rooms set up and
connected, each room's round started and played, the results checked against the
verdicts, missed events counted, and ``run_load``, which runs them in turn."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bench.crowd.figures import log
from bench.crowd.http_client import HttpResult, http_call
from bench.crowd.player import Player
from bench.crowd.profiling import Profiler
from bench.crowd.run import Room, Run
from bench.crowd.window import Window, take_snapshot
from solver import dictionaries
from web import gc_tuning

BURST_TIMES = 3
BURST_JOINS = 40
BURST_CREATIONS = 10


# ------------------------------------------------------------------------ the phases


def _released_post(
    barrier: threading.Barrier, base: str, path: str, body: dict[str, Any]
) -> HttpResult:
    """Wait for every other thread of the burst, then POST."""
    with contextlib.suppress(threading.BrokenBarrierError):
        barrier.wait(timeout=30)
    return http_call(base, "POST", path, body)


async def burst(run: Run) -> None:
    """Three times over: 40 joins of one room and 10 creations released at one instant."""
    loop = asyncio.get_running_loop()
    size = BURST_JOINS + BURST_CREATIONS
    with ThreadPoolExecutor(max_workers=size, thread_name_prefix="burst") as pool:
        for time_ in range(1, BURST_TIMES + 1):
            # The room to join, made beforehand (counted with the game's HTTP, not the burst's).
            setup = await run.http(
                "burst set-up: create the room", "POST", "/api/rooms", {"nickname": "burst host"}
            )
            try:
                code = str(setup.body["room"]["code"])
            except (KeyError, TypeError):
                log(f"burst {time_}: could not create its room ({setup.status} {setup.error})")
                continue
            barrier = threading.Barrier(size)
            calls: list[tuple[str, str, dict[str, Any], str]] = []
            for index in range(BURST_JOINS):
                calls.append(
                    (
                        "burst: join",
                        f"/api/rooms/{code}/join",
                        {"nickname": f"b{time_}-{index}"},
                        run.url(),
                    )
                )
            for index in range(BURST_CREATIONS):
                calls.append(("burst: create", "/api/rooms", {"nickname": f"c{index}"}, run.url()))

            results = await asyncio.gather(
                *(
                    loop.run_in_executor(pool, _released_post, barrier, base, path, body)
                    for _, path, body, base in calls
                )
            )
            for (what, *_), result in zip(calls, results, strict=True):
                run.burst_http.record(what, result)
            bad = sum(1 for result in results if not result.ok)
            log(f"burst {time_}/{BURST_TIMES}: {len(results)} requests, {bad} not 2xx")


async def set_up_rooms(run: Run) -> list[Room]:
    args = run.args
    rooms: list[Room] = []
    index = 0
    while index < args.players:
        room: Room[Player] = Room(len(rooms), min(args.room_size, args.players - index))
        urls = run.site.urls
        for _ in range(room.size):
            # round-robin: each player to the next Daphne, as a proxy spreads connections;
            # room: all of a room's players on one Daphne (a proxy hashing the room code)
            spot = len(rooms) if getattr(args, "route", "round-robin") == "room" else index
            room.players.append(Player(run, room, index, urls[spot % len(urls)]))
            index += 1
        rooms.append(room)

    async def fill(room: Room) -> None:
        if not await room.players[0].create(args.round_seconds):
            room.players = []
            return
        room.host = room.players[0]
        joined = await asyncio.gather(*(player.join() for player in room.players[1:]))
        room.players = [room.players[0]] + [
            p for p, ok in zip(room.players[1:], joined, strict=True) if ok
        ]

    await asyncio.gather(*(fill(room) for room in rooms))
    usable = [room for room in rooms if room.players]
    players = sum(len(room.players) for room in usable)
    log(f"rooms: {len(usable)} of {len(rooms)} created, {players} of {args.players} players in")
    return usable


async def connect_all(run: Run, rooms: list[Room]) -> int:
    run.phase = "connecting"
    players = [player for room in rooms for player in room.players]
    opened = await asyncio.gather(*(player.open() for player in players))
    for room in rooms:
        room.players = [p for p in room.players if p.connected.is_set()]
    connected = sum(opened)
    log(f"websockets: {connected} of {len(players)} connected")
    return connected


async def start_room(run: Run, room: Room, number: int) -> None:
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            host = room.current_host()
            if run.fault_mode:
                # A host whose socket dropped sends start_round once it is back.
                wait_until = time.monotonic() + 60
                while time.monotonic() < wait_until and (
                    host is None or not host.connected.is_set()
                ):
                    await asyncio.sleep(0.1)
                    host = room.current_host()
            if host is None or host.gone or not host.connected.is_set():
                room.start_failed[number] = "the host is not connected"
                return
            answer = await host.request({"type": "start_round"}, deadline - time.monotonic())
            if answer is None:
                if run.fault_mode:  # the socket dropped: ask again once it is back
                    await asyncio.sleep(1)
                    if await round_under_way(host, number):
                        return
                    continue
                room.start_failed[number] = "no answer to start_round"
                return
            if answer.get("type") == "ok":
                if answer.get("round_number") != number:
                    room.start_failed[number] = f"started round {answer.get('round_number')}"
                return
            code = answer.get("code")
            if code in ("wrong_round_state", "server_error", "rate_limited"):
                await asyncio.sleep(1)
                if run.fault_mode and await round_under_way(host, number):
                    return  # an earlier start_round whose answer was lost did it
                continue
            if code == "not_host" and run.fault_mode:
                await asyncio.sleep(0.5)  # hosting passed on: the new host tries
                continue
            room.start_failed[number] = f"start_round: {code}: {answer.get('message')}"
            return
        room.start_failed[number] = "start_round kept failing"
    finally:
        if number in room.start_failed:
            run.metrics.rounds_not_started.append(
                f"room {room.code} round {number}: {room.start_failed[number]}"
            )
        room.settled_event(number).set()


async def round_under_way(player: Player, number: int) -> bool:
    """Whether round ``number`` (or a later one) exists, by a sync."""
    if number in player.rounds:
        return True
    state = await player.sync_state(10)
    round_ = state.get("round") if state else None
    return isinstance(round_, dict) and (round_.get("number") or 0) >= number


async def sleep_until(wall: float) -> None:
    delay = wall - time.time()
    if delay > 0:
        await asyncio.sleep(delay)


async def play_round(run: Run, rooms: list[Room], number: int, window: Window) -> None:
    players = [player for room in rooms for player in room.players]
    run.phase = f"round {number}: before play"
    profiler = (
        Profiler(Path(run.args.profile), run.site, run.args.profile_format)
        if run.args.profile
        else None
    )
    if profiler is not None:
        profiler.start(f"round{number}")
    try:
        await _play_round(run, rooms, number, window, players)
    finally:
        if profiler is not None:
            await asyncio.to_thread(profiler.stop)


async def _play_round(
    run: Run, rooms: list[Room], number: int, window: Window, players: list[Player]
) -> None:
    tasks = [asyncio.create_task(player.play_round(number)) for player in players]
    await asyncio.gather(*(start_room(run, room, number) for room in rooms))
    started = [room for room in rooms if number not in room.start_failed]

    async def seen(room: Room) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(room.seen_event(number).wait(), 120)

    await asyncio.gather(*(seen(room) for room in started))
    infos = [room.round_info[number] for room in started if number in room.round_info]
    starts = [i["starts_at"] / 1000 for i in infos if isinstance(i.get("starts_at"), int)]
    ends = [i["ends_at"] / 1000 for i in infos if isinstance(i.get("ends_at"), int)]
    if starts and ends:
        log(
            f"round {number}: {len(infos)} rooms running, from {min(starts) - time.time():+.1f} s"
            f" to {max(ends) - time.time():+.1f} s"
        )
        await sleep_until(min(starts))
        start = await take_snapshot(run)
        run.window_open = True
        run.phase = f"round {number}: playing"
        # The costs' own windows (bench/crowd/costs.py): play while every room plays and
        # none has ended, from the last start to the first deadline; the rounds' end from
        # the first deadline until the last player had round.ended and the results.
        await sleep_until(max(starts))
        all_playing = await take_snapshot(run)
        await sleep_until(min(ends))
        first_end = await take_snapshot(run)
        await sleep_until(max(ends))
        run.window_open = False
        run.phase = f"round {number}: after the deadline"
        end = await take_snapshot(run)
        window.add(start, end)
        log(f"round {number}: deadline passed; waiting for round.ended and the last verdicts")
        await asyncio.gather(*tasks)
        # (the bench's own HTTP check of the results comes after, outside the window)
        after = await take_snapshot(run)
        window.add_costs(all_playing, first_end, after, [e - first_end.wall for e in ends])
    else:
        log(f"round {number}: no room started")
    await asyncio.gather(*tasks)
    await asyncio.gather(*(check_results(run, room, number) for room in started))
    log(f"round {number}: results read")


async def check_results(run: Run, room: Room, number: int) -> None:
    """Compare each player's accepted words with the round's results (HTTP)."""
    m = run.metrics
    path = f"/api/rooms/{room.code}/rounds/{number}"
    deadline = time.monotonic() + 30
    results: dict[str, Any] | None = None
    while time.monotonic() < deadline:
        answer = await run.http("read results", "GET", path)
        if answer.ok and isinstance(answer.body, dict):
            results = answer.body.get("results")
            break
        if answer.status not in (0, 409) and answer.status < 500:
            break
        await asyncio.sleep(1)
    if not isinstance(results, dict) or not isinstance(results.get("players"), list):
        m.results_unavailable += 1
        return
    words_by_player: dict[int, set[str]] = {}
    for entry in results["players"]:
        try:
            words_by_player[int(entry["id"])] = {str(w["word"]) for w in entry["words"]}
        except (KeyError, TypeError, ValueError):
            m.odd["results player entry without id/words"] += 1
    for player in room.players:
        accepted = player.accepted.get(number, set())
        in_results = words_by_player.get(player.id or -1, set())
        missing = accepted - in_results
        m.lost_missing += len(missing)
        for word in sorted(missing)[: max(0, 5 - len(m.lost_missing_examples))]:
            m.lost_missing_examples.append(f"room {room.code} player {player.id}: {word!r}")
        m.in_results_not_seen_accepted += len(in_results - accepted)


async def settle_events(rooms: list[Room], quiet: float = 2.0, limit: float = 15.0) -> None:
    """Wait until no client has seen a new version for ``quiet`` seconds (at most ``limit``)."""
    deadline = time.monotonic() + limit

    def total() -> int:
        return sum(len(p.seen) for room in rooms for p in room.players)

    last, since = total(), time.monotonic()
    while time.monotonic() < deadline and time.monotonic() - since < quiet:
        await asyncio.sleep(0.25)
        now_total = total()
        if now_total != last:
            last, since = now_total, time.monotonic()


def count_missed(run: Run, rooms: list[Room]) -> None:
    m = run.metrics
    for room in rooms:
        for player in room.players:
            if player.first_version is None:
                continue
            first = player.first_version
            missing = [v for v in range(first + 1, room.max_version + 1) if v not in player.seen]
            missed = len(missing)
            m.missed_events += missed
            for version in missing:
                m.missed_by_type[room.version_types.get(version, "seen by no client")] += 1
            if player.reconnected:
                m.missed_events_reconnected += missed
            m.clients_with_gaps += missed > 0


async def loop_lag(
    run: Run, samples: list[float], in_play: list[float], stop: asyncio.Event
) -> None:
    """How late the event loop wakes a 0.1 s sleep: a busy client (or machine) shows here."""
    while not stop.is_set():
        before = time.perf_counter()
        playing = run.window_open
        await asyncio.sleep(0.1)
        lag = (time.perf_counter() - before - 0.1) * 1000
        samples.append(lag)
        if playing and run.window_open:
            in_play.append(lag)


async def run_load(run: Run) -> dict[str, Any]:
    args = run.args
    report: dict[str, Any] = {}
    lag: list[float] = []
    lag_in_play: list[float] = []
    stop = asyncio.Event()
    lag_task = asyncio.create_task(loop_lag(run, lag, lag_in_play, stop))
    window = Window()
    run_started = time.time()
    client_cpu_started = time.process_time()
    rooms: list[Room] = []
    try:
        await asyncio.to_thread(run.word_list, dictionaries.DEFAULT_DICTIONARY)
        if args.burst:
            await burst(run)
        rooms = await set_up_rooms(run)
        connected = await connect_all(run, rooms)
        report["sockets_by_daphne"] = await asyncio.to_thread(run.site.sockets_by_daphne)
        # This one process plays a thousand phones: its cycle collector, walking every
        # player's state and the rounds' results, paused it for up to half a second, and
        # the pause counted in every latency it measured (the server's frames waited
        # unread). It is tuned as the Daphnes are, off during a round, and run between
        # rounds, outside every window measured.
        gc_tuning.tune_for_latency()
        await window.measure_idle(run)
        for number in range(1, args.rounds + 1):
            with gc_tuning.collection_paused():
                await play_round(run, rooms, number, window)
            gc.collect()
        run.phase = "after the rounds"
        await settle_events(rooms)
        count_missed(run, rooms)
        report["connected"] = connected
    finally:
        run.closing = True
        stop.set()
        sockets = [p.ws for room in rooms for p in room.players if p.ws is not None]
        await asyncio.gather(
            *(asyncio.wait_for(ws.close(), 5) for ws in sockets), return_exceptions=True
        )
        readers = [p.reader for room in rooms for p in room.players if p.reader is not None]
        for reader in readers:
            reader.cancel()
        await asyncio.gather(*readers, lag_task, return_exceptions=True)
    report["rooms"] = len(rooms)
    report["players_in"] = sum(len(room.players) for room in rooms)
    report["window"] = window
    report["lag"] = lag
    report["lag_in_play"] = lag_in_play
    report["seconds"] = time.time() - run_started
    report["client_cpu"] = time.process_time() - client_cpu_started
    return report
