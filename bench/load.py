"""Load client for the Boggle site: many players, real sockets, honest figures.

    python bench/load.py                                  # embedded: 300 players, rooms of 8
    python bench/load.py --quick                          # a smoke run: 16 players, rooms of 4
    python bench/load.py --players 100 --room-size 100    # one big room
    python bench/load.py --mode production --daphnes 2 --players 600
    python bench/load.py --url http://127.0.0.1:8000      # a site already running
    python bench/load.py --faults                         # four faults, a fresh site each
    python bench/load.py --faults redis,daphne            # some of them

It speaks only the protocol of docs/api.md (the HTTP API and the room websocket). Unless
``--url`` is given it starts the site itself, in one of two modes, and stops every process
it started at the end (also on Ctrl-C or an error):

- embedded: a throwaway SQLite file (``DATABASE_URL=sqlite:///<tmp>/db.sqlite3``), the
  dictionaries built, the database migrated, one Daphne; the channel layer is in memory and
  tasks run in the Daphne process, as with ``bin/start``.
- production: a throwaway PostgreSQL database on 127.0.0.1:5432 (dropped at the end), Redis
  database ``--redis-db`` on 127.0.0.1:6379 (this run's keys under a prefix of their own,
  deleted at the end; nothing else is touched), ``--daphnes`` Daphne
  processes on free ports, one Celery worker (``--concurrency 2``) and Celery beat.
  ``bin/services`` starts PostgreSQL and Redis when they are down.

Both modes set a random ``DJANGO_SECRET_KEY`` (debug off, as in real use) and
``DJANGO_LOG_LEVEL=WARNING`` unless set. The run:

1. burst (``--no-burst`` skips it): three times over, one room is created, then 40 joins of
   it and 10 room creations are released at the same instant, each from a fresh client
   (its own connection, no cookies); every answer that is not 2xx is counted.
2. rooms: the first player of each room creates it with ``round_seconds``, the others join,
   all rooms at once (each POST with an ``Idempotency-Key``, retried twice when no answer or
   a 5xx came); every player opens the room websocket with its token (players spread
   over the Daphnes round-robin, as a proxy would) and keeps the room ``version``.
3. rounds: each host sends ``start_round``; between ``starts_at`` and ``ends_at`` (server
   clock; same machine) every player sends ``submit`` with a fresh ``client_id`` at
   ``--words-per-second`` with a random phase: mostly words the board spells (solved here
   with the repository's solver), some garbage, some repeats. Sending stops at
   ``ends_at``. A player waits up to ``--round-end-wait`` s after ``ends_at`` for
   ``round.ended``, then sends ``sync`` to recover; it waits up to ``--drain-seconds`` after
   ``ends_at`` for the last verdicts. Then the results are read over HTTP. As docs/api.md
   asks, an entry answered ``server_error`` or ``rate_limited`` is sent again (same
   ``client_id``) after 1, 2, 4, 8 s, and after a reconnect the entries of the state's round
   that got no verdict are resent (an older round's are not: they would be judged in the new
   round).

Figures printed at the end (``--json PATH`` writes them too): verdict latency (send to the
``verdict`` with that ``client_id``) and verdicts by kind; deadline to ``round.ended`` per
client and the clients that never got it as an event; HTTP 5xx and other non-2xx (burst and
game apart); lost words (answered ``accepted`` but missing from that player's ``words`` in
the results, or never answered); words sent at least 50 ms before ``ends_at`` answered
``round_over``; missed events (versions a client never received, between its first
``state`` and the highest version any client of the room saw); ``error`` replies by code;
and, for a site it started, SQL statements per accepted word (from
``boggle_site/statement_stats.py``: the processes write their totals every 0.5 s, read at
``starts_at`` and ``ends_at``, so the window lags by up to 0.5 s), the CPU seconds and peak
RSS of all server processes together (psutil, every 0.5 s, whole process trees), and this
client's own CPU and event-loop lag, with a warning when the client itself may be the
bottleneck.

The faults scenario (``--faults``; implies ``--mode production --daphnes 2 --no-burst``, 50
players in rooms of 8, 1 word/s, 30 s rounds) breaks the site mid-round and measures what
the players go through. Each fault runs in its OWN fresh site, one after another, and that
site has a private redis-server (``redis-server --port P --save "" --appendonly no``) and a
private PostgreSQL cluster (``initdb`` into a temporary directory, ``pg_ctl`` on a free
port, as the ``postgres`` user through ``runuser`` when run as root); the shared services on
6379 and 5432 are never used or touched. Both are stopped and their directories removed at
the end, also on Ctrl-C or an error. The faults, ``--fault-at`` (10) s after round 1's
``starts_at``:

- redis: the redis-server is SIGKILLed and started again on its port ``--fault-down`` (2) s
  later, empty;
- postgres: ``pg_ctl stop -m fast``, ``--fault-down`` s, ``pg_ctl start -w``;
- celery: the Celery worker (its process group) is SIGKILLed and a new one started 1 s later;
- daphne: the first of the two Daphnes is SIGKILLed (players are spread round-robin, so with
  rooms of an even size every host's socket is on it); its players reconnect to the other (a
  refused connection goes to another Daphne, as a proxy routes it, and the dead one leaves
  the rotation) except ``--leavers`` of them.

In every fault ``--leavers`` (5) players who are not hosts, one per room, leave the table for
good: they close their socket (1001) half a second into the outage, or, for the Daphne kill,
their socket dies with it, and they never reconnect. The clients behave as docs/api.md
describes the site's own page: after a drop they reconnect with backoff (1 s, 2 s, ... 30 s,
for ever), take the ``state`` as theirs and resend the current round's unanswered entries
with the same ``client_id``; an entry answered ``server_error`` or ``rate_limited`` is sent
again after 1, 2, 4, 8 s; they ``ping`` after 5 s without a message, close and reconnect
after 12 s without one, and ``sync`` when a version gap or a ``pong`` version past theirs
lasts a second. Each room's host sends ``start_round`` for round 2 as soon as it has learned
that round 1 ended (an event, or a state); round 2 is played in full. During the rounds an
HTTP prober reads a room's state every 0.5 s and creates a room every 2 s (with an
``Idempotency-Key``, retried twice). Printed per fault:

- lost words in round 1 and round 2: answered ``accepted`` but missing from the results, or
  never answered and not in the results either (what was resent and answered in the end is
  not lost; the leavers' unanswered words are shown apart); words typed in time but
  answered ``round_over`` (the server never got them before the deadline);
- the round's end: for every client that stayed, whether it learned it (``round.ended``, a
  state after reconnecting, a ``sync``; the bench's own sync ``--round-end-wait`` (60) s after
  ``ends_at`` is the last resort and named as such), p50/max after ``ends_at`` and how many
  took over 2 s;
- ghosts, ``--ghost-after`` (30) s after the fault and after the leavers closed, and again at
  the end: players a fresh ``sync`` state shows ``online: true`` while every socket of theirs
  has been closed for 5 s or more (the leavers among them), and the reverse; and from the
  events, how long after its close each leaver was announced offline (``player.online``
  false), or never, and how many staying players were announced offline;
- the next round: service back (the fault itself for the kills) -> round 2's
  ``round.started``, round 1's deadline -> it, and the host learning that round 1 ended -> it;
- HTTP answers by status and ``error`` replies by code from the fault until 10 s after the
  service was back, and over both rounds; socket drops, reconnects, syncs, resends; error
  lines and the exceptions ending tracebacks in the server logs, and server processes that
  exited by themselves.

A summary table of all faults comes last.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import math
import os
import random
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import psutil  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402
from websockets.exceptions import ConnectionClosed  # noqa: E402

from boggle_site import env as env_settings  # noqa: E402
from boggle_site.network import free_port, free_ports  # noqa: E402
from solver import Lexicon, dictionaries, parse_board, solve  # noqa: E402

# Variables of the caller's environment that would change the site's mode, or what it
# writes where: the site's own list, plus the key, debug and the bench's own folders.
MODE_VARIABLES = env_settings.MODE_VARIABLES | {
    "DJANGO_SECRET_KEY",
    "DJANGO_DEBUG",
    "BOGGLE_DICTIONARY_DIR",
    "BOGGLE_STATEMENT_STATS_DIR",
}
STATS_VARIABLE = "BOGGLE_STATEMENT_STATS_DIR"
ALLOWED_HOSTS = "127.0.0.1,localhost"
PRESETS: dict[str, dict[str, Any]] = {
    "default": {"players": 300, "room_size": 8, "words_per_second": 1.0, "round_seconds": 30},
    "quick": {"players": 16, "room_size": 4, "words_per_second": 1.0, "round_seconds": 30},
    "faults": {"players": 50, "room_size": 8, "words_per_second": 1.0, "round_seconds": 30},
}
BURST_TIMES = 3
BURST_JOINS = 40
BURST_CREATIONS = 10
SLOW_VERDICT_MS = 150  # the floor for verdict p99: when in the round the slower ones were sent
IN_TIME_MARGIN_SECONDS = 0.05  # a word sent this long before ends_at arrived in time
CLIENT_CPU_WARNING = 0.85  # share of one core
CLOSE_NO_RECONNECT = {1000, 4001, 4403, 4404}
KNOWN_TYPES = {
    "player.joined",
    "player.left",
    "player.online",
    "host.changed",
    "settings.changed",
    "round.preparing",
    "round.counts",
    "challenge.opened",
    "challenge.ruled",
    "round.rescored",
    "board.reading",
    "board.read",
    "board.unreadable",
    "ok",
    "pong",
    "kicked",
}
GARBAGE_LETTERS = "bcdfghjklmnpqrstvwxz"

_started = time.monotonic()


def log(message: str) -> None:
    print(f"[{time.monotonic() - _started:7.1f}s] {message}", file=sys.stderr, flush=True)


def percentile(values: list[float], p: float) -> float | None:
    """Nearest-rank percentile of ``values`` (None when empty)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def summary(values: list[float], points: Iterable[float] = (50, 95, 99)) -> dict[str, Any]:
    result: dict[str, Any] = {"n": len(values)}
    for p in points:
        value = percentile(values, p)
        result[f"p{p:g}"] = None if value is None else round(value, 1)
    result["max"] = round(max(values), 1) if values else None
    return result


def format_summary(data: dict[str, Any]) -> str:
    if not data["n"]:
        return "no data"
    parts = [f"{key} {value:,.0f}" for key, value in data.items() if key not in ("n",)]
    return ", ".join(parts) + f" (n={data['n']:,})"


def is_refused(error: str) -> bool:
    """An HTTP or websocket attempt that found nobody listening (a dead backend)."""
    return "refused" in error.lower()


# ------------------------------------------------------------------------------- HTTP


@dataclass
class HttpResult:
    status: int  # 0: no answer (refused, reset, timed out)
    body: Any
    error: str  # the API's error code, or what went wrong without an answer
    seconds: float

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


# No proxies and no cookie jar: every request is a fresh client.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def http_call(
    base: str,
    method: str,
    path: str,
    body: dict[str, Any] | None = None,
    token: str | None = None,
    timeout: float = 60.0,
    idempotency_key: str | None = None,
) -> HttpResult:
    """One HTTP request; never raises."""
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Accept": "application/json"}
    if idempotency_key:
        headers["Idempotency-Key"] = idempotency_key
    if data is not None:
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    started = time.perf_counter()
    try:
        with _OPENER.open(request, timeout=timeout) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as error:
        status = error.code
        try:
            raw = error.read()
        except Exception:
            raw = b""
    except Exception as error:
        return HttpResult(
            0, None, f"{type(error).__name__}: {error}", time.perf_counter() - started
        )
    seconds = time.perf_counter() - started
    try:
        parsed = json.loads(raw) if raw else None
    except ValueError:
        parsed = None
    code = ""
    if not 200 <= status < 300:
        if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict):
            code = str(parsed["error"].get("code"))
        else:
            code = raw[:80].decode("utf-8", "replace").strip().replace("\n", " ") or "(empty)"
    return HttpResult(status, parsed, code, seconds)


class HttpTally:
    """HTTP answers of one phase, by status."""

    def __init__(self) -> None:
        self.requests = 0
        self.by_status: Counter[int] = Counter()
        self.no_answer: Counter[str] = Counter()
        self.seconds: list[float] = []
        self.examples: Counter[str] = Counter()

    def record(self, what: str, result: HttpResult) -> None:
        self.requests += 1
        if result.status == 0:
            self.no_answer[result.error.split(":", 1)[0]] += 1
            self.examples[f"{what}: no answer ({result.error[:100]})"] += 1
            return
        self.by_status[result.status] += 1
        self.seconds.append(result.seconds * 1000)
        if not result.ok:
            self.examples[f"{what}: {result.status} {result.error[:100]}"] += 1

    @property
    def server_errors(self) -> int:
        return sum(count for status, count in self.by_status.items() if status >= 500)

    @property
    def other_non_2xx(self) -> int:
        return sum(c for status, c in self.by_status.items() if status < 200 or 300 <= status < 500)

    def to_dict(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "2xx": sum(c for s, c in self.by_status.items() if 200 <= s < 300),
            "5xx": self.server_errors,
            "other_non_2xx": self.other_non_2xx,
            "no_answer": sum(self.no_answer.values()),
            "by_status": {str(k): v for k, v in sorted(self.by_status.items())},
            "latency_ms": summary(self.seconds),
            "examples": dict(self.examples.most_common(5)),
        }


# ------------------------------------------------------------------ server processes


class ProcessMonitor:
    """CPU seconds and RSS of process trees, sampled every 0.5 s in a thread."""

    def __init__(self) -> None:
        self.roots: dict[str, int] = {}
        self._processes: dict[int, psutil.Process] = {}
        self._cpu: dict[int, float] = {}
        self._group: dict[int, str] = {}
        self.peak_rss = 0
        self.peak_rss_by_group: Counter[str] = Counter()
        self.cpu_total = 0.0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def add(self, name: str, pid: int) -> None:
        with self._lock:
            self.roots[name] = pid

    def sample(self) -> float:
        """Take a sample now; returns CPU seconds used so far by every process seen."""
        with self._lock:
            rss_by_group: Counter[str] = Counter()
            for name, pid in self.roots.items():
                try:
                    root = self._process(pid)
                    tree = [root, *root.children(recursive=True)]
                except (psutil.Error, OSError):
                    continue
                for process in tree:
                    try:
                        with process.oneshot():
                            times = process.cpu_times()
                            rss = process.memory_info().rss
                    except (psutil.Error, OSError):
                        continue
                    self._cpu[process.pid] = times.user + times.system
                    self._group[process.pid] = name
                    rss_by_group[name] += rss
            total_rss = sum(rss_by_group.values())
            self.peak_rss = max(self.peak_rss, total_rss)
            for name, rss in rss_by_group.items():
                self.peak_rss_by_group[name] = max(self.peak_rss_by_group[name], rss)
            self.cpu_total = sum(self._cpu.values())
            return self.cpu_total

    def cpu_by_group(self) -> dict[str, float]:
        with self._lock:
            result: dict[str, float] = {}
            for pid, seconds in self._cpu.items():
                result[self._group[pid]] = result.get(self._group[pid], 0.0) + seconds
            return {name: round(seconds, 1) for name, seconds in result.items()}

    def _process(self, pid: int) -> psutil.Process:
        process = self._processes.get(pid)
        if process is None or not process.is_running():
            process = self._processes[pid] = psutil.Process(pid)
        return process

    def start(self) -> None:
        def loop() -> None:
            while not self._stop.wait(0.5):
                self.sample()

        self._thread = threading.Thread(target=loop, name="process-monitor", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)


@dataclass
class Started:
    name: str
    process: subprocess.Popen[bytes]
    log_path: Path
    killed: bool = False  # killed on purpose (--faults) and reaped: nothing left to stop


class PrivateRedis:
    """A redis-server of this run alone on a free port (--faults), without persistence, so
    that it can be killed and started again: a restart loses everything, as a cache without
    a disk does."""

    def __init__(self, workdir: Path) -> None:
        self.dir = workdir
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.log_path = self.dir / "redis.log"
        self.process: subprocess.Popen[bytes] | None = None

    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def start(self, timeout: float = 20.0) -> float:
        """Start it (again) on its port; returns the wall time it answered PING."""
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        with self.log_path.open("ab") as output:
            self.process = subprocess.Popen(
                [
                    *(binary, "--port", str(self.port), "--save", "", "--appendonly", "no"),
                    *("--bind", "127.0.0.1", "--dir", str(self.dir)),
                ],
                stdout=output,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        import redis

        client = redis.Redis(port=self.port, socket_connect_timeout=0.5, socket_timeout=0.5)
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise SystemExit(f"load: redis-server exited:\n{self.log_tail()}")
                with contextlib.suppress(Exception):
                    if client.ping():
                        return time.time()
                time.sleep(0.02)
        finally:
            client.close()
        raise SystemExit(f"load: the private redis-server did not answer within {timeout} s")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill()

    def log_tail(self, chars: int = 1500) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""


class PrivatePostgres:
    """A PostgreSQL cluster of this run alone (--faults): ``initdb`` into a temporary
    directory, ``pg_ctl`` on a free port with its socket in that directory; run as the
    ``postgres`` user (``runuser``) when this runs as root. Removed at the end."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="boggle-load-pg-"))
        self.data = self.dir / "pg"
        self.log_path = self.dir / "pg.log"
        self.port = free_port()
        self.as_root = os.geteuid() == 0
        self.initialised = False

    @staticmethod
    def missing() -> str | None:
        for binary in ("initdb", "pg_ctl"):
            if shutil.which(binary) is None:
                return f"{binary} is not on PATH"
        if os.geteuid() == 0 and shutil.which("runuser") is None:
            return "running as root without runuser (PostgreSQL refuses to run as root)"
        return None

    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *command: str, timeout: float = 120.0) -> None:
        full = [shutil.which(command[0]) or command[0], *command[1:]]
        if self.as_root:
            full = ["runuser", "-u", "postgres", "--", *full]
        result = subprocess.run(
            full, capture_output=True, text=True, check=False, timeout=timeout, cwd=self.dir
        )
        if result.returncode != 0:
            raise SystemExit(
                f"load: {' '.join(command[:2])} failed ({result.returncode}):\n"
                f"{(result.stdout + result.stderr)[-2000:]}\n{self.log_tail()}"
            )

    def init(self) -> None:
        why = self.missing()
        if why:
            raise SystemExit(f"load: cannot start a private PostgreSQL: {why}")
        if self.as_root:
            shutil.chown(self.dir, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync")
        self.initialised = True

    def start(self) -> float:
        """Start the cluster; returns the wall time ``pg_ctl -w`` saw it accept connections."""
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1"
        self._run(
            "pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.log_path), "-w", "start"
        )
        return time.time()

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def destroy(self) -> None:
        """Stop it (immediate) if it runs, and remove its directory."""
        if self.initialised and self.running():
            try:
                self.stop("immediate")
            except (SystemExit, subprocess.TimeoutExpired) as error:
                log(f"private PostgreSQL: stop failed: {error}")
                self._kill_postmaster()
        shutil.rmtree(self.dir, ignore_errors=True)

    def _kill_postmaster(self) -> None:
        with contextlib.suppress(OSError, ValueError, IndexError):
            pid = int((self.data / "postmaster.pid").read_text().split()[0])
            os.kill(pid, signal.SIGKILL)

    def log_tail(self, chars: int = 1500) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""


@contextlib.contextmanager
def signals_held() -> Any:
    """Ctrl-C and SIGTERM wait while this runs: a second one must not cut the clean-up short
    (it would leave processes, a private PostgreSQL or a database behind)."""
    previous = {
        number: signal.signal(number, signal.SIG_IGN) for number in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


class Site:
    """The site under test: started here (embedded or production) or given by ``--url``."""

    def __init__(self, args: argparse.Namespace, private: bool = False) -> None:
        self.args = args
        self.mode: str = "url" if args.url else args.mode
        self.urls: list[str] = [url.rstrip("/") for url in args.url or []]
        self.tmp = Path(tempfile.mkdtemp(prefix="boggle-load-"))
        self.stats_dir: Path | None = None
        self.processes: list[Started] = []
        self.monitor = ProcessMonitor()
        self.postgres_db: str | None = None
        self.redis_url: str | None = None
        self.redis_prefix = ""
        self.notes: list[str] = []
        self.ready = False
        # private: a redis-server and a PostgreSQL cluster of this site alone (--faults),
        # instead of --redis-url and --postgres-url; stopped and removed at the end.
        self.private = private
        self.private_redis: PrivateRedis | None = None
        self.private_postgres: PrivatePostgres | None = None
        self.postgres_url: str = args.postgres_url
        self.run_env: dict[str, str] = {}

    # -- starting

    def base_env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in MODE_VARIABLES}
        env.update(
            DJANGO_SETTINGS_MODULE="boggle_site.settings",
            PYTHONUNBUFFERED="1",
            DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
            DJANGO_ALLOWED_HOSTS=",".join([ALLOWED_HOSTS, *getattr(self.args, "extra_hosts", ())]),
        )
        env.setdefault("DJANGO_LOG_LEVEL", "WARNING")
        # Load runs send words, not photos: TensorFlow in the worker (or the embedded
        # Daphne) would only add to the memory figures. bench/abuse.py keeps the default.
        if not getattr(self.args, "preload_reader", False):
            env["BOGGLE_PRELOAD_READER"] = "0"
        return env

    def start(self) -> None:
        if self.mode == "url":
            log(f"using the running site at {', '.join(self.urls)} (nothing started)")
            return
        self.stats_dir = self.tmp / "statements"
        self.stats_dir.mkdir()
        env = self.base_env()
        if self.mode == "embedded":
            env["DATABASE_URL"] = f"sqlite:///{self.tmp / 'db.sqlite3'}"
        else:
            env.update(self._production_services())
        self._setup(env)
        run_env = self.run_env = {**env, STATS_VARIABLE: str(self.stats_dir)}
        venv_bin = Path(sys.executable).parent
        daphnes = 1 if self.mode == "embedded" else self.args.daphnes
        for port in free_ports(daphnes):
            self._spawn(
                f"daphne-{port}",
                [
                    str(venv_bin / "daphne"),
                    "-b",
                    # bench/abuse.py's attacker comes from another of this machine's addresses
                    getattr(self.args, "bind", "127.0.0.1"),
                    "-p",
                    str(port),
                    "boggle_site.asgi:application",
                ],
                run_env,
            )
            self.urls.append(f"http://127.0.0.1:{port}")
        if self.mode == "production":
            celery = str(venv_bin / "celery")
            self._spawn(
                "celery-worker",
                [celery, "-A", "boggle_site", "worker", "-l", "warning", "--concurrency", "2"],
                run_env,
            )
            self._spawn(
                "celery-beat",
                [
                    celery,
                    "-A",
                    "boggle_site",
                    "beat",
                    "-l",
                    "warning",
                    "-s",
                    str(self.tmp / "beat-schedule"),
                ],
                run_env,
            )
        self.monitor.start()
        for url in self.urls:
            self._wait_ready(url)
        if self.mode == "production":
            self._wait_worker()
        log(f"site up: {self.mode}, {', '.join(self.urls)}")

    def _production_services(self) -> dict[str, str]:
        if self.private:
            started = time.monotonic()
            self.private_redis = PrivateRedis(self.tmp / "redis")
            self.private_redis.start()
            self.private_postgres = PrivatePostgres()
            self.private_postgres.init()
            self.private_postgres.start()
            self.postgres_url = self.private_postgres.url()
            redis_server = self.private_redis.url()
            log(
                f"private Redis on :{self.private_redis.port} and PostgreSQL on"
                f" :{self.private_postgres.port} up in {time.monotonic() - started:.1f} s"
            )
        else:
            services = subprocess.run(
                [str(REPO / "bin" / "services")], capture_output=True, text=True, check=False
            )
            for line in services.stdout.splitlines():
                log(line)
            if services.returncode != 0:
                raise SystemExit("load: PostgreSQL or Redis is not reachable (bin/services failed)")
            redis_server = self.args.redis_url
        import psycopg
        from psycopg import sql

        name = f"boggle_load_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.postgres_url, autocommit=True, connect_timeout=5) as conn:
            conn.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
        self.postgres_db = name
        self.redis_url = f"{redis_server.rstrip('/')}/{self.args.redis_db}"
        # Redis is shared: this run's keys carry a prefix of its own and only they are
        # deleted at the end (never a FLUSHDB).
        self.redis_prefix = f"boggle-load-{os.getpid()}-{secrets.token_hex(4)}:"
        log(
            f"PostgreSQL database {name} created; Redis {self.redis_url}, keys {self.redis_prefix}*"
        )
        return {
            "DATABASE_URL": self.postgres_url.rsplit("/", 1)[0] + "/" + name,
            "REDIS_URL": self.redis_url,
            "BOGGLE_REDIS_PREFIX": self.redis_prefix,
            "BOGGLE_DICTIONARY_DIR": str(REPO / "var" / "dictionaries"),
        }

    def _setup(self, env: dict[str, str]) -> None:
        for name, command in (
            ("solver-build", [sys.executable, "-m", "solver", "build"]),
            ("migrate", [sys.executable, "manage.py", "migrate", "--noinput"]),
        ):
            log(f"{' '.join(command[1:])} ...")
            result = subprocess.run(
                command, cwd=REPO, env=env, capture_output=True, text=True, check=False
            )
            (self.tmp / f"{name}.log").write_text(result.stdout + result.stderr)
            if result.returncode != 0:
                tail = (result.stdout + result.stderr)[-3000:]
                raise SystemExit(f"load: {name} failed ({result.returncode}):\n{tail}")

    def _spawn(self, name: str, command: list[str], env: dict[str, str]) -> None:
        log_path = self.tmp / f"{name}.log"
        with log_path.open("ab") as output:
            process = subprocess.Popen(
                command,
                cwd=REPO,
                env=env,
                stdout=output,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # its own process group: stop() ends it and its children
            )
        self.processes.append(Started(name, process, log_path))
        self.monitor.add(name, process.pid)

    def _wait_ready(self, url: str, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.check_alive()
            if http_call(url, "GET", "/api/dictionaries", timeout=5).status == 200:
                return
            time.sleep(0.25)
        raise SystemExit(f"load: {url} did not answer GET /api/dictionaries within {timeout} s")

    def celery_client(self) -> Any:
        """A Celery app on this site's broker and key prefix (for control pings)."""
        from celery import Celery

        app = Celery()
        app.conf.update(
            env_settings.celery_config(
                {"REDIS_URL": self.redis_url or "", "BOGGLE_REDIS_PREFIX": self.redis_prefix}
            )
        )
        return app

    def _wait_worker(self, timeout: float = 60.0) -> None:
        """Wait until the Celery worker answers a control ping through the broker."""
        app = self.celery_client()
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                self.check_alive()
                with contextlib.suppress(Exception):
                    if app.control.ping(timeout=1.0):
                        return
                time.sleep(0.5)
        finally:
            with contextlib.suppress(Exception):
                app.close()
        self.notes.append(f"the Celery worker did not answer a ping within {timeout:.0f} s")

    def check_alive(self) -> None:
        """Stop the run when a process it started has exited during start-up."""
        dead = [s.name for s in self.processes if s.process.poll() is not None]
        if dead:
            logs = "\n".join(f"--- {s.name}:\n{self.log_tail(s)}" for s in self.processes)
            raise SystemExit(f"load: {', '.join(dead)} exited during start-up\n{logs}")

    @staticmethod
    def log_tail(started: Started, chars: int = 2000) -> str:
        try:
            return started.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    # -- faults (--faults)

    def kill(self, started: Started) -> None:
        """SIGKILL a process this run started, with its whole group (a supervisor's
        cgroup kill: Celery's pool children go too)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(started.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            started.process.wait(timeout=10)
        started.killed = True

    def find(self, prefix: str) -> list[Started]:
        return [s for s in self.processes if s.name.startswith(prefix) and not s.killed]

    def start_worker(self, name: str) -> None:
        """Another Celery worker, as a supervisor starts one after a crash."""
        celery = str(Path(sys.executable).parent / "celery")
        self._spawn(
            name,
            [celery, "-A", "boggle_site", "worker", "-l", "warning", "--concurrency", "2"],
            self.run_env,
        )

    def worker_answers(self, timeout: float = 60.0) -> float | None:
        """Wait until a Celery worker answers a control ping; its wall time, or None."""
        app = self.celery_client()
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                with contextlib.suppress(Exception):
                    if app.control.ping(timeout=0.5):
                        return time.time()
                time.sleep(0.2)
        finally:
            with contextlib.suppress(Exception):
                app.close()
        return None

    # -- measuring

    def statements(self) -> dict[str, Any] | None:
        """Statement totals over every server process's file (None without files)."""
        if self.stats_dir is None:
            return None
        total: Counter[str] = Counter()
        kinds: Counter[str] = Counter()
        transaction: Counter[str] = Counter()
        files = 0
        for path in self.stats_dir.glob("statements-*.json"):
            try:
                data = json.loads(path.read_text())
            except (OSError, ValueError):
                continue
            files += 1
            total["statements"] += int(data.get("statements", 0))
            kinds.update(data.get("by_kind", {}))
            transaction.update(data.get("transaction", {}))
        return {
            "files": files,
            "statements": total["statements"],
            "by_kind": kinds,
            "transaction": transaction,
        }

    def server_logs(self) -> dict[str, Any]:
        """Error lines in the started processes' logs."""
        errors: Counter[str] = Counter()
        exceptions: Counter[str] = Counter()  # the last line of each traceback
        lines = tracebacks = 0
        pattern = re.compile(r"\b(ERROR|CRITICAL)\b")
        for started in self.processes:
            try:
                text = started.log_path.read_text(errors="replace")
            except OSError:
                continue
            in_traceback = False
            for line in text.splitlines():
                if line.startswith("Traceback"):
                    tracebacks += 1
                    in_traceback = True
                elif in_traceback and line and not line[0].isspace():
                    if not line.startswith(("During handling", "The above exception")):
                        exceptions[f"{started.name}: {line.strip()[:160]}"] += 1
                        in_traceback = False
                elif pattern.search(line):
                    lines += 1
                    short = re.sub(r"^\d{4}-\d\d-\d\d [\d:,.]+ ", "", line.strip())[:160]
                    errors[f"{started.name}: {short}"] += 1
        return {
            "error_lines": lines,
            "tracebacks": tracebacks,
            "most_common": dict(errors.most_common(5)),
            "traceback_exceptions": dict(exceptions.most_common(5)),
        }

    # -- stopping

    def stop(self) -> None:
        self.monitor.stop()
        alive = [s for s in self.processes if not s.killed]  # the killed ones are reaped
        for started in reversed(alive):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(started.process.pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        for started in alive:
            with contextlib.suppress(subprocess.TimeoutExpired):
                started.process.wait(timeout=max(0.1, deadline - time.monotonic()))
        for started in alive:
            # The group may hold children still (Celery's pool) even when the leader is gone.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(started.process.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                started.process.wait(timeout=5)
        if self.private:
            # The whole private cluster and redis-server go: nothing to drop or flush.
            if self.private_postgres is not None:
                if self.args.keep_tmp:
                    with contextlib.suppress(OSError):
                        shutil.copy(self.private_postgres.log_path, self.tmp / "pg.log")
                self.private_postgres.destroy()
                log(f"private PostgreSQL stopped, {self.private_postgres.dir} removed")
            if self.private_redis is not None:
                self.private_redis.stop()
                log("private Redis stopped")
            self.postgres_db = self.redis_url = None
        if self.postgres_db:
            try:
                import psycopg
                from psycopg import sql

                with psycopg.connect(self.postgres_url, autocommit=True, connect_timeout=5) as conn:
                    conn.execute(
                        sql.SQL("drop database if exists {} with (force)").format(
                            sql.Identifier(self.postgres_db)
                        )
                    )
                log(f"PostgreSQL database {self.postgres_db} dropped")
            except Exception as error:
                log(f"could not drop PostgreSQL database {self.postgres_db}: {error}")
        if self.redis_url:
            try:
                import redis

                with redis.Redis.from_url(self.redis_url, socket_timeout=5) as client:
                    keys = list(client.scan_iter(match=self.redis_prefix + "*", count=1000))
                    for start in range(0, len(keys), 500):
                        client.unlink(*keys[start : start + 500])
                log(f"Redis: {len(keys)} keys {self.redis_prefix}* deleted")
            except Exception as error:
                log(f"could not delete the keys {self.redis_prefix}* in {self.redis_url}: {error}")
        if self.args.keep_tmp:
            log(f"logs and files kept in {self.tmp}")
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)


# ------------------------------------------------------------------------ the players


@dataclass
class Pending:
    word: str
    round_number: int
    sent_perf: float  # time.perf_counter() when the player meant to send it
    first_sent_wall: float | None = None  # when a send first went out on a socket
    resent: bool = False  # sent again after a reconnect or a server_error
    typed_wall: float = field(default_factory=time.time)  # when the player typed it
    retries: int = 0  # resends after server_error / rate_limited


@dataclass
class Metrics:
    verdict_ms: list[float] = field(default_factory=list)
    # seconds after ends_at (negative: before) at which a verdict slower than SLOW_VERDICT_MS was sent
    slow_verdict_sent: list[float] = field(default_factory=list)
    verdicts: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)  # every error reply, by code
    submit_errors: Counter[str] = field(default_factory=Counter)
    words_sent: Counter[str] = field(default_factory=Counter)
    words_unsent: int = 0  # meant to be sent while the socket was down, sent later
    send_lag_ms: list[float] = field(default_factory=list)
    round_ended_ms: list[float] = field(default_factory=list)
    round_ended_never: int = 0
    round_ended_by_sync: int = 0
    round_ended_not_even_sync: int = 0
    round_ended_later: int = 0  # arrived as an event after the wait
    in_time_round_over: int = 0
    in_time_round_over_examples: list[str] = field(default_factory=list)
    resent_round_over: int = 0
    lost_missing: int = 0
    lost_missing_examples: list[str] = field(default_factory=list)
    never_answered: int = 0
    never_sent: int = 0  # of those, never went out (the socket was down)
    answered_after_drain: int = 0
    in_results_not_seen_accepted: int = 0
    results_unavailable: int = 0
    missed_events: int = 0
    missed_events_reconnected: int = 0  # of those, on clients that reconnected
    clients_with_gaps: int = 0
    missed_by_type: Counter[str] = field(default_factory=Counter)
    received: Counter[Any] = field(default_factory=Counter)  # messages by type
    out_of_order: int = 0
    duplicate_events: int = 0
    connect_failures: Counter[str] = field(default_factory=Counter)
    socket_drops: Counter[str] = field(default_factory=Counter)
    reconnects: int = 0
    reconnect_failures: Counter[str] = field(default_factory=Counter)
    odd: Counter[str] = field(default_factory=Counter)
    round_started_missed: int = 0  # client had to sync to learn the round had started
    round_never_started_for_client: int = 0
    rounds_not_started: list[str] = field(default_factory=list)
    accepted_in_window: int = 0
    accepted_total: int = 0
    # --faults: what the documented client did to recover
    resends_after_error: Counter[str] = field(default_factory=Counter)
    resends_after_reconnect: int = 0
    reconnect_ms: list[float] = field(default_factory=list)  # drop -> next state
    syncs: Counter[str] = field(default_factory=Counter)  # why the client sent sync
    keepalive_closes: int = 0  # nothing heard for 12 s: closed and reconnected
    failovers: int = 0  # a connection refused by one Daphne went to another (the proxy)


class Run:
    """Shared state of one load run."""

    def __init__(self, args: argparse.Namespace, site: Site) -> None:
        self.args = args
        self.site = site
        self.metrics = Metrics()
        self.game_http = HttpTally()
        self.burst_http = HttpTally()
        self.rng = random.Random(args.seed)
        self.window_open = False
        self.closing = False
        self.phase = "setting up"
        self.pool = ThreadPoolExecutor(max_workers=64, thread_name_prefix="http")
        self.lexicons: dict[str, Lexicon] = {}
        self.solutions: dict[tuple[str, str, int], list[str]] = {}
        self._next_url = 0
        # --faults: the client behaves like the site's own page (pings, syncs on gaps,
        # reconnects for ever), a refused connection goes to another Daphne (the proxy's
        # job), and every HTTP answer and error reply is logged with its time.
        self.fault_mode = bool(getattr(args, "faults", None))
        self.http_log: list[tuple[float, str, HttpResult]] = []
        self.error_log: list[tuple[float, str, str]] = []
        self.background: set[asyncio.Task[Any]] = set()

    def spawn(self, coroutine: Any) -> asyncio.Task[Any]:
        """A task kept referenced until it is done."""
        task = asyncio.create_task(coroutine)
        self.background.add(task)
        task.add_done_callback(self.background.discard)
        return task

    def url(self) -> str:
        url = self.site.urls[self._next_url % len(self.site.urls)]
        self._next_url += 1
        return url

    async def http(
        self,
        what: str,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        token: str | None = None,
        base: str | None = None,
        idempotency_key: str | None = None,
    ) -> HttpResult:
        loop = asyncio.get_running_loop()
        routed = base is None
        base = base or self.url()
        sent = time.time()
        result = await loop.run_in_executor(
            self.pool,
            lambda: http_call(base, method, path, body, token, idempotency_key=idempotency_key),
        )
        if routed and self.fault_mode and is_refused(result.error):
            # A proxy sends a request whose backend refused the connection to another one.
            for other in self.site.urls:
                if other == base:
                    continue
                call = functools.partial(
                    http_call, other, method, path, body, token, idempotency_key=idempotency_key
                )
                result = await loop.run_in_executor(self.pool, call)
                if not is_refused(result.error):
                    break
        self.game_http.record(what, result)
        if self.fault_mode:
            self.http_log.append((sent, what, result))
        return result

    def solution(self, round_: dict[str, Any]) -> list[str]:
        """The words the round's board spells, by the repository's solver (cached)."""
        key = (
            str(round_.get("board")),
            str(round_.get("dictionary")),
            int(round_.get("min_length") or 3),
        )
        words = self.solutions.get(key)
        if words is None:
            try:
                lexicon = self.lexicon(key[1])
                words = [found.word for found in solve(parse_board(key[0]), lexicon, key[2]).words]
            except Exception as error:
                self.metrics.odd[f"could not solve the board: {type(error).__name__}"] += 1
                words = []
            self.solutions[key] = words
        return words

    def lexicon(self, name: str) -> Lexicon:
        lexicon = self.lexicons.get(name)
        if lexicon is None:
            lexicon = self.lexicons[name] = dictionaries.load(name)
        return lexicon


class Room:
    def __init__(self, index: int, size: int) -> None:
        self.index = index
        self.size = size
        self.code: str | None = None
        self.players: list[Player] = []
        self.host: Player | None = None
        self.max_version = 0
        self.version_types: dict[int, str] = {}  # as some client of the room saw it
        self.round_info: dict[int, dict[str, Any]] = {}
        self.round_seen: dict[int, asyncio.Event] = {}
        self.start_settled: dict[int, asyncio.Event] = {}
        self.start_failed: dict[int, str] = {}
        self.host_id: int | None = None  # as the latest state or host.changed said
        # player.online events as the room's clients first got them: version -> (id, online,
        # wall time)
        self.presence_events: dict[int, tuple[int, bool, float]] = {}
        self.results: dict[int, dict[str, Any] | None] = {}  # read over HTTP (--faults)

    def current_host(self) -> Player | None:
        """The player the server names host (a host who was away may have handed over)."""
        if self.host_id is not None:
            for player in self.players:
                if player.id == self.host_id:
                    return player
        return self.host

    def seen_event(self, number: int) -> asyncio.Event:
        return self.round_seen.setdefault(number, asyncio.Event())

    def settled_event(self, number: int) -> asyncio.Event:
        return self.start_settled.setdefault(number, asyncio.Event())

    def note_round(self, round_: dict[str, Any]) -> None:
        number = round_.get("number")
        if isinstance(number, int) and number not in self.round_info:
            self.round_info[number] = round_
            self.seen_event(number).set()


class Player:
    """One player: an HTTP identity and one websocket."""

    def __init__(self, run: Run, room: Room, index: int, base: str) -> None:
        self.run = run
        self.m = run.metrics
        self.room = room
        self.index = index
        self.base = base
        self.nickname = f"p{index}"
        self.id: int | None = None
        self.token: str | None = None
        self.ws: ClientConnection | None = None
        self.connected = asyncio.Event()
        self.gone = False  # closed for good (refused, kicked, given up)
        self.reconnected = False
        self.reader: asyncio.Task[None] | None = None
        self.first_version: int | None = None
        self.seen: set[int] = set()
        self.max_seen = 0
        self.rounds: dict[int, dict[str, Any]] = {}
        self.round_started: dict[int, asyncio.Event] = {}
        self.round_ended_at: dict[int, float] = {}
        self.round_ended_event: dict[int, asyncio.Event] = {}
        self.round_end_given_up: set[int] = set()
        self.ends_at: dict[int, float] = {}
        self.pending: dict[str, Pending] = {}
        self.outstanding: Counter[int] = Counter()
        self.abandoned: set[str] = set()
        self.answered: set[str] = set()
        self.accepted: dict[int, set[str]] = {}
        self.waiters: dict[str, asyncio.Future[dict[str, Any] | None]] = {}
        self._request = 0
        # How and when this client learned that round n ended / was running: (wall, how).
        self.learned_end: dict[int, tuple[float, str]] = {}
        self.learned_start: dict[int, tuple[float, str]] = {}
        self.state_round: int | None = None  # the round of the latest state received
        self.typed: Counter[int] = Counter()  # entries typed, by round
        self.unanswered: dict[int, list[Pending]] = {}  # given up at the drain, by round
        self.late_round_over: dict[int, Counter[str]] = {}  # typed in time, answered round_over
        # --faults: the page's liveness rules and the client's applied version
        self.keepalive_task: asyncio.Task[None] | None = None
        self.last_heard = time.monotonic()
        self.last_ping = 0.0
        self.applied = 0  # the version of the state plus the events applied in order since
        self.ahead: set[int] = set()  # versions received past a gap
        self.gap_since: float | None = None
        self.behind: tuple[int, float] | None = None  # (pong version, when) past ours
        self.syncing = False
        self.force_reconnect = False
        self.leave_on_drop = False  # closes for good: does not reconnect
        self.left_at: float | None = None  # wall time it went away for good
        self.closed_since: float | None = None  # wall time its socket closed, while closed

    # -- HTTP

    async def create(self, round_seconds: int) -> bool:
        body = {"nickname": self.nickname, "settings": {"round_seconds": round_seconds}}
        key = uuid.uuid4().hex  # a retry is the same request (docs/api.md, retrying)
        for _ in range(3):
            result = await self.run.http(
                "create room", "POST", "/api/rooms", body, idempotency_key=key
            )
            if result.ok and self._credentials(result.body):
                self.room.code = result.body["room"]["code"]
                return True
            if 400 <= result.status < 500:
                return False
            await asyncio.sleep(1)
        return False

    async def join(self) -> bool:
        body = {"nickname": self.nickname}
        path = f"/api/rooms/{self.room.code}/join"
        key = uuid.uuid4().hex
        for attempt in range(3):
            result = await self.run.http("join room", "POST", path, body, idempotency_key=key)
            if result.ok and self._credentials(result.body):
                return True
            if 400 <= result.status < 500:
                if attempt and result.status == 409:
                    self.m.odd["a retried join (same Idempotency-Key) answered 409"] += 1
                return False
            await asyncio.sleep(1)
        return False

    def _credentials(self, body: Any) -> bool:
        try:
            self.id = int(body["player"]["id"])
            self.token = str(body["player"]["token"])
            return True
        except (KeyError, TypeError, ValueError):
            self.m.odd["HTTP answer without player id/token"] += 1
            return False

    # -- websocket

    def ws_url(self, base: str | None = None) -> str:
        return (base or self.base).replace("http://", "ws://", 1).replace(
            "https://", "wss://", 1
        ) + f"/ws/rooms/{self.room.code}/?token={self.token}"

    async def _connect(self) -> tuple[ClientConnection | None, str]:
        """Open the socket and read its first message: (socket, "") once a ``state`` came,
        else (None, why); "refused: ..." when the server said not to come back."""
        bases = [self.base]
        if self.run.fault_mode:
            # The proxy's part: a Daphne that refuses connections is skipped for the others.
            bases += [url for url in self.run.site.urls if url != self.base]
        ws: ClientConnection | None = None
        why = ""
        for base in bases:
            try:
                ws = await connect(
                    self.ws_url(base),
                    compression=None,  # as cheap for the client as it can be
                    open_timeout=60,
                    ping_interval=None,  # the server decides when a socket is dead
                    close_timeout=2,
                    max_size=None,
                    max_queue=1024,
                    proxy=None,
                )
            except Exception as error:
                why = type(error).__name__
                if isinstance(error, ConnectionRefusedError) or is_refused(str(error)):
                    continue
                return None, why
            if base != self.base:
                self.m.failovers += 1
                self.base = base
            break
        if ws is None:
            return None, why
        try:
            first = await asyncio.wait_for(ws.recv(), 60)
        except Exception as error:
            with contextlib.suppress(Exception):
                await ws.close()
            return None, f"closed before the first message: {type(error).__name__} {ws.close_code}"
        self.ws = ws
        if self.handle(first) == "state":
            return ws, ""
        with contextlib.suppress(Exception):
            await ws.close()
        self.ws = None
        return None, f"refused: {str(first)[:80]}"

    async def open(self) -> bool:
        """Connect and read the first ``state`` (three tries); True when playing."""
        for attempt in range(3):
            ws, why = await self._connect()
            if ws is not None and self.first_version is not None:
                self.connected.set()
                self.reader = asyncio.create_task(self.read())
                if self.run.fault_mode:
                    self.keepalive_task = asyncio.create_task(self.keepalive())
                return True
            self.m.connect_failures[why or "no state version"] += 1
            if why.startswith("refused"):
                return False
            await asyncio.sleep(1 + attempt)
        return False

    async def read(self) -> None:
        while True:
            ws = self.ws
            if ws is None:
                return
            try:
                async for raw in ws:
                    self.handle(raw)
            except ConnectionClosed:
                pass
            except Exception as error:
                self.m.odd[f"reader: {type(error).__name__}"] += 1
            self.connected.clear()
            if self.run.closing:
                return
            self.closed_since = time.time()
            code = ws.close_code
            forced, self.force_reconnect = self.force_reconnect, False
            if self.leave_on_drop:
                # This player left the table: nothing more from it (no reconnect).
                self.left_at = self.left_at or self.closed_since
                self.gone = True
                self.fail_waiters()
                return
            what = "closed by this client after 12 s of silence" if forced else code
            self.m.socket_drops[f"{what} ({self.run.phase})"] += 1
            self.fail_waiters()  # their answers went with the socket
            if (code in CLOSE_NO_RECONNECT and not forced) or not await self.reconnect():
                self.gone = True
                self.fail_waiters()
                return

    async def reconnect(self) -> bool:
        """Reconnect with backoff as docs/api.md says (1 s, 2 s, 4 s ... up to 30 s; six
        tries, for ever with --faults); resend the current round's unanswered entries."""
        delay = 1.0
        dropped = time.time()
        attempt = 0
        while self.run.fault_mode or attempt < 6:
            attempt += 1
            await asyncio.sleep(delay)
            delay = min(30.0, delay * 2)
            if self.run.closing or self.leave_on_drop:
                return False
            ws, why = await self._connect()
            if ws is None:
                self.m.reconnect_failures[why] += 1
                if why.startswith("refused"):
                    return False
                continue
            if self.leave_on_drop:
                with contextlib.suppress(Exception):
                    await ws.close()
                return False
            self.m.reconnects += 1
            self.m.reconnect_ms.append((time.time() - dropped) * 1000)
            self.closed_since = None
            self.last_heard = time.monotonic()
            self.connected.set()
            self.reconnected = True
            # docs/api.md: resend every entry of the current round (the state's) that got
            # no verdict, with the same client_id. An older round's entry is not resent: it
            # would be judged in the new round.
            for client_id, entry in list(self.pending.items()):
                if entry.round_number != self.state_round:
                    continue
                entry.resent = True
                self.m.resends_after_reconnect += 1
                await self.send_entry(client_id, entry)
            return True
        return False

    def current_round(self) -> int | None:
        numbers = [*self.rounds, *([self.state_round] if self.state_round else [])]
        return max(numbers) if numbers else None

    async def resend_later(self, client_id: str, entry: Pending, delay: float) -> None:
        """An entry answered server_error or rate_limited: send it again (same client_id)."""
        await asyncio.sleep(delay)
        if self.pending.get(client_id) is not entry or self.gone:
            return
        if entry.round_number != self.current_round() or not self.connected.is_set():
            return  # a reconnect resends it (if its round is still the current one)
        entry.resent = True
        await self.send_entry(client_id, entry)

    async def keepalive(self) -> None:
        """The site's page (docs/api.md): ping after 5 s without a message; nothing heard
        for 12 s closes the socket and reconnects; a version gap held for a second, or a
        pong whose version is past ours still a second later, sends sync."""
        while not self.run.closing and not self.gone:
            await asyncio.sleep(0.25)
            ws = self.ws
            if ws is None or not self.connected.is_set():
                continue
            now = time.monotonic()
            silent = now - self.last_heard
            if silent >= 12.0:
                self.m.keepalive_closes += 1
                self.force_reconnect = True
                self.last_heard = now
                self.run.spawn(ws.close(code=4000, reason="nothing heard for 12 s"))
                continue
            if silent >= 5.0 and now - self.last_ping >= 5.0:
                self.last_ping = now
                await self.send({"type": "ping", "client_time": int(time.time() * 1000)})
            reason = None
            if self.gap_since is not None and now - self.gap_since >= 1.0:
                reason = "version gap held 1 s"
            elif self.behind is not None and now - self.behind[1] >= 1.0:
                if self.behind[0] > self.applied:
                    reason = "pong version past ours"
                else:
                    self.behind = None
            if reason and not self.syncing:
                self.syncing = True
                self.m.syncs[reason] += 1
                self.run.spawn(self._sync_now())

    async def _sync_now(self) -> None:
        try:
            await self.sync_state(10)
        finally:
            self.syncing = False  # the state (if it came) reset the gap; a gap left re-syncs
            self.behind = None

    async def go_away(self) -> None:
        """Leave the table for good without a word (a closed tab): close, never come back."""
        self.leave_on_drop = True
        self.left_at = time.time()
        self.gone = True
        ws = self.ws
        if ws is not None and self.connected.is_set():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(code=1001), 5)

    async def send(self, message: dict[str, Any]) -> bool:
        ws = self.ws
        if ws is None or not self.connected.is_set():
            return False
        try:
            await ws.send(json.dumps(message))
            return True
        except Exception:
            return False

    async def request(self, message: dict[str, Any], timeout: float) -> dict[str, Any] | None:
        """Send a message with a request_id; its direct answer, or None."""
        self._request += 1
        request_id = f"r{self._request}"
        future: asyncio.Future[dict[str, Any] | None] = asyncio.get_running_loop().create_future()
        self.waiters[request_id] = future
        try:
            if not await self.send({**message, "request_id": request_id}):
                return None
            return await asyncio.wait_for(future, max(0.1, timeout))
        except TimeoutError:
            return None
        finally:
            self.waiters.pop(request_id, None)

    def fail_waiters(self) -> None:
        for future in self.waiters.values():
            if not future.done():
                future.set_result(None)

    # -- messages in (keep it small: this runs for every frame)

    def handle(self, raw: str | bytes) -> Any:
        """Take one message in; returns its type."""
        try:
            message = json.loads(raw)
        except ValueError:
            self.m.odd["unparseable message"] += 1
            return None
        if not isinstance(message, dict):
            self.m.odd["message not an object"] += 1
            return None
        kind = message.get("type")
        self.m.received[kind] += 1
        self.last_heard = time.monotonic()
        version = message.get("version")
        if version is not None and kind not in ("state", "pong"):
            self.note_version(version, kind)
        request_id = message.get("request_id")
        if kind == "verdict":
            self.on_verdict(message)
        elif kind == "round.counts":
            pass
        elif kind == "pong":
            if isinstance(version, int) and version > self.applied:
                if self.behind is None or self.behind[0] < version:
                    self.behind = (version, time.monotonic())
            else:
                self.behind = None
        elif kind == "host.changed":
            host_id = message.get("host_id")
            self.room.host_id = host_id if isinstance(host_id, int) else None
        elif kind == "player.online":
            player_id, online = message.get("player_id"), message.get("online")
            if isinstance(version, int) and isinstance(player_id, int):
                self.room.presence_events.setdefault(
                    version, (player_id, online is True, time.time())
                )
        elif kind == "state":
            self.on_state(message)
        elif kind == "round.started":
            self.on_round(message.get("round"))
        elif kind == "round.ended":
            self.on_round_ended(message)
        elif kind == "error":
            self.on_error(message)
        elif kind not in KNOWN_TYPES:
            self.m.odd[f"unknown message type {kind!r}"] += 1
        if request_id is not None and kind != "verdict":
            future = self.waiters.get(str(request_id))
            if future is not None and not future.done():
                future.set_result(message)
        return kind

    def note_version(self, version: Any, kind: Any) -> None:
        if not isinstance(version, int):
            self.m.odd["event version not an integer"] += 1
            return
        if version > self.applied:
            # docs/api.md: apply in order; past a gap, hold (a sync comes after a second).
            self.ahead.add(version)
            while self.applied + 1 in self.ahead:
                self.applied += 1
                self.ahead.discard(self.applied)
            if not self.ahead:
                self.gap_since = None
            elif self.gap_since is None:
                self.gap_since = time.monotonic()
        if version in self.seen:
            self.m.duplicate_events += 1
            return
        self.seen.add(version)
        self.room.version_types.setdefault(version, str(kind))
        if self.first_version is not None and self.first_version < version < self.max_seen:
            self.m.out_of_order += 1
        if version > self.max_seen:
            self.max_seen = version
            if version > self.room.max_version:
                self.room.max_version = version

    def on_state(self, message: dict[str, Any]) -> None:
        state = message.get("state")
        if not isinstance(state, dict) or not isinstance(state.get("version"), int):
            self.m.odd["state without a version"] += 1
            return
        version = state["version"]
        if self.first_version is None:
            self.first_version = version
            self.max_seen = max(self.max_seen, version)
        self.room.max_version = max(self.room.max_version, version)
        # A fresh state replaces the client's: its version is the one applied.
        self.applied = version
        self.ahead = {v for v in self.ahead if v > version}
        self.gap_since = None if not self.ahead else time.monotonic()
        if isinstance(state.get("host_id"), int):
            self.room.host_id = state["host_id"]
        round_ = state.get("round")
        if not isinstance(round_, dict) or not isinstance(round_.get("number"), int):
            return
        number = round_["number"]
        how = "sync" if message.get("request_id") is not None else "state on (re)connect"
        self.state_round = number
        status = round_.get("status")
        for earlier in range(1, number):
            self.learn_end(earlier, how)
        if status == "ended":
            self.learn_end(number, how)
        elif status == "running":
            self.room.note_round(round_)
            if number not in self.rounds:
                self.rounds[number] = round_
                self.learned_start.setdefault(number, (time.time(), how))
                self.started_event(number).set()

    def learn_end(self, number: int, how: str) -> None:
        if number not in self.learned_end:
            self.learned_end[number] = (time.time(), how)
            self.ended_event(number).set()

    def on_round(self, round_: Any) -> None:
        if not isinstance(round_, dict) or not isinstance(round_.get("number"), int):
            self.m.odd["round.started without a round"] += 1
            return
        number = round_["number"]
        self.rounds.setdefault(number, round_)
        self.learned_start.setdefault(number, (time.time(), "event"))
        self.started_event(number).set()
        self.room.note_round(round_)

    def on_round_ended(self, message: dict[str, Any]) -> None:
        now = time.time()
        try:
            number = int(message["results"]["round"]["number"])
        except (KeyError, TypeError, ValueError):
            self.m.odd["round.ended without results.round.number"] += 1
            return
        self.learn_end(number, "event")
        if number in self.round_ended_at:
            return
        self.round_ended_at[number] = now
        if number in self.round_end_given_up:
            self.m.round_ended_later += 1
        self.ended_event(number).set()

    def on_verdict(self, message: dict[str, Any]) -> None:
        client_id = message.get("client_id")
        entry = self.pending.pop(client_id, None) if isinstance(client_id, str) else None
        if entry is None:
            if client_id in self.abandoned:
                self.m.answered_after_drain += 1
            elif client_id not in self.answered:
                self.m.odd["verdict for an unknown client_id"] += 1
            return
        self.answered.add(str(client_id))
        self.outstanding[entry.round_number] -= 1
        verdict_ms = (time.perf_counter() - entry.sent_perf) * 1000
        self.m.verdict_ms.append(verdict_ms)
        ends_at = self.ends_at.get(entry.round_number)
        if verdict_ms > SLOW_VERDICT_MS and ends_at is not None:
            sent_wall = time.time() - verdict_ms / 1000
            self.m.slow_verdict_sent.append(sent_wall - ends_at)
        verdict = message.get("verdict")
        self.m.verdicts[str(verdict)] += 1
        if verdict == "accepted":
            self.accepted.setdefault(entry.round_number, set()).add(str(message.get("word")))
            self.m.accepted_total += 1
            if self.run.window_open:
                self.m.accepted_in_window += 1
        elif verdict == "round_over":
            ends_at = self.ends_at.get(entry.round_number)
            if ends_at is not None and entry.typed_wall <= ends_at - IN_TIME_MARGIN_SECONDS:
                late = self.late_round_over.setdefault(entry.round_number, Counter())
                late["resent" if entry.resent else "first send"] += 1
            sent = entry.first_sent_wall
            if ends_at is None or sent is None or sent > ends_at - IN_TIME_MARGIN_SECONDS:
                return
            if entry.resent:
                # Maybe lost with the dropped socket, resent late: round_over is then right.
                self.m.resent_round_over += 1
                return
            self.m.in_time_round_over += 1
            if len(self.m.in_time_round_over_examples) < 5:
                answered = time.time() - ends_at
                self.m.in_time_round_over_examples.append(
                    f"{entry.word!r} sent {ends_at - sent:.2f} s before ends_at,"
                    f" answered {answered:+.2f} s after it"
                )

    def on_error(self, message: dict[str, Any]) -> None:
        code = str(message.get("code"))
        self.m.errors[code] += 1
        if self.run.fault_mode:
            self.run.error_log.append((time.time(), code, str(message.get("request"))))
        request_id = message.get("request_id")
        entry = self.pending.get(request_id) if isinstance(request_id, str) else None
        if entry is not None and code in ("server_error", "rate_limited") and not self.gone:
            # docs/api.md: server_error "try again", rate_limited "resend later": the same
            # entry again, with its client_id, after a pause (1, 2, 4, 8 s).
            self.m.resends_after_error[code] += 1
            entry.retries += 1
            delay = min(8.0, 2.0 ** (entry.retries - 1))
            self.run.spawn(self.resend_later(str(request_id), entry, delay))
            return
        if entry is not None:
            del self.pending[str(request_id)]
            self.answered.add(str(request_id))
            self.outstanding[entry.round_number] -= 1
            self.m.submit_errors[code] += 1

    # -- a round

    def started_event(self, number: int) -> asyncio.Event:
        return self.round_started.setdefault(number, asyncio.Event())

    def ended_event(self, number: int) -> asyncio.Event:
        return self.round_ended_event.setdefault(number, asyncio.Event())

    async def sync_state(self, timeout: float) -> dict[str, Any] | None:
        answer = await self.request({"type": "sync"}, timeout)
        if answer is None or answer.get("type") != "state":
            return None
        state = answer.get("state")
        return state if isinstance(state, dict) else None

    async def wait_round_started(self, number: int) -> dict[str, Any] | None:
        deadline = time.monotonic() + 120
        synced = False
        event = self.started_event(number)
        while not self.gone:
            if number in self.rounds:
                return self.rounds[number]
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), 0.5)
            if number in self.rounds:
                return self.rounds[number]
            known = self.room.round_info.get(number)
            if (
                known
                and not synced
                and isinstance(known.get("starts_at"), int)
                and time.time() > known["starts_at"] / 1000 + 1
            ):
                # Others have the round and it has started: this client missed the event.
                synced = True
                self.m.round_started_missed += 1
                state = await self.sync_state(30)
                round_ = state.get("round") if state else None
                if isinstance(round_, dict) and round_.get("number") == number:
                    self.rounds.setdefault(number, round_)
                    return round_
            if time.monotonic() > deadline:
                break
        self.m.round_never_started_for_client += 1
        return None

    async def play_round(self, number: int) -> None:
        await self.room.settled_event(number).wait()
        if number in self.room.start_failed or self.gone:
            return
        round_ = await self.wait_round_started(number)
        if round_ is None:
            return
        starts_at, ends_at = round_.get("starts_at"), round_.get("ends_at")
        if not isinstance(starts_at, int) or not isinstance(ends_at, int):
            self.m.odd["running round without starts_at/ends_at"] += 1
            return
        starts, ends = starts_at / 1000, ends_at / 1000
        self.ends_at[number] = ends
        await self.send_words(number, round_, starts, ends)
        await self.wait_round_end(number, ends)
        await self.drain(number, ends)

    async def send_words(
        self, number: int, round_: dict[str, Any], starts: float, ends: float
    ) -> None:
        args = self.run.args
        rng = self.run.rng
        fresh = list(self.run.solution(round_))
        rng.shuffle(fresh)
        used: list[str] = []
        interval = 1.0 / args.words_per_second
        scheduled = starts + rng.uniform(0.0, interval)
        k = 0
        while scheduled < ends and not self.gone:
            delay = scheduled - time.time()
            if delay > 0:
                await asyncio.sleep(delay)
            now = time.time()
            if now >= ends:
                break
            self.m.send_lag_ms.append((now - scheduled) * 1000)
            draw = rng.random()
            if draw < args.garbage_share or not (fresh or used):
                kind, word = "garbage", self.garbage(rng)
            elif (draw < args.garbage_share + args.repeat_share and used) or not fresh:
                kind, word = "repeat", rng.choice(used)
            else:
                kind, word = "real", fresh.pop()
                used.append(word)
            client_id = f"{self.id}-{number}-{k}"
            k += 1
            entry = Pending(word, number, time.perf_counter())
            self.pending[client_id] = entry
            self.typed[number] += 1
            self.outstanding[number] += 1
            self.m.words_sent[kind] += 1
            if not await self.send_entry(client_id, entry):
                self.m.words_unsent += 1
            scheduled += interval

    @staticmethod
    def garbage(rng: random.Random) -> str:
        letters = "".join(rng.choice(GARBAGE_LETTERS) for _ in range(rng.randint(4, 7)))
        return letters if rng.random() < 0.8 else letters[:2] + "1" + letters[2:]

    async def send_entry(self, client_id: str, entry: Pending) -> bool:
        now = time.time()
        sent = await self.send(
            {"type": "submit", "word": entry.word, "client_id": client_id, "request_id": client_id}
        )
        if sent and entry.first_sent_wall is None:
            entry.first_sent_wall = now
        return sent

    async def wait_round_end(self, number: int, ends: float) -> None:
        wait_until = ends + self.run.args.round_end_wait
        event = self.ended_event(number)
        while not event.is_set() and self.left_at is None and time.time() < wait_until:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), min(1.0, max(0.0, wait_until - time.time())))
        if self.left_at is not None:
            return  # left the table: learns nothing more
        arrived = self.round_ended_at.get(number)
        if arrived is not None and arrived <= wait_until:
            self.m.round_ended_ms.append((arrived - ends) * 1000)
            return
        self.round_end_given_up.add(number)
        self.m.round_ended_never += 1
        knew = number in self.learned_end
        state = await self.sync_state(max(5.0, ends + self.run.args.drain_seconds - time.time()))
        if not knew and number in self.learned_end:
            when, _ = self.learned_end[number]
            self.learned_end[number] = (
                when,
                f"the bench's own sync {self.run.args.round_end_wait:g} s after ends_at",
            )
        round_ = state.get("round") if state else None
        if (
            isinstance(round_, dict)
            and round_.get("number") == number
            and round_.get("status") == "ended"
        ):
            self.m.round_ended_by_sync += 1
        else:
            self.m.round_ended_not_even_sync += 1

    async def drain(self, number: int, ends: float) -> None:
        deadline = ends + self.run.args.drain_seconds
        while self.outstanding[number] > 0 and time.time() < deadline and not self.gone:
            await asyncio.sleep(0.2)
        for client_id, entry in list(self.pending.items()):
            if entry.round_number == number:
                del self.pending[client_id]
                self.abandoned.add(client_id)
                self.unanswered.setdefault(number, []).append(entry)
                self.m.never_answered += 1
                if entry.first_sent_wall is None:
                    self.m.never_sent += 1
        self.outstanding[number] = 0


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
        room = Room(len(rooms), min(args.room_size, args.players - index))
        for _ in range(room.size):
            room.players.append(Player(run, room, index, run.site.urls[index % len(run.site.urls)]))
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


@dataclass
class Snapshot:
    wall: float
    statements: dict[str, Any] | None
    server_cpu: float | None
    client_cpu: float
    machine_cpu: float  # busy CPU seconds of the whole machine so far


async def take_snapshot(run: Run) -> Snapshot:
    wall = time.time()
    client_cpu = time.process_time()
    statements = await asyncio.to_thread(run.site.statements)
    server_cpu = await asyncio.to_thread(run.site.monitor.sample) if run.site.processes else None
    return Snapshot(wall, statements, server_cpu, client_cpu, machine_busy_seconds())


def machine_busy_seconds() -> float:
    times = psutil.cpu_times()
    return sum(times) - times.idle - getattr(times, "iowait", 0.0)


@dataclass
class Window:
    seconds: float = 0.0
    statements: Counter[str] = field(default_factory=Counter)
    by_kind: Counter[str] = field(default_factory=Counter)
    transaction: Counter[str] = field(default_factory=Counter)
    idle_statements_per_second: float | None = None
    server_cpu: float = 0.0
    client_cpu: float = 0.0
    machine_cpu: float = 0.0
    measured: bool = False

    def add(self, start: Snapshot, end: Snapshot) -> None:
        self.seconds += end.wall - start.wall
        self.client_cpu += end.client_cpu - start.client_cpu
        self.machine_cpu += end.machine_cpu - start.machine_cpu
        if start.server_cpu is not None and end.server_cpu is not None:
            self.server_cpu += end.server_cpu - start.server_cpu
        if start.statements and end.statements:
            self.measured = True
            self.statements["statements"] += (
                end.statements["statements"] - start.statements["statements"]
            )
            self.by_kind.update(end.statements["by_kind"])
            self.by_kind.subtract(start.statements["by_kind"])
            self.transaction.update(end.statements["transaction"])
            self.transaction.subtract(start.statements["transaction"])

    async def measure_idle(self, run: Run, seconds: float = 3.0) -> None:
        """Statements a second with every player connected and no round: the floor."""
        if run.site.stats_dir is None:
            return
        await asyncio.sleep(1.0)  # let the connections' own work reach the files
        before = await take_snapshot(run)
        await asyncio.sleep(seconds)
        after = await take_snapshot(run)
        if before.statements and after.statements:
            self.idle_statements_per_second = (
                after.statements["statements"] - before.statements["statements"]
            ) / (after.wall - before.wall)


async def sleep_until(wall: float) -> None:
    delay = wall - time.time()
    if delay > 0:
        await asyncio.sleep(delay)


async def play_round(run: Run, rooms: list[Room], number: int, window: Window) -> None:
    players = [player for room in rooms for player in room.players]
    run.phase = f"round {number}: before play"
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
        await sleep_until(max(ends))
        run.window_open = False
        run.phase = f"round {number}: after the deadline"
        end = await take_snapshot(run)
        window.add(start, end)
        log(f"round {number}: deadline passed; waiting for round.ended and the last verdicts")
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
        await asyncio.to_thread(run.lexicon, dictionaries.DEFAULT_DICTIONARY)
        if args.burst:
            await burst(run)
        rooms = await set_up_rooms(run)
        connected = await connect_all(run, rooms)
        await window.measure_idle(run)
        for number in range(1, args.rounds + 1):
            await play_round(run, rooms, number, window)
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
            "daphnes": len(site.urls),
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
            "connect_failures": dict(m.connect_failures),
            "drops_by_close_code": dict(m.socket_drops),
            "reconnects": m.reconnects,
            "reconnect_failures": dict(m.reconnect_failures),
        },
        "words_sent": dict(m.words_sent) | {"total": sum(m.words_sent.values())},
        "verdict_latency_ms": summary(m.verdict_ms),
        "verdicts": dict(m.verdicts.most_common()),
        "slow_verdicts_by_second_before_end": dict(
            sorted(Counter(math.floor(-t) for t in m.slow_verdict_sent).items())
        ),
        "round_ended_after_deadline_ms": summary(m.round_ended_ms, (50, 99)),
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
    client_share = window.client_cpu / window.seconds if window.seconds else None
    # Everything else on the machine: other people's tests, browsers, the database server...
    others = window.machine_cpu - window.client_cpu - (window.server_cpu if processes else 0.0)
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
            " (PostgreSQL and Redis count here too): the figures include that contention"
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
        f"== bench/load.py: {c['mode']}, {c['daphnes']} Daphne(s) or URL(s),"
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
    sent = report["words_sent"]
    add(
        f"words sent: {sent['total']:,} (real {sent.get('real', 0):,}, garbage"
        f" {sent.get('garbage', 0):,}, repeats {sent.get('repeat', 0):,}); typed while the"
        f" socket was down, kept to resend: {report['words_unsent_socket_down']}"
    )
    add(f"verdict latency ms: {format_summary(report['verdict_latency_ms'])}")
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
        f" ({machine['other_processes_cores_in_play']} cores; PostgreSQL/Redis included);"
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


# ------------------------------------------------------------------------ faults

FAULTS: dict[str, str] = {
    "redis": "Redis restart: the private redis-server SIGKILLed mid-round, started again on its"
    " port --fault-down s later (empty: no persistence)",
    "postgres": "PostgreSQL restart: the private cluster stopped mid-round (pg_ctl stop -m fast),"
    " started again --fault-down s later",
    "celery": "Celery worker SIGKILLed mid-round (its process group), a new worker started"
    " 1 s later",
    "daphne": "the first Daphne SIGKILLed mid-round (every host's socket is on it with rooms of"
    " 8): its players reconnect to another (as a proxy routes them), but --leavers of them"
    " leave for good",
}
WORKER_RESTART_SECONDS = 1.0
LEAVE_AFTER_SECONDS = 0.5  # leavers close during the outage (the Daphne kill: at once)
GHOST_GRACE_SECONDS = 5.0  # a socket closed this recently may still show online
FAULT_WINDOW_AFTER_BACK = 10.0  # "during the fault": from the fault to this long after back
SLOW_ROUND_END_SECONDS = 2.0


@dataclass
class FaultRecord:
    name: str
    fault_at: float | None = None  # wall time of the fault
    back_at: float | None = None  # the service answering again (the fault itself for kills)
    detail: str = ""
    leavers: list[Player] = field(default_factory=list)
    ghost_checks: list[dict[str, Any]] = field(default_factory=list)
    next_round: dict[str, dict[str, Any]] = field(default_factory=dict)  # by room code
    disconnected_at_end: int = 0
    probe_creations: Counter[str] = field(default_factory=Counter)
    error: str | None = None


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
    if fault == "redis":
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
        await asyncio.to_thread(run.lexicon, dictionaries.DEFAULT_DICTIONARY)
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
    return report


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


def main_faults(args: argparse.Namespace) -> int:
    """Each fault in its own fresh site (private Redis and PostgreSQL), one after another."""
    reports: list[dict[str, Any]] = []
    for index, fault in enumerate(args.faults, 1):
        log(f"fault {index}/{len(args.faults)}: {fault}: starting a fresh site")
        site = Site(args, private=True)
        run = Run(args, site)
        try:
            site.start()
            report = asyncio.run(run_fault(run, fault))
        except KeyboardInterrupt:
            log("interrupted: stopping everything this run started")
            return 130
        except SystemExit as error:  # the site could not start
            log(f"{fault}: {error}")
            report = {"fault": fault, "start_failed": str(error)[:2000]}
        finally:
            with signals_held():
                run.pool.shutdown(wait=False, cancel_futures=True)
                site.stop()
        if "start_failed" in report:
            print(f"\n== fault: {fault}: THE SITE DID NOT START ==\n{report['start_failed']}")
        else:
            print_fault_report(report)
        reports.append(report)
    print_fault_summary([r for r in reports if "start_failed" not in r])
    if args.json:
        Path(args.json).write_text(json.dumps(reports, indent=2, default=str) + "\n")
        log(f"figures written to {args.json}")
    return 0 if all("start_failed" not in r and not r["error"] for r in reports) else 1


# ------------------------------------------------------------------------ main


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """The module docstring as written, and each option's default when it has one."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if action.default not in (None, False, argparse.SUPPRESS) and action.option_strings:
            text += " (default: %(default)s)"
        return text


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="bench/load.py",
        description=__doc__,
        epilog=(
            "Issue 11's floors: the default run (embedded, 300 players in rooms of 8, 1 word/s,"
            " 30 s rounds); --players 100 --room-size 100 (one room); --mode production"
            " --daphnes 2 --players 600. More in this file's docstring."
        ),
        formatter_class=HelpFormatter,
    )
    site = parser.add_argument_group("the site")
    site.add_argument(
        "--mode",
        choices=("embedded", "production"),
        help="embedded: SQLite file, one Daphne; production: PostgreSQL, Redis, --daphnes"
        " Daphnes, a Celery worker and beat (default: embedded; production with --faults)",
    )
    site.add_argument(
        "--url",
        action="append",
        metavar="http://HOST:PORT",
        help="play against a running site instead (repeat for several Daphnes); starts nothing,"
        " and then statements, CPU and RSS are not measured",
    )
    site.add_argument(
        "--daphnes",
        type=int,
        help="Daphne processes (production mode only; default 1, 2 with --faults)",
    )
    site.add_argument(
        "--postgres-url",
        default="postgresql://postgres@127.0.0.1:5432/postgres",
        help="where to create (and drop) the throwaway database (production)",
    )
    site.add_argument(
        "--redis-url", default="redis://127.0.0.1:6379", help="Redis server (production)"
    )
    site.add_argument(
        "--redis-db",
        type=int,
        default=14,
        help="Redis database (production; only this run's keys are deleted)",
    )
    site.add_argument(
        "--keep-tmp", action="store_true", help="keep the temporary directory (server logs)"
    )
    game = parser.add_argument_group("the game (defaults: issue 11's embedded floor)")
    game.add_argument("--players", type=int, help="players in all (default 300; --quick 16)")
    game.add_argument("--room-size", type=int, help="players per room (default 8; --quick 4)")
    game.add_argument(
        "--words-per-second", type=float, help="words each player sends a second (default 1)"
    )
    game.add_argument(
        "--round-seconds", type=int, help="round length, 30 to 1800 (default 30; --quick 30)"
    )
    game.add_argument("--rounds", type=int, default=1, help="rounds played by every room")
    game.add_argument(
        "--quick", action="store_true", help="a smoke run: 16 players in rooms of 4, 30 s rounds"
    )
    game.add_argument(
        "--burst",
        action=argparse.BooleanOptionalAction,
        default=True,
        help=f"first, {BURST_TIMES} times over: {BURST_JOINS} joins of one room +"
        f" {BURST_CREATIONS} creations at the same instant",
    )
    game.add_argument(
        "--garbage-share", type=float, default=0.1, help="share of entries that are garbage"
    )
    game.add_argument(
        "--repeat-share", type=float, default=0.1, help="share of entries repeating a word sent"
    )
    game.add_argument("--seed", type=int, default=1, help="random seed (words, phases)")
    faults = parser.add_argument_group("faults (the faults scenario; see this file's docstring)")
    faults.add_argument(
        "--faults",
        nargs="?",
        const="all",
        metavar="LIST",
        help="run the faults scenario instead: each fault (all, or a comma-separated list of "
        + ", ".join(FAULTS)
        + ") in a fresh production site with a private Redis and PostgreSQL; implies"
        " --mode production --daphnes 2 --no-burst, 50 players in rooms of 8, 30 s rounds",
    )
    faults.add_argument(
        "--fault-at",
        type=float,
        default=10.0,
        help="seconds after round 1's starts_at at which the fault strikes",
    )
    faults.add_argument(
        "--fault-down",
        type=float,
        default=2.0,
        help="seconds Redis or PostgreSQL stays down before it is started again",
    )
    faults.add_argument(
        "--leavers",
        type=int,
        default=5,
        help="players who close their socket during the fault and never come back",
    )
    faults.add_argument(
        "--ghost-after",
        type=float,
        default=30.0,
        help="seconds after the fault (and the leavers' close) at which online is checked",
    )
    waits = parser.add_argument_group("waiting")
    waits.add_argument(
        "--round-end-wait",
        type=float,
        help="seconds after ends_at a client waits for round.ended before it sends sync"
        " (default 10; 60 with --faults, whose client pings and syncs as the site's page does)",
    )
    waits.add_argument(
        "--drain-seconds",
        type=float,
        default=60.0,
        help="seconds after ends_at a client waits for its last verdicts; later = never answered",
    )
    parser.add_argument("--json", metavar="PATH", help="also write the figures to this file")
    args = parser.parse_args(argv)
    if args.faults:
        names = list(FAULTS) if args.faults == "all" else args.faults.split(",")
        unknown = [name for name in names if name not in FAULTS]
        if unknown:
            parser.error(f"--faults: unknown {', '.join(unknown)}; known: {', '.join(FAULTS)}")
        args.faults = list(dict.fromkeys(names))
        if args.url:
            parser.error("--faults starts and breaks its own sites: no --url")
        if args.mode == "embedded":
            parser.error("--faults runs in production mode only")
        args.mode = "production"
        args.burst = False
        args.rounds = 2
        if args.daphnes is None:
            args.daphnes = 2
        if "daphne" in args.faults and args.daphnes < 2:
            parser.error("the daphne fault needs --daphnes 2 or more")
        if args.round_end_wait is None:
            args.round_end_wait = 60.0
        if args.leavers < 0 or args.fault_at < 0 or args.fault_down < 0:
            parser.error("--leavers, --fault-at and --fault-down must not be negative")
    args.mode = args.mode or "embedded"
    args.daphnes = 1 if args.daphnes is None else args.daphnes
    args.round_end_wait = 10.0 if args.round_end_wait is None else args.round_end_wait
    preset = PRESETS["faults" if args.faults else "quick" if args.quick else "default"]
    for name, value in preset.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    if args.players < 1 or args.room_size < 1:
        parser.error("--players and --room-size must be at least 1")
    if args.words_per_second <= 0:
        parser.error("--words-per-second must be positive")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if args.daphnes < 1 or (args.mode == "embedded" and args.daphnes != 1 and not args.url):
        parser.error("embedded mode runs exactly one Daphne (its channel layer is in memory)")
    if not 0 <= args.garbage_share + args.repeat_share <= 1:
        parser.error("--garbage-share + --repeat-share must be between 0 and 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)

    def terminate(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, terminate)
    if args.faults:
        return main_faults(args)
    site = Site(args)
    run = Run(args, site)
    try:
        site.start()
        load = asyncio.run(run_load(run))
        report = build_report(run, load)
    except KeyboardInterrupt:
        log("interrupted: stopping everything this run started")
        return 130
    finally:
        with signals_held():
            run.pool.shutdown(wait=False, cancel_futures=True)
            site.stop()
    print_report(report)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2, default=str) + "\n")
        log(f"figures written to {args.json}")
    return 0 if report["words_sent"]["total"] else 1


if __name__ == "__main__":
    sys.exit(main())
