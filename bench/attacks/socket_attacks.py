"""The attacks of bench/abuse.py on the room websocket: ws-flood (a socket that sends fast
and never reads), join-many (a mob of one address joins and plays) and socket-swarm
(2,000 sockets of one player dropped at once); each has its attacker's side
(``side_*``) and this side's reading of it (``attack_*``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import Counter
from typing import Any

from websockets.asyncio.client import ClientConnection

from bench.attacks.attacker import SideReport, take_report, to_monotonic
from bench.attacks.client import join_room, open_socket, ws_url
from bench.attacks.honest import Player
from bench.attacks.measurement import Bench
from bench.attacks.outcome import Outcome
from bench.attacks.server_watch import mb
from bench.crowd.figures import percentile

MOB_JOINS = 40
MOB_PLAYERS = 30
MOB_WORDS_PER_SECOND = 8.0


# ws-flood


async def side_ws_flood(base: str, code: str, seconds: float) -> dict[str, Any]:
    report = SideReport()
    _, me = await join_room(base, code, "flooder")
    assert me is not None, "the flooder could not join"
    # max_queue=1: the client library stops reading from the TCP socket once one message
    # waits, and nothing here ever reads: the server's answers pile up on its side.
    ws = await open_socket(ws_url(base, me.code), me.token, max_queue=1)
    frame = json.dumps({"type": "x" * 4000})
    sent, stopped = 0, ""
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        due = int((time.monotonic() - start) * 2000)
        try:
            while sent < due:
                await ws.send(frame)
                sent += 1
        except Exception as error:
            stopped = f"sending failed after {sent:,} at {time.monotonic() - start:.1f} s: {type(error).__name__}"
            break
        await asyncio.sleep(0.005)
    flood_end = time.time()
    rate = sent / max(0.001, time.monotonic() - start)
    report.note(
        f"sent {sent:,} frames of {len(frame):,} chars ({rate:,.0f}/s); {stopped or 'sending never failed'}"
    )
    # Now read what was waiting (for 10 s at most), to learn whether and how the server
    # closed the socket.
    received: Counter[str] = Counter()
    drain_until = time.monotonic() + 10.0
    with contextlib.suppress(Exception):
        while time.monotonic() < drain_until:
            raw = await asyncio.wait_for(ws.recv(), max(0.01, drain_until - time.monotonic()))
            message = json.loads(raw)
            received[f"{message.get('type')}:{message.get('code', '')}"] += 1
    still = "still arriving after 10 s" if time.monotonic() >= drain_until else "then quiet"
    report.note(
        f"then read {sum(received.values()):,} messages ({still})"
        f" {dict(received.most_common(4))}; close code {ws.close_code} reason {ws.close_reason!r}"
    )
    with contextlib.suppress(Exception):
        await asyncio.wait_for(ws.close(), 3)
    return report.as_dict(flood_end=flood_end)


async def attack_ws_flood(bench: Bench, outcome: Outcome, seconds: float = 15.0) -> None:
    report = await bench.attacker.run("ws-flood", code=bench.table.code, seconds=seconds)
    take_report(outcome, report)
    outcome.note(
        f"RSS at the end of the flood {mb(bench.sampler.at(to_monotonic(report['flood_end'])))} MB"
    )


# join-many


async def side_join_many(base: str, code: str, words: list[str], seconds: float) -> dict[str, Any]:
    """Join ``MOB_JOINS`` times at once, then ``MOB_PLAYERS`` of them send words as fast as
    the attack says."""
    joins_start = time.time()
    results = await asyncio.gather(
        *(join_room(base, code, f"mob{index}") for index in range(MOB_JOINS))
    )
    statuses: Counter[str] = Counter(str(result.status) for result, _ in results)
    mob = [Player(base, me) for _, me in results if me is not None]
    players = mob[:MOB_PLAYERS]
    opened = await asyncio.gather(*(player.open() for player in players), return_exceptions=True)
    playing = [p for p, r in zip(players, opened, strict=True) if not isinstance(r, BaseException)]
    play_start = time.time()
    stop_at = time.monotonic() + seconds
    await asyncio.gather(
        *(p.play(words, MOB_WORDS_PER_SECOND, lambda: time.monotonic() >= stop_at) for p in playing)
    )
    play_end = time.time()
    errors: Counter[str] = Counter()
    for player in playing:
        errors.update(player.errors)
    for player in mob:
        await player.send({"type": "leave"})
    await asyncio.gather(*(player.close() for player in mob))
    return SideReport(statuses=statuses).as_dict(
        joins=joins_start,
        play=play_start,
        end=play_end,
        players=len(players),
        playing=len(playing),
        verdicts=sum(len(p.latencies) for p in playing),
        p95=percentile([ms for p in playing for _, ms in p.latencies], 95),
        errors=dict(errors),
    )


async def attack_join_many(bench: Bench, outcome: Outcome, seconds: float = 15.0) -> None:
    report = await bench.attacker.run(
        "join-many", code=bench.table.code, words=bench.table.words, seconds=seconds
    )
    take_report(outcome, report)
    joins_start, play_start, play_end = (
        to_monotonic(report[key]) for key in ("joins", "play", "end")
    )
    statuses = dict(sorted(report["statuses"].items()))
    outcome.note(f"{MOB_JOINS} joins: {statuses}; {statuses.get('429', 0)} refused with 429")
    outcome.note(
        f"{report['playing']} of {report['players']} mob sockets open;"
        f" {MOB_WORDS_PER_SECOND:.0f} words/s each for {seconds:.0f} s (the attacker's process)"
    )
    joining = percentile(bench.table.latencies(joins_start, play_start), 95)
    playing_p95 = percentile(bench.table.latencies(play_start, play_end), 95)
    outcome.note(
        f"honest p95 while the mob joined ({play_start - joins_start:.1f} s): {joining or 0:.0f} ms;"
        f" while it played: {playing_p95 or 0:.0f} ms"
    )
    outcome.note(
        f"mob got {report['verdicts']:,} verdicts (their p95 {report['p95'] or 0:.0f} ms),"
        f" errors {report['errors']}"
    )


# socket-swarm


async def side_socket_swarm(base: str, code: str, count: int) -> dict[str, Any]:
    """``count`` websockets of one player, 100 opening at a time, then all dropped at once
    (no close frame: a TCP reset)."""
    _, me = await join_room(base, code, "swarm")
    assert me is not None, "the swarm player could not join"
    url = ws_url(base, code)
    gate = asyncio.Semaphore(100)
    failures: Counter[str] = Counter()

    async def one() -> ClientConnection | None:
        async with gate:
            try:
                return await open_socket(url, me.token, max_queue=1)
            except Exception as error:
                failures[type(error).__name__] += 1
                return None

    start = time.monotonic()
    sockets = [ws for ws in await asyncio.gather(*(one() for _ in range(count))) if ws is not None]
    seconds = time.monotonic() - start
    await asyncio.sleep(1.0)  # the server may close extra ones
    closed = Counter(str(ws.close_code) for ws in sockets if ws.close_code is not None)
    for ws in sockets:
        ws.transport.abort()
    report = SideReport()
    report.note(
        f"{len(sockets):,} of {count:,} sockets opened in {seconds:.1f} s (failures {dict(failures)})"
    )
    report.note(f"closed by the server before the drop: {sum(closed.values())} {dict(closed)}")
    return report.as_dict(player_id=me.player_id, dropped=time.time())


async def attack_socket_swarm(
    bench: Bench, outcome: Outcome, count: int = 2000, ghost_after: float = 30.0
) -> None:
    report = await bench.attacker.run("socket-swarm", code=bench.table.code, count=count)
    take_report(outcome, report)
    dropped = to_monotonic(report["dropped"])
    outcome.note(
        f"all dropped (RSS {mb(bench.sampler.at(dropped))} MB); checking presence {ghost_after:.0f} s after"
    )
    await asyncio.sleep(max(0.0, dropped + ghost_after - time.monotonic()))
    answer = await bench.table.host.request({"type": "sync"})
    players = (answer or {}).get("state", {}).get("players", []) if answer else []
    swarm = [p for p in players if p.get("id") == report["player_id"]]
    online = swarm[0].get("online") if swarm else None
    outcome.note(
        f"sync {time.monotonic() - dropped:.0f} s after the drop: the swarm player"
        f" online={online} ({'GHOST' if online else 'not a ghost'})"
    )
