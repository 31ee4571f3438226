"""Migrations and upgrades during play (issue 49): what the players see.

    python bench/upgrade.py                         # both scenarios
    python bench/upgrade.py --scenario migrate --migrate-runs 20
    python bench/upgrade.py --scenario migrate --lock-timeout 0   # Django's own migrate
    python bench/upgrade.py --scenario upgrade

Each scenario starts the site as in production (tests/stack.py, tests/releases.py: two
Daphnes, a Celery prefork worker and beat, so the once-a-second sweep and the Daphnes'
deadline watchers run) on a throwaway PostgreSQL database on 127.0.0.1:5432 and Redis
keys of its own (database 13, under a prefix deleted at the end), and ``--rooms`` rooms
of ``--room-size`` players play rounds back to back: each round shortened to
``--round-seconds`` after its countdown (the API's floor is 30 s), every player sending a
word (mostly on the board) every ``--word-interval`` seconds and waiting for its verdict,
resending the same client_id after a drop, as the room's page does. A prober creates a
room every second on each Daphne (HTTP status counted).

- ``migrate``: the site runs this checkout; ``--migrate-runs`` times, ``manage.py migrate
  games 0019`` then ``manage.py migrate games`` (games 0020 backwards and forwards: it
  sets and drops database defaults on games_room and games_round, so each run takes those
  tables' ACCESS EXCLUSIVE locks while the site writes them; nothing is lost, the site's
  code fills those columns itself). Each run's retries (lock timeouts, deadlock victims)
  are read from its output.
- ``upgrade``: the previous release (production/releases.py) serves, on its own schema;
  during play this checkout's ``migrate`` runs (expand only), then Daphne A, Daphne B, the
  worker and beat are replaced one at a time by this checkout's (a rolling restart).

Figures: migrate runs (failed, retried and why, seconds), deadlocks PostgreSQL counted in
the database (pg_stat_database) and "deadlock detected" in the site's logs, words sent
and verdicts by kind, server_error replies, words never answered, verdict latency, HTTP
statuses (5xx from the prober and from every Daphne's access log; refused connections,
when a Daphne restarts with no proxy in front, apart), rounds played, load average.
Loopback only; every process, the database and the keys are removed at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import psycopg  # noqa: E402

from production.releases import PREVIOUS_RELEASE  # noqa: E402
from tests.releases import (  # noqa: E402
    BrowserClient,
    ReleaseStack,
    extract,
    http_as_browser,
    open_room_as_browsers,
    unavailable,
)
from tests.servers import delete_redis_keys, throwaway_postgres_database  # noqa: E402
from tests.stack import shorten_round, solve_round  # noqa: E402

POSTGRES_URL = os.environ.get(
    "BOGGLE_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
REDIS_URL = os.environ.get("BOGGLE_TEST_REDIS_URL", "redis://127.0.0.1:6379/13")
SERVER_ERROR_LINE = re.compile(r'"[A-Z]+ [^"]*" 5\d\d ')
VERDICT_WAIT = 15.0  # seconds for one answer before the word is sent again
ANSWER_WAIT = 90.0  # seconds before a word is counted as never answered


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


@dataclass
class Tally:
    """What the players and the prober saw."""

    verdicts: Counter[str] = field(default_factory=Counter)
    latencies_ms: list[float] = field(default_factory=list)
    server_errors: int = 0
    unanswered: int = 0
    resent: int = 0
    rounds: int = 0
    round_failures: Counter[str] = field(default_factory=Counter)
    http: Counter[str] = field(default_factory=Counter)

    def words(self) -> int:
        return sum(self.verdicts.values())


@dataclass
class MigrateRun:
    command: str
    returncode: int
    seconds: float
    lock_timeouts: int
    deadlock_victims: int
    output: str


# ---------------------------------------------------------------- players


async def answer(player: BrowserClient, message: dict, tally: Tally) -> dict | None:
    """Send and wait for the reply; after a drop or no reply, send it again (same
    client_id) once the socket is back, as the page's outbox does, for up to
    ANSWER_WAIT seconds. None if never answered."""
    deadline = time.monotonic() + ANSWER_WAIT
    sent_before = False
    while time.monotonic() < deadline:
        request_id = uuid.uuid4().hex
        mark = len(player.messages)
        if not await player.send({**message, "request_id": request_id}):
            await asyncio.sleep(0.25)  # the socket is down: reconnecting
            continue
        tally.resent += sent_before
        sent_before = True
        try:
            return await player.answer(request_id, mark, VERDICT_WAIT, str(message))
        except AssertionError:
            continue
    return None


async def send_words(
    player: BrowserClient, words: list[str], ends_at: float, interval: float, tally: Tally
) -> None:
    await asyncio.sleep(random.uniform(0, interval))
    while time.time() < ends_at - 0.3:
        word = random.choice(words) if random.random() < 0.85 else "zzqxv"
        sent = time.monotonic()
        reply = await answer(
            player, {"type": "submit", "word": word, "client_id": uuid.uuid4().hex}, tally
        )
        if reply is None:
            tally.unanswered += 1
        elif reply.get("type") == "error":
            tally.verdicts[f"error:{reply.get('code')}"] += 1
            tally.server_errors += reply.get("code") == "server_error"
        else:
            tally.verdicts[str(reply.get("verdict"))] += 1
            tally.latencies_ms.append((time.monotonic() - sent) * 1000)
        await asyncio.sleep(interval)


async def play_room(
    site: ReleaseStack,
    code: str,
    players: list[BrowserClient],
    args: argparse.Namespace,
    stop: asyncio.Event,
    tally: Tally,
) -> None:
    """Rounds back to back until ``stop``: the host starts one, it is shortened, everyone
    sends words until its end, then waits for round.ended (or a state that shows it)."""
    host = players[0]
    while not stop.is_set():
        marks = [len(p.messages) for p in players]
        started = await answer(host, {"type": "start_round"}, tally)
        if started is None or started.get("type") != "ok":
            tally.round_failures[str(started and started.get("code"))] += 1
            tally.server_errors += bool(started and started.get("code") == "server_error")
            await asyncio.sleep(1.0)
            continue
        try:
            round_ = (await host.wait_for("round.started", after=marks[0]))["round"]
        except AssertionError:
            tally.round_failures["no round.started"] += 1
            continue
        number = round_["number"]
        words = list(solve_round(round_)) or ["zzqxv"]
        _, deadline_ms = await asyncio.to_thread(
            shorten_round, site.database_url, code, number, args.round_seconds
        )
        await asyncio.sleep(max(round_["starts_at"] / 1000 - time.time(), 0))
        await asyncio.gather(
            *(send_words(p, words, deadline_ms / 1000, args.word_interval, tally) for p in players)
        )
        for player, mark in zip(players, marks, strict=True):
            try:
                await player.wait_round_ended(number, mark, 30.0, "round.ended")
            except AssertionError:
                tally.round_failures["round.ended not heard"] += 1
        tally.rounds += 1


def probe(site: ReleaseStack, stop: threading.Event, tally: Tally) -> None:
    """A room created every second on each Daphne: the HTTP side of the site."""
    while not stop.is_set():
        for name in ("A", "B"):
            try:
                status, _, _ = http_as_browser(
                    site.http_url(name), "POST", "/api/rooms", {"nickname": "Probe"}
                )
                tally.http[str(status)] += 1
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                tally.http["refused"] += 1
        stop.wait(1.0)


# ---------------------------------------------------------------- migrate runs


def run_migrate(site: ReleaseStack, tree: Path, lock_timeout: str, *target: str) -> MigrateRun:
    env = site.env | {"BOGGLE_MIGRATE_LOCK_TIMEOUT": lock_timeout}
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "manage.py", "migrate", *target, "--noinput"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = done.stdout + done.stderr
    return MigrateRun(
        command=" ".join(["migrate", *target]),
        returncode=done.returncode,
        seconds=time.monotonic() - started,
        lock_timeouts=output.count("no lock within"),
        deadlock_victims=output.count("deadlock's victim") + output.count("deadlock detected"),
        output=output,
    )


def database_deadlocks(database_url: str) -> int:
    with psycopg.connect(database_url, connect_timeout=5) as connection:
        row = connection.execute(
            "select deadlocks from pg_stat_database where datname = current_database()"
        ).fetchone()
    return int(row[0]) if row else 0


# ---------------------------------------------------------------- a scenario


async def with_players(
    site: ReleaseStack, args: argparse.Namespace, tally: Tally, work: Any
) -> None:
    """Rooms playing (and the prober) while ``work()`` runs in a thread; then stop them."""
    rooms = []
    for index in range(args.rooms):
        names = [f"R{index}P{i}" for i in range(args.room_size)]
        rooms.append(await open_room_as_browsers(site, names))
    stop = asyncio.Event()
    probe_stop = threading.Event()
    prober = threading.Thread(target=probe, args=(site, probe_stop, tally), daemon=True)
    prober.start()
    games = [
        asyncio.create_task(play_room(site, code, players, args, stop, tally))
        for code, players in rooms
    ]
    await asyncio.sleep(args.warm_up)
    try:
        await asyncio.to_thread(work)
    finally:
        stop.set()
        probe_stop.set()
        await asyncio.wait(games, timeout=args.round_seconds + 60)
        for task in games:
            if not task.done():
                task.cancel()
            elif task.exception() is not None:
                log(f"a room stopped with {task.exception()!r}")
        for _, players in rooms:
            for player in players:
                await player.close()
        prober.join(timeout=30)


def site_figures(site: ReleaseStack) -> dict[str, int]:
    logs = "".join(process.output() for process in site.processes)
    return {
        "5xx in access logs": len(SERVER_ERROR_LINE.findall(logs)),
        "deadlock detected in logs": logs.count("deadlock detected"),
        "tracebacks in logs": logs.count("Traceback"),
    }


def report(
    title: str, tally: Tally, site: ReleaseStack, deadlocks: int, runs: list[MigrateRun]
) -> None:
    print(f"\n== {title}")
    if runs:
        retried = sum(1 for run in runs if run.lock_timeouts or run.deadlock_victims)
        seconds = [run.seconds for run in runs]
        print(
            f"migrate runs: {len(runs)}, failed {sum(run.returncode != 0 for run in runs)},"
            f" retried {retried} (lock timeouts {sum(r.lock_timeouts for r in runs)},"
            f" deadlock victims {sum(r.deadlock_victims for r in runs)}); seconds median"
            f" {statistics.median(seconds):.1f}, max {max(seconds):.1f}"
        )
        for run in runs:
            if run.returncode != 0:
                print(f"  failed: {run.command}\n{run.output[-2000:]}")
    print(f"deadlocks counted by PostgreSQL in the database: {deadlocks}")
    for name, count in site_figures(site).items():
        print(f"{name}: {count}")
    latencies = sorted(tally.latencies_ms) or [0.0]
    print(
        f"words answered {tally.words()}: {dict(tally.verdicts)}; server_error"
        f" {tally.server_errors}; never answered {tally.unanswered}; sent again"
        f" {tally.resent}"
    )
    print(
        f"verdict latency ms: p50 {latencies[len(latencies) // 2]:.0f}, p99"
        f" {latencies[int(len(latencies) * 0.99)]:.0f}, max {latencies[-1]:.0f}"
    )
    print(f"rounds played {tally.rounds}; round failures {dict(tally.round_failures)}")
    print(f"prober HTTP: {dict(tally.http)}")
    print(f"load average: {load()}")


@contextlib.contextmanager
def site_on(tree: Path, workdir: Path) -> Any:
    prefix = f"boggle-bench-upgrade-{os.getpid()}-{uuid.uuid4().hex[:6]}:"
    workdir.mkdir(parents=True)
    with throwaway_postgres_database(POSTGRES_URL) as database_url:
        site = ReleaseStack(
            database_url, REDIS_URL, workdir, redis_prefix=prefix, code=tree, migrated_by=tree
        )
        try:
            site.start()
            yield site
        finally:
            site.stop()
            delete_redis_keys(REDIS_URL, prefix)


def scenario_migrate(args: argparse.Namespace, workdir: Path) -> None:
    log(f"migrate: {args.migrate_runs} x (migrate games 0019, migrate games) during play")
    tally, runs = Tally(), []
    with site_on(REPO, workdir / "migrate") as site:
        before = database_deadlocks(site.database_url)

        def migrations() -> None:
            for index in range(args.migrate_runs):
                for target in (("games", "0019"), ("games",)):
                    runs.append(run_migrate(site, REPO, args.lock_timeout, *target))
                last = runs[-2:]
                log(
                    f"run {index + 1}: "
                    + "; ".join(
                        f"{r.command} rc {r.returncode} {r.seconds:.1f} s"
                        f" ({r.lock_timeouts} lock timeouts, {r.deadlock_victims} deadlocks)"
                        for r in last
                    )
                    + f"; load {load()}"
                )

        asyncio.run(with_players(site, args, tally, migrations))
        deadlocks = database_deadlocks(site.database_url) - before
        report(
            f"migrate during play, lock timeout {args.lock_timeout} s", tally, site, deadlocks, runs
        )


def scenario_upgrade(args: argparse.Namespace, workdir: Path) -> None:
    reason = unavailable(PREVIOUS_RELEASE)
    if reason:
        log(f"upgrade: skipped: {reason}")
        return
    old = extract(PREVIOUS_RELEASE, workdir / "releases")
    log(f"upgrade: release {PREVIOUS_RELEASE[:10]} serving, then this checkout, during play")
    tally, runs = Tally(), []
    with site_on(old, workdir / "upgrade") as site:
        before = database_deadlocks(site.database_url)

        def upgrade() -> None:
            runs.append(run_migrate(site, REPO, args.lock_timeout))
            log(f"new migrations applied while the old code serves: {runs[-1].seconds:.1f} s")
            log(runs[-1].output.strip().replace("\n", " | "))
            for name in ("A", "B"):
                site.replace_web(name, REPO)
                log(f"Daphne {name} now runs this checkout")
                time.sleep(args.warm_up)
            site.replace_worker_and_beat(REPO)
            log("worker and beat now run this checkout")
            time.sleep(args.warm_up)

        asyncio.run(with_players(site, args, tally, upgrade))
        deadlocks = database_deadlocks(site.database_url) - before
        report("upgrade from the previous release during play", tally, site, deadlocks, runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", choices=["migrate", "upgrade", "both"], default="both")
    parser.add_argument("--migrate-runs", type=int, default=20)
    parser.add_argument(
        "--lock-timeout",
        default="0.5",
        help="BOGGLE_MIGRATE_LOCK_TIMEOUT for the runs (0: Django's own wait without a bound)",
    )
    parser.add_argument("--rooms", type=int, default=3)
    parser.add_argument("--room-size", type=int, default=4)
    parser.add_argument("--round-seconds", type=float, default=8.0)
    parser.add_argument("--word-interval", type=float, default=0.7)
    parser.add_argument("--warm-up", type=float, default=5.0, help="seconds of play before")
    parser.add_argument("--logs", type=Path, help="keep the processes' logs here (a new folder)")
    args = parser.parse_args()
    log(f"load average {load()}")
    with tempfile.TemporaryDirectory(prefix="boggle-upgrade-") as tmp:
        workdir = args.logs or Path(tmp)
        if args.scenario in ("migrate", "both"):
            scenario_migrate(args, workdir)
        if args.scenario in ("upgrade", "both"):
            scenario_upgrade(args, workdir)


if __name__ == "__main__":
    main()
