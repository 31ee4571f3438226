"""The quick-play queue under a crowd: players placed per second and each one's time from
pressing "Play now" to having a room.

    python bench/quickplay.py [--players 400] [--rate 20] [--mode embedded|production]
    python bench/quickplay.py --burst            # every player presses at once
    python bench/quickplay.py --url http://127.0.0.1:8000   # a running site

Starts the site as ``bench/load.py`` does (embedded: SQLite and one Daphne; production:
PostgreSQL, Redis, ``--daphnes`` web processes and a worker; players spread over the web
processes, as nginx would). Each player is a client on loopback with its own kept-alive
connection: it joins the queue (``POST /api/quickplay``), then asks how its ticket stands
once a second (``GET /api/quickplay`` with its key), as the page does, until placed.
Players arrive ``--rate`` a second (or all at once with ``--burst``).

Prints the load average before and after, rooms made and their sizes, players placed per
second (placed players over the time from the first join to the last placement), and the
time to a room in ms (p50 / p95 / p99 / max). A room is made when 4 wait, so a player
waits for the arrivals after them (about 3/rate s for the first of a room) plus up to one
poll.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.crowd.figures import log, summary  # noqa: E402
from bench.crowd.site import Site  # noqa: E402
from bench.solve import Connection  # noqa: E402

POLL_SECONDS = 1.0
GIVE_UP_SECONDS = 60.0


def play_now(url: str, index: int) -> dict:
    """One player: join, then ask once a second until placed; the times it saw."""
    connection = Connection(url)
    headers = {"Content-Type": "application/json"}
    body = json.dumps({"nickname": f"Bench{index}"}).encode()
    started = time.monotonic()
    status, data, join_seconds = connection.request("POST", "/api/quickplay", body, headers)
    if status != 201:
        return {"error": f"join {status}: {data[:120]!r}"}
    ticket = json.loads(data)["ticket"]
    key, checks = ticket["key"], []
    while ticket["status"] != "placed":
        if time.monotonic() - started > GIVE_UP_SECONDS:
            return {"left": True}  # alone in the queue at the end: nobody to play with
        time.sleep(POLL_SECONDS)
        status, data, seconds = connection.request(
            "GET", "/api/quickplay", headers={"Authorization": f"Bearer {key}"}
        )
        if status != 200:
            return {"error": f"check {status}: {data[:120]!r}"}
        checks.append(seconds)
        ticket = json.loads(data)["ticket"]
    return {
        "started": started,
        "placed": time.monotonic(),
        "room": ticket["room"]["code"],
        "join": join_seconds,
        "checks": checks,
    }


def run(urls: list[str], players: int, rate: float | None) -> dict:
    results: list[dict] = []
    lock = threading.Lock()

    def one(index: int) -> None:
        outcome = play_now(urls[index % len(urls)], index)
        with lock:
            results.append(outcome)

    with ThreadPoolExecutor(max_workers=players) as pool:
        for index in range(players):
            pool.submit(one, index)
            if rate:
                time.sleep(1 / rate)
    placed = [r for r in results if "room" in r]
    errors = Counter(r["error"] for r in results if "error" in r)
    left = sum(1 for r in results if r.get("left"))
    sizes = Counter(Counter(r["room"] for r in placed).values())
    span = max(r["placed"] for r in placed) - min(r["started"] for r in placed) if placed else 0.0
    return {
        "players": players,
        "placed": len(placed),
        "errors": dict(errors),
        "left_waiting": left,
        "rooms": sum(sizes.values()),
        "room_sizes": {str(size): count for size, count in sorted(sizes.items())},
        "placed_per_second": round(len(placed) / span, 1) if span else None,
        "time_to_room_ms": summary([(r["placed"] - r["started"]) * 1000 for r in placed]),
        "join_ms": summary([r["join"] * 1000 for r in placed]),
        "check_ms": summary([s * 1000 for r in placed for s in r["checks"]]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=400)
    parser.add_argument("--rate", type=float, default=20.0, help="arrivals a second")
    parser.add_argument("--burst", action="store_true", help="everyone at once")
    parser.add_argument("--mode", choices=("embedded", "production"), default="embedded")
    parser.add_argument("--daphnes", type=int, default=2)
    parser.add_argument("--url", action="append", help="a running site (starts nothing)")
    parser.add_argument("--postgres-url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379")
    parser.add_argument("--redis-db", type=int, default=14)
    parser.add_argument("--keep-tmp", action="store_true")
    parser.add_argument("--json", metavar="PATH", help="also write the figures to this file")
    args = parser.parse_args()
    args.preload_reader = False
    log(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    site = Site(args)
    try:
        site.start()
        figures = run(site.urls, args.players, None if args.burst else args.rate)
    finally:
        site.stop()
    log(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(json.dumps(figures, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(figures))


if __name__ == "__main__":
    main()
