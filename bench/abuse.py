"""What one hostile client can do to the Boggle site: figures, not verdicts.

    python bench/abuse.py                               # starts an embedded site (SQLite, one Daphne)
    python bench/abuse.py --attack ws-flood             # one attack (repeat --attack for several)
    python bench/abuse.py --url http://127.0.0.1:8000   # a running site (--pid for its RSS)

Unless ``--url`` is given the site is started as ``bench/load.py`` does in its embedded mode
(a throwaway SQLite file, the dictionaries built, one Daphne; tasks run in the Daphne) and
stopped at the end. With ``--url`` the server's RSS is read from ``--pid``, or from the
process listening on the URL's port when this machine can see it; that site must listen on
every address (as ``bin/start`` does) for the attacker to reach it from the Wi-Fi.

The attacker is another machine: a network namespace of its own on a simulated Wi-Fi
(``netlab``; needs root), which reaches the site on the Wi-Fi's address, so the site sees
it come from an address that is not its own, as it would see a player's phone or a script
elsewhere, and applies every per-address limit to it (the connection guard included). Each
attack's attacking side is a process of its own there, so its traffic never slows the
honest players' event loop. The honest players use 127.0.0.1. ``--attacker loopback``
attacks from 127.0.0.1 instead, which the site never rate-limits (the host's own machine).
No traffic leaves this machine: everything goes over loopback or the simulated Wi-Fi.

Eight honest players share one room and play an untimed round throughout, each sending one
word the board spells (the repository's solver) per second; their verdict latency (send to
the ``verdict`` with that ``client_id``) is measured first for ``--idle-seconds`` (10) with
nothing else going on, then during every attack. Each attack, one after another:

- huge-body: 100 MB of zeros POSTed (with Content-Length, and once chunked without it) to
  /api/rooms/nosuchroom/photos and to /api/rooms: status, time to the answer, bytes the
  server took before answering.
- ws-flood: one player's websocket sends 2,000 messages/s, each with a 4,000-character
  ``type``, for 15 s and never reads (the client stops reading from the socket): whether
  and how the server closed it.
- join-many: one address joins the honest room 40 times at once, then 30 of those players
  send 8 words/s each for 15 s: joins refused (429) and the honest p95.
- photo-bombs: one solid 7070x7070 PNG (160 KB that would decode to 150 MB), then 9
  uploads of the largest PNG the site decodes (vision.loading.MAX_FULL_DECODE_PIXELS) from
  3 rooms; status codes, then what became of each photo within 45 s (run last by default:
  the readings it starts hold memory and CPU after it).
- socket-swarm: 2,000 websockets of one player opened, then all dropped at once (TCP
  reset, no close frame); 30 s later an honest player's ``sync`` shows whether that player
  is still "online" (a ghost).
- deep-json: a JSON body nested 5,000 levels deep POSTed to /api/rooms 20 times, and 500
  websocket frames nested 5,000 deep (over the 4,096-character message limit) plus 500
  nested 2,000 deep (under it, so they reach the JSON parser): 5xx and ``error`` replies.

For each attack: the Daphne's RSS (its process tree) before, the peak from the attack's start
until 10 s after its end, and 10 s after; HTTP 5xx answers; "Internal Server Error" and
"Traceback" lines the Daphne logged (a site started here); the honest players' verdict p95
(and words never answered) against the idle p95, over the words sent during the attack (at
least its first 5 s, so that the attacks answered at once still get a figure). A table at the end compares each attack
with the floors: RSS up by at most 100 MB, honest p95 at most 2x idle, no HTTP 500.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import math
import random
import re
import sys
import threading
import time
import urllib.parse
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(1, str(Path(__file__).parent.parent))
import load
import psutil
from websockets.asyncio.client import ClientConnection, connect

from netlab import Host, SimulatedWifi, guard, unavailable_reason
from vision.loading import MAX_FULL_DECODE_PIXELS

MB = 1024 * 1024
HUGE_BODY_BYTES = 100 * MB
RSS_FLOOR_MB = 100
P95_FLOOR_FACTOR = 2.0
AFTER_SECONDS = 10.0
MIN_WINDOW_SECONDS = 5.0
HONEST_PLAYERS = 8
SAMPLE_SECONDS = 0.2  # the server's RSS is read this often
TRACEBACK_END = r"Traceback \(most recent call last\):\n(?:[ \t].*\n)+(.*)"
# photo-bombs last: the readings it starts go on (and hold memory) after it.
ATTACKS = ("huge-body", "ws-flood", "join-many", "socket-swarm", "deep-json", "photo-bombs")

log = load.log


def ms_since(start: float) -> float:
    return (time.monotonic() - start) * 1000


# --------------------------------------------------------------------------- the server


class RssSampler:
    """RSS of the server's process tree, sampled every ``SAMPLE_SECONDS`` in a thread."""

    def __init__(self, pid: int | None) -> None:
        self.pid = pid
        self.samples: list[tuple[float, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="rss", daemon=True)

    def read(self) -> int | None:
        if self.pid is None:
            return None
        try:
            root = psutil.Process(self.pid)
            tree = [root, *root.children(recursive=True)]
        except psutil.Error:
            return None
        total = 0
        for process in tree:
            with contextlib.suppress(psutil.Error):
                total += process.memory_info().rss
        return total

    async def settle(self, steady_seconds: float = 3.0, limit: float = 90.0) -> None:
        """Wait until the server's RSS holds within 5 MB for ``steady_seconds`` (the
        site loads the photo reader in the background as it starts: the idle figures and
        each attack's "before" are taken after that)."""
        started = time.monotonic()
        steady_since, last = started, self.read()
        while last is not None and time.monotonic() - started < limit:
            await asyncio.sleep(0.5)
            now = self.read()
            if now is None or abs(now - last) > 5 * MB:
                steady_since, last = time.monotonic(), now
            elif time.monotonic() - steady_since >= steady_seconds:
                log(f"server RSS steady at {mb(now)} MB after {time.monotonic() - started:.0f} s")
                return

    def _loop(self) -> None:
        while not self._stop.wait(SAMPLE_SECONDS):
            rss = self.read()
            if rss is not None:
                self.samples.append((time.monotonic(), rss))

    def start(self) -> None:
        if self.pid is not None:
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def peak(self, since: float, until: float | None = None) -> int | None:
        """The highest RSS sampled from ``since`` to ``until`` (monotonic seconds) and in the
        sampling period after it (a moment shorter than a period still gets a sample);
        without ``until``, to now, counting one read now."""
        end = None if until is None else until + SAMPLE_SECONDS
        values = [rss for at, rss in self.samples if at >= since and (end is None or at <= end)]
        now = self.read() if until is None else None
        if now is not None:
            values.append(now)
        return max(values) if values else None

    def at(self, moment: float) -> int | None:
        """The RSS sampled nearest ``moment`` (monotonic seconds)."""
        if not self.samples:
            return self.read()
        return min(self.samples, key=lambda sample: abs(sample[0] - moment))[1]


def pid_listening_on(url: str) -> int | None:
    port = urllib.parse.urlsplit(url).port
    with contextlib.suppress(psutil.Error, OSError):
        for conn in psutil.net_connections("tcp"):
            if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port:
                return conn.pid
    return None


class ServerLog:
    """Error lines the Daphne logged (only for a site started here)."""

    def __init__(self, site: load.Site) -> None:
        self.paths = [started.log_path for started in site.processes]

    def text(self) -> str:
        parts: list[str] = []
        for path in self.paths:
            with contextlib.suppress(OSError):
                parts.append(path.read_text(errors="replace"))
        return "\n".join(parts)

    def counts(self) -> Counter[str]:
        text = self.text()
        return Counter(
            {
                "Internal Server Error": text.count("Internal Server Error"),
                "Traceback": text.count("Traceback (most recent call last)"),
            }
        )

    def exceptions(self, since: int) -> Counter[str]:
        """The last line of each traceback logged past character ``since``."""
        found = re.findall(TRACEBACK_END, self.text()[since:])
        return Counter(line.strip()[:110] for line in found)


async def http(
    base: str,
    method: str,
    path: str,
    body: dict[str, Any] | None = None,
    token: str | None = None,
) -> load.HttpResult:
    return await asyncio.to_thread(load.http_call, base, method, path, body, token, 60.0)


def ws_url(base: str, code: str, token: str) -> str:
    return base.replace("http://", "ws://", 1) + f"/ws/rooms/{code}/?token={token}"


async def open_socket(url: str, max_queue: int | None = 1024) -> ClientConnection:
    return await connect(
        url,
        compression=None,
        open_timeout=30,
        ping_interval=None,
        close_timeout=1,
        max_size=None,
        max_queue=max_queue,
        proxy=None,
    )


# ----------------------------------------------------------------------------- players


@dataclass
class Credentials:
    code: str
    token: str
    player_id: int


async def create_room(
    base: str, nickname: str, settings: dict[str, Any] | None = None
) -> Credentials:
    body: dict[str, Any] = {"nickname": nickname}
    if settings:
        body["settings"] = settings
    result = await http(base, "POST", "/api/rooms", body)
    for _ in range(12):  # an earlier attack may have spent the address's room creations
        if result.status != 429:
            break
        await asyncio.sleep(60 / 10)  # games.throttle.CREATE gives one back every 6 s
        result = await http(base, "POST", "/api/rooms", body)
    if result.status != 201:
        raise SystemExit(f"abuse: creating a room: {result.status} {result.error}")
    return Credentials(
        result.body["room"]["code"], result.body["player"]["token"], result.body["player"]["id"]
    )


async def join_room(
    base: str, code: str, nickname: str
) -> tuple[load.HttpResult, Credentials | None]:
    result = await http(base, "POST", f"/api/rooms/{code}/join", {"nickname": nickname})
    if result.status != 201:
        return result, None
    return result, Credentials(code, result.body["player"]["token"], result.body["player"]["id"])


class Player:
    """A well-behaved player: reads everything, times its verdicts."""

    def __init__(self, base: str, me: Credentials) -> None:
        self.base = base
        self.me = me
        self.ws: ClientConnection | None = None
        self.sent: dict[str, float] = {}  # client_id -> monotonic time sent
        self.latencies: list[tuple[float, float]] = []  # (sent at, ms)
        self.errors: Counter[str] = Counter()
        self.waiters: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.round: dict[str, Any] | None = None
        self.round_started = asyncio.Event()
        self.close_code: int | None = None
        self._reader: asyncio.Task[None] | None = None

    async def open(self) -> None:
        self.ws = await open_socket(ws_url(self.base, self.me.code, self.me.token))
        self._reader = asyncio.create_task(self._read(self.ws))

    async def _read(self, ws: ClientConnection) -> None:
        try:
            async for raw in ws:
                self._handle(json.loads(raw))
        except Exception:
            pass
        self.close_code = ws.close_code

    def _handle(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "verdict":
            sent = self.sent.pop(str(message.get("client_id")), None)
            if sent is not None:
                self.latencies.append((sent, ms_since(sent)))
        elif kind == "error":
            self.errors[str(message.get("code"))] += 1
        elif kind in ("round.started", "state"):
            round_ = message.get("round") if kind == "round.started" else message["state"]["round"]
            if isinstance(round_, dict) and round_.get("status") == "running":
                self.round = round_
                self.round_started.set()
        request_id = message.get("request_id")
        if request_id is not None:
            future = self.waiters.pop(str(request_id), None)
            if future is not None and not future.done():
                future.set_result(message)

    async def send(self, message: dict[str, Any]) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.send(json.dumps(message))

    async def request(
        self, message: dict[str, Any], timeout: float = 15.0
    ) -> dict[str, Any] | None:
        request_id = uuid.uuid4().hex[:12]
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiters[request_id] = future
        await self.send({**message, "request_id": request_id})
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            return None

    async def submit(self, word: str) -> None:
        client_id = uuid.uuid4().hex[:16]
        self.sent[client_id] = time.monotonic()
        await self.send({"type": "submit", "word": word, "client_id": client_id})

    async def play(self, words: list[str], per_second: float, until: Callable[[], bool]) -> None:
        rng = random.Random()
        await asyncio.sleep(rng.random() / per_second)
        while not until():
            await self.submit(rng.choice(words))
            await asyncio.sleep(1 / per_second)

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        if self._reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._reader, 3)


class HonestTable:
    """Eight players in one room playing an untimed round, one word a second each."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.players: list[Player] = []
        self.words: list[str] = []
        self.stopping = False
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def host(self) -> Player:
        return self.players[0]

    @property
    def code(self) -> str:
        return self.host.me.code

    async def start(self) -> None:
        host = await create_room(self.base, "honest0", {"round_seconds": None})
        self.players.append(Player(self.base, host))
        for index in range(1, HONEST_PLAYERS):
            result, me = await join_room(self.base, host.code, f"honest{index}")
            if me is None:
                raise SystemExit(f"abuse: an honest join failed: {result.status} {result.error}")
            self.players.append(Player(self.base, me))
        for player in self.players:
            await player.open()
        answer = await self.host.request({"type": "start_round"})
        if answer is None or answer.get("type") == "error":
            raise SystemExit(f"abuse: start_round failed: {answer}")
        await asyncio.wait_for(self.host.round_started.wait(), 30)
        round_ = self.host.round or {}
        self.words = solve_words(round_)
        wait = (int(round_.get("starts_at") or 0) - time.time() * 1000) / 1000
        log(f"honest room {self.code}: board {round_.get('board')!r}, {len(self.words)} words")
        await asyncio.sleep(max(0.0, wait) + 0.2)
        self._tasks = [
            asyncio.create_task(player.play(self.words, 1.0, lambda: self.stopping))
            for player in self.players
        ]

    def latencies(self, since: float, until: float) -> list[float]:
        return [ms for player in self.players for at, ms in player.latencies if since <= at < until]

    def unanswered(self, since: float, until: float) -> int:
        return sum(1 for p in self.players for at in p.sent.values() if since <= at < until)

    def errors(self) -> Counter[str]:
        total: Counter[str] = Counter()
        for player in self.players:
            total.update(player.errors)
        return total

    async def stop(self) -> None:
        self.stopping = True
        for task in self._tasks:
            task.cancel()
        for player in self.players:
            await player.close()


def solve_words(round_: dict[str, Any]) -> list[str]:
    from solver import dictionaries, parse_board, solve

    lexicon = dictionaries.load(str(round_.get("dictionary")))
    board = parse_board(str(round_.get("board")))
    found = solve(board, lexicon, int(round_.get("min_length") or 3)).words
    return [word.word for word in found] or ["zzzz"]


# ------------------------------------------------------------------------- measurement


@dataclass
class Outcome:
    name: str
    details: list[str] = field(default_factory=list)
    http_statuses: Counter[int] = field(default_factory=Counter)
    rss_before: int | None = None
    rss_peak: int | None = None
    rss_after: int | None = None
    honest_p95: float | None = None
    honest_n: int = 0
    honest_unanswered: int = 0
    log_errors: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    failed: str = ""

    @property
    def http_5xx(self) -> int:
        return sum(count for status, count in self.http_statuses.items() if status >= 500)

    def note(self, text: str) -> None:
        self.details.append(text)
        log(f"  {self.name}: {text}")


class Bench:
    def __init__(
        self, base: str, attacker: Attacker, sampler: RssSampler, server_log: ServerLog | None
    ) -> None:
        self.base = base
        self.attacker = attacker
        self.sampler = sampler
        self.server_log = server_log
        self.table = HonestTable(base)
        self.idle_p95: float | None = None
        self.idle_n = 0

    async def measure_idle(self, seconds: float) -> None:
        start = time.monotonic()
        await asyncio.sleep(seconds)
        values = self.table.latencies(start, time.monotonic())
        self.idle_p95, self.idle_n = load.percentile(values, 95), len(values)
        log(f"idle: honest verdict p95 {self.idle_p95 or 0:.1f} ms (n={self.idle_n})")

    async def run(self, name: str, attack: Callable[[Outcome], Awaitable[None]]) -> Outcome:
        outcome = Outcome(name)
        log(f"attack {name} ...")
        logged_before = self.server_log.counts() if self.server_log else Counter()
        log_offset = len(self.server_log.text()) if self.server_log else 0
        outcome.rss_before = self.sampler.read()
        start = time.monotonic()
        try:
            await attack(outcome)
        except Exception as error:
            outcome.failed = f"{type(error).__name__}: {error}"[:200]
            log(f"  {name}: the attack itself failed: {outcome.failed}")
        end = time.monotonic()
        outcome.seconds = end - start
        await asyncio.sleep(AFTER_SECONDS)
        outcome.rss_after = self.sampler.read()
        outcome.rss_peak = self.sampler.peak(start)
        # The honest words sent during the attack (at least its first 5 s, for the quick
        # ones), and those of them still unanswered 10 s after it.
        until = max(end, start + MIN_WINDOW_SECONDS)
        values = self.table.latencies(start, until)
        outcome.honest_p95, outcome.honest_n = load.percentile(values, 95), len(values)
        outcome.honest_unanswered = self.table.unanswered(start, until)
        if self.server_log:
            outcome.log_errors = self.server_log.counts() - logged_before
            for line, count in self.server_log.exceptions(log_offset).most_common(4):
                outcome.note(f"server log: {count} x {line}")
        return outcome


def mb(value: int | None) -> str:
    return "?" if value is None else f"{value / MB:,.0f}"


# ----------------------------------------------------------------------------- attacks
#
# Each attack has two sides. The attacker's side (``side_*``) runs in the attacker's own
# process, on its own machine of the simulated Wi-Fi (``Attacker``): it sends the attack and
# returns what it saw as JSON, with its moments in epoch seconds. This side (``attack_*``)
# turns that into the outcome's notes, with the server's RSS at those moments.


MOB_JOINS = 40
MOB_PLAYERS = 30
MOB_WORDS_PER_SECOND = 8.0


class Attacker:
    """The attacking machine: a process of its own per attack, started on ``host`` (a
    namespace of the simulated Wi-Fi) or, with ``--attacker loopback``, here. It reaches
    the site at ``base``; only ``allow`` (the Wi-Fi's subnet) and loopback are open to it."""

    def __init__(self, base: str, host: Host | None, allow: str | None) -> None:
        self.base = base
        self.host = host
        self.allow = allow

    async def run(self, side: str, **params: Any) -> dict[str, Any]:
        argv = [sys.executable, __file__, "--child", side]
        child = await asyncio.create_subprocess_exec(
            *(self.host.command(argv) if self.host else argv),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        given = {"base": self.base, "allow": self.allow, **params}
        out, _ = await child.communicate(json.dumps(given).encode())
        lines = out.decode().strip().splitlines()
        if child.returncode != 0 or not lines:
            raise RuntimeError(f"the attacker's {side} process failed (exit {child.returncode})")
        return dict(json.loads(lines[-1]))


def to_monotonic(epoch: float) -> float:
    """An epoch time from the attacker's process on this process's monotonic clock."""
    return epoch + time.monotonic() - time.time()


def take_report(outcome: Outcome, report: dict[str, Any]) -> None:
    """The notes and HTTP statuses the attacker's side reported."""
    outcome.http_statuses.update({int(status): n for status, n in report["statuses"].items()})
    for text in report["notes"]:
        outcome.note(text)


@dataclass
class SideReport:
    """What an attacker's side saw: its notes and the HTTP statuses it was answered."""

    notes: list[str] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)

    def note(self, text: str) -> None:
        self.notes.append(text)

    def as_dict(self, **extra: Any) -> dict[str, Any]:
        return {"notes": self.notes, "statuses": dict(self.statuses), **extra}


async def raw_post(
    base: str,
    path: str,
    total: int,
    chunked: bool,
    content_type: str,
    timeout: float = 60.0,
) -> tuple[int, float, int, str]:
    """POST ``total`` zero bytes, streaming, reading the answer while sending.

    Returns (status or 0, seconds to the answer's status line, bytes sent, what happened)."""
    parts = urllib.parse.urlsplit(base)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    head = [f"POST {path} HTTP/1.1", f"Host: {parts.hostname}:{parts.port}"]
    head.append(f"Content-Type: {content_type}")
    head.append("Transfer-Encoding: chunked" if chunked else f"Content-Length: {total}")
    head.append("Connection: close")
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode())
    start = time.monotonic()
    sent = 0
    chunk = bytes(256 * 1024)

    async def send_body() -> str:
        nonlocal sent
        try:
            while sent < total:
                piece = chunk[: min(len(chunk), total - sent)]
                writer.write(b"%x\r\n%b\r\n" % (len(piece), piece) if chunked else piece)
                await writer.drain()
                sent += len(piece)
            if chunked:
                writer.write(b"0\r\n\r\n")
                await writer.drain()
            return "body sent"
        except (ConnectionError, OSError) as error:
            return f"send stopped: {type(error).__name__}"

    sender = asyncio.create_task(send_body())
    status, how = 0, ""
    try:
        line = await asyncio.wait_for(reader.readline(), timeout)
        seconds = time.monotonic() - start
        fields = line.decode("latin-1").split()
        status = int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else 0
        how = "no answer (closed)" if not line else ""
    except TimeoutError:
        seconds = time.monotonic() - start
        how = f"no answer in {timeout:.0f} s"
    except (ConnectionError, OSError) as error:
        seconds = time.monotonic() - start
        how = f"no answer ({type(error).__name__})"
    if sender.done():
        how = ", ".join(filter(None, [how, sender.result()]))
    else:
        sender.cancel()
        how = ", ".join(filter(None, [how, "answered before the body was sent"]))
    writer.close()
    with contextlib.suppress(Exception):
        await writer.wait_closed()
    return status, seconds, sent, how


# huge-body


async def side_huge_body(base: str, code: str) -> dict[str, Any]:
    targets = [
        ("/api/rooms/nosuchroom/photos", "multipart/form-data; boundary=abuse"),
        ("/api/rooms", "application/json"),
    ]
    posts: list[dict[str, Any]] = []
    for path, content_type in targets:
        for chunked in (False, True):
            began = time.time()
            status, seconds, sent, how = await raw_post(
                base, path, HUGE_BODY_BYTES, chunked, content_type
            )
            posts.append(
                {
                    "what": f"{path} {'chunked' if chunked else 'Content-Length'}",
                    "status": status,
                    "seconds": seconds,
                    "sent": sent,
                    "how": how,
                    "began": began,
                    "ended": time.time(),
                }
            )
    statuses = Counter(str(post["status"]) for post in posts if post["status"])
    return SideReport(statuses=statuses).as_dict(posts=posts)


async def attack_huge_body(bench: Bench, outcome: Outcome) -> None:
    report = await bench.attacker.run("huge-body", code=bench.table.code)
    take_report(outcome, report)
    for post in report["posts"]:
        began, ended = to_monotonic(post["began"]), to_monotonic(post["ended"])
        outcome.note(
            f"{post['what']}: {post['status'] or 'none'} in {post['seconds']:.2f} s,"
            f" {post['sent'] / MB:,.0f} MB sent ({post['how']}), RSS peak"
            f" {mb(bench.sampler.peak(began, ended))} MB, at its end {mb(bench.sampler.at(ended))} MB"
        )


# ws-flood


async def side_ws_flood(base: str, code: str, seconds: float) -> dict[str, Any]:
    report = SideReport()
    _, me = await join_room(base, code, "flooder")
    assert me is not None, "the flooder could not join"
    # max_queue=1: the client library stops reading from the TCP socket once one message
    # waits, and nothing here ever reads: the server's answers pile up on its side.
    ws = await open_socket(ws_url(base, me.code, me.token), max_queue=1)
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
        p95=load.percentile([ms for p in playing for _, ms in p.latencies], 95),
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
    joining = load.percentile(bench.table.latencies(joins_start, play_start), 95)
    playing_p95 = load.percentile(bench.table.latencies(play_start, play_end), 95)
    outcome.note(
        f"honest p95 while the mob joined ({play_start - joins_start:.1f} s): {joining or 0:.0f} ms;"
        f" while it played: {playing_p95 or 0:.0f} ms"
    )
    outcome.note(
        f"mob got {report['verdicts']:,} verdicts (their p95 {report['p95'] or 0:.0f} ms),"
        f" errors {report['errors']}"
    )


# photo-bombs


def bomb_png(side: int) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (side, side), (200, 180, 40)).save(buffer, "PNG", optimize=True)
    return buffer.getvalue()


def multipart(field_name: str, filename: str, data: bytes) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="{field_name}";'
            f' filename="{filename}"\r\nContent-Type: image/png\r\n\r\n'
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return body, f"multipart/form-data; boundary={boundary}"


def post(url: str, body: bytes, headers: dict[str, str], timeout: float) -> load.HttpResult:
    """POST ``body``: the status and the parsed JSON answer, ``error`` its error code (or
    the start of a refusal that has none); status 0 and the exception's name on failure."""
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, data=body, method="POST", headers=headers)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    start = time.monotonic()
    try:
        with opener.open(request, timeout=timeout) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, raw = error.code, error.read()
    except Exception as error:
        return load.HttpResult(0, None, type(error).__name__, time.monotonic() - start)
    parsed = None
    with contextlib.suppress(ValueError):
        parsed = json.loads(raw)
    code = ""
    if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict):
        code = str(parsed["error"].get("code"))
    if not code and status >= 400:
        code = raw[:40].decode(errors="replace")
    return load.HttpResult(status, parsed, code, time.monotonic() - start)


def upload(base: str, code: str, token: str, body: bytes, content_type: str) -> load.HttpResult:
    headers = {"Content-Type": content_type, "Authorization": f"Bearer {token}"}
    return post(f"{base}/api/rooms/{code}/photos", body, headers, timeout=60)


def upload_png(base: str, room: Credentials, side: int) -> load.HttpResult:
    body, content_type = multipart("photo", "bomb.png", bomb_png(side))
    return upload(base, room.code, room.token, body, content_type)


async def side_photo_bombs(base: str, code: str, wait: float) -> dict[str, Any]:
    report = SideReport()
    # The largest PNG the site decodes, and one over the limit (refused from its header).
    side = math.isqrt(MAX_FULL_DECODE_PIXELS)
    refused = await asyncio.to_thread(upload_png, base, await create_room(base, "bomber"), 7070)
    report.statuses[str(refused.status)] += 1
    report.note(f"a 7070x7070 PNG: {refused.status} {refused.error}")
    png = await asyncio.to_thread(bomb_png, side)
    body, content_type = multipart("photo", "bomb.png", png)
    report.note(f"the PNG: {side}x{side}, {len(png):,} bytes")
    rooms = [await create_room(base, f"bomber{index}") for index in range(3)]
    uploads = [room for room in rooms for _ in range(3)]
    results = await asyncio.gather(
        *(asyncio.to_thread(upload, base, r.code, r.token, body, content_type) for r in uploads)
    )
    photos: list[tuple[Credentials, int]] = []
    for room, result in zip(uploads, results, strict=True):
        report.statuses[str(result.status)] += 1
        if result.status == 202 and isinstance(result.body, dict):
            photos.append((room, int(result.body["photo"]["id"])))
    slowest = max(result.seconds for result in results)
    answers = Counter(f"{r.status} {r.error}".strip() for r in results)
    report.note(f"9 uploads: {dict(answers)} (slowest answer {slowest:.2f} s)")
    statuses: Counter[str] = Counter()
    deadline = time.monotonic() + wait
    while photos and time.monotonic() < deadline:
        await asyncio.sleep(1.0)
        statuses = Counter()
        for room, photo_id in photos:
            answer = await http(
                base, "GET", f"/api/rooms/{room.code}/photos/{photo_id}", token=room.token
            )
            report.statuses[str(answer.status)] += 1
            photo = answer.body.get("photo", {}) if isinstance(answer.body, dict) else {}
            statuses[f"{photo.get('status')}: {str(photo.get('error'))[:70]}"] += 1
        if all(key.split(":")[0] in ("read", "failed") for key in statuses):
            break
    if photos:
        report.note(
            f"photos after {wait - max(0.0, deadline - time.monotonic()):.0f} s: {dict(statuses)}"
        )
    return report.as_dict()


async def attack_photo_bombs(bench: Bench, outcome: Outcome, wait: float = 45.0) -> None:
    take_report(outcome, await bench.attacker.run("photo-bombs", code=bench.table.code, wait=wait))


# socket-swarm


async def side_socket_swarm(base: str, code: str, count: int) -> dict[str, Any]:
    """``count`` websockets of one player, 100 opening at a time, then all dropped at once
    (no close frame: a TCP reset)."""
    _, me = await join_room(base, code, "swarm")
    assert me is not None, "the swarm player could not join"
    url = ws_url(base, code, me.token)
    gate = asyncio.Semaphore(100)
    failures: Counter[str] = Counter()

    async def one() -> ClientConnection | None:
        async with gate:
            try:
                return await open_socket(url, max_queue=1)
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


# deep-json


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def raw_json_post(base: str, path: str, text: str) -> load.HttpResult:
    return post(base + path, text.encode(), {"Content-Type": "application/json"}, timeout=30)


async def side_deep_json(base: str, code: str) -> dict[str, Any]:
    report = SideReport()
    deep = nested(5000)
    http_answers: Counter[str] = Counter()
    for _ in range(20):
        result = await asyncio.to_thread(raw_json_post, base, "/api/rooms", deep)
        report.statuses[str(result.status)] += 1
        http_answers[f"{result.status} {result.error}"] += 1
    report.note(f"20 POST /api/rooms nested 5,000 deep: {dict(http_answers)}")
    for depth in (5000, 2000):
        _, me = await join_room(base, code, f"deep{depth}")
        assert me is not None, "the deep-json player could not join"
        player = Player(base, me)
        await player.open()
        text = f'{{"type": "submit", "word": {nested(depth)}}}'
        sent = 0
        for _ in range(500):  # 50 a second
            if player.close_code is not None or player.ws is None:
                break
            with contextlib.suppress(Exception):
                await player.ws.send(text)
                sent += 1
            await asyncio.sleep(0.02)
        await asyncio.sleep(2.0)
        closed = player.close_code
        report.note(
            f"{sent} of 500 frames nested {depth:,} deep ({len(text):,} chars) sent: error"
            f" replies {dict(player.errors)}; socket {'open' if closed is None else f'closed {closed}'}"
        )
        await player.close()
    return report.as_dict()


async def attack_deep_json(bench: Bench, outcome: Outcome) -> None:
    take_report(outcome, await bench.attacker.run("deep-json", code=bench.table.code))


# The attacker's sides, by name: what ``--child NAME`` runs.
SIDES: dict[str, Callable[..., Coroutine[Any, Any, dict[str, Any]]]] = {
    "huge-body": side_huge_body,
    "ws-flood": side_ws_flood,
    "join-many": side_join_many,
    "photo-bombs": side_photo_bombs,
    "socket-swarm": side_socket_swarm,
    "deep-json": side_deep_json,
}


# ------------------------------------------------------------------------------ report


def floors(bench: Bench, outcome: Outcome) -> str:
    """One line: the attack against the three floors."""
    parts: list[str] = []
    if outcome.rss_before is not None and outcome.rss_peak is not None:
        grew = (max(outcome.rss_peak, outcome.rss_after or 0) - outcome.rss_before) / MB
        parts.append(
            f"RSS +{grew:,.0f} MB {'ok' if grew <= RSS_FLOOR_MB else 'OVER'} (<= {RSS_FLOOR_MB})"
        )
    else:
        parts.append("RSS not measured")
    if outcome.honest_p95 is not None and bench.idle_p95:
        factor = outcome.honest_p95 / bench.idle_p95
        verdict = "ok" if factor <= P95_FLOOR_FACTOR and not outcome.honest_unanswered else "OVER"
        parts.append(f"honest p95 {factor:.1f}x idle {verdict} (<= {P95_FLOOR_FACTOR:g}x)")
    else:
        parts.append(
            "honest p95: no verdicts" if not outcome.honest_n else "honest p95: no idle figure"
        )
    if outcome.honest_unanswered:
        parts.append(f"{outcome.honest_unanswered} honest words never answered")
    status_500 = outcome.http_statuses.get(500, 0)
    server_errors = outcome.log_errors.get("Internal Server Error", 0)
    ok = not outcome.http_5xx and not server_errors
    parts.append(
        f"HTTP 5xx {outcome.http_5xx} (500: {status_500}), logged 500s {server_errors}"
        f" {'ok' if ok else 'OVER'} (0)"
    )
    return "; ".join(parts)


def print_report(bench: Bench, outcomes: list[Outcome]) -> None:
    print()
    print(
        f"Idle: honest verdict p95 {bench.idle_p95 or 0:.1f} ms over {bench.idle_n} verdicts (8 players, 1 word/s)"
    )
    print(
        f"Floors: RSS +{RSS_FLOOR_MB} MB at most; honest p95 <= {P95_FLOOR_FACTOR:g}x idle; 0 HTTP 500"
    )
    for outcome in outcomes:
        print()
        print(f"== {outcome.name} ({outcome.seconds:.1f} s)")
        for line in outcome.details:
            print(f"   {line}")
        if outcome.failed:
            print(f"   the attack stopped on an error of its own: {outcome.failed}")
        print(
            f"   HTTP answers {dict(sorted(outcome.http_statuses.items()))}; server log {dict(outcome.log_errors)}"
        )
        print(f"   summary: {floors(bench, outcome)}")
    print()
    header = (
        f"{'attack':<13} {'RSS before':>10} {'peak':>7} {'after':>7} {'+MB':>6}"
        f" {'p95 ms':>8} {'x idle':>6} {'unans':>5} {'5xx':>4} {'log 500':>7}"
    )
    print(header)
    print("-" * len(header))
    for o in outcomes:
        grew = (
            f"{(max(o.rss_peak, o.rss_after or 0) - o.rss_before) / MB:,.0f}"
            if o.rss_before is not None and o.rss_peak is not None
            else "?"
        )
        factor = f"{o.honest_p95 / bench.idle_p95:.1f}" if o.honest_p95 and bench.idle_p95 else "-"
        p95 = f"{o.honest_p95:,.0f}" if o.honest_p95 is not None else "-"
        print(
            f"{o.name:<13} {mb(o.rss_before):>10} {mb(o.rss_peak):>7} {mb(o.rss_after):>7}"
            f" {grew:>6} {p95:>8} {factor:>6} {o.honest_unanswered:>5} {o.http_5xx:>4}"
            f" {o.log_errors.get('Internal Server Error', 0):>7}"
        )
    print(
        f"(idle p95 {bench.idle_p95 or 0:.1f} ms; honest errors over the run {dict(bench.table.errors())})"
    )


# -------------------------------------------------------------------------------- main


def site_args(url: str | None, keep_tmp: bool, gateway: str | None) -> argparse.Namespace:
    """The options ``load.Site`` reads, for an embedded site (or none, with a URL). With an
    attacker on the simulated Wi-Fi the site listens on every address, as bin/start does,
    and is reached there on the Wi-Fi's ``gateway`` address."""
    return argparse.Namespace(
        bind="0.0.0.0" if gateway else "127.0.0.1",
        extra_hosts=[gateway] if gateway else [],
        url=[url] if url else None,
        mode="embedded",
        daphnes=1,
        postgres_url="",
        redis_url="",
        redis_db=0,
        keep_tmp=keep_tmp,
        preload_reader=True,  # as bin/start runs it: the photo reader loads at start
    )


def with_host(base: str, host: str) -> str:
    parts = urllib.parse.urlsplit(base)
    return parts._replace(netloc=f"{host}:{parts.port}").geturl()


async def main_async(args: argparse.Namespace, site: load.Site, attacker: Attacker) -> None:
    base = site.urls[0]
    pid = args.pid
    if pid is None and site.processes:
        pid = site.processes[0].process.pid
    if pid is None:
        pid = pid_listening_on(base)
    sampler = RssSampler(pid)
    sampler.start()
    if pid is None:
        log("no server pid (give --pid): RSS is not measured")
    attacker.base = with_host(base, attacker.base)
    where = f"from {args.attacker_host.address}" if args.attacker_host else "from loopback"
    log(f"honest players use {base}; the attacker uses {attacker.base} ({where})")
    bench = Bench(base, attacker, sampler, ServerLog(site) if site.processes else None)
    attacks: dict[str, Callable[[Outcome], Awaitable[None]]] = {
        "huge-body": lambda o: attack_huge_body(bench, o),
        "ws-flood": lambda o: attack_ws_flood(bench, o),
        "join-many": lambda o: attack_join_many(bench, o),
        "photo-bombs": lambda o: attack_photo_bombs(bench, o),
        "socket-swarm": lambda o: attack_socket_swarm(bench, o),
        "deep-json": lambda o: attack_deep_json(bench, o),
    }
    chosen = args.attack or list(ATTACKS)
    outcomes: list[Outcome] = []
    try:
        await sampler.settle()
        await bench.table.start()
        await bench.measure_idle(args.idle_seconds)
        for name in chosen:
            outcomes.append(await bench.run(name, attacks[name]))
    finally:
        await bench.table.stop()
        sampler.stop()
    print_report(bench, outcomes)


def run_side(name: str) -> None:
    """``--child NAME``: one attack's attacker side, its parameters as JSON on stdin, what it
    saw as one JSON line on stdout. It may reach loopback and the Wi-Fi's subnet only."""
    params = json.loads(sys.stdin.read())
    guard.install()
    allow = params.pop("allow")
    if allow:
        guard.allow(allow)
    print(json.dumps(asyncio.run(SIDES[name](**params))))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--url", metavar="http://HOST:PORT", help="a running site (starts nothing)")
    parser.add_argument("--pid", type=int, help="the running site's Daphne pid (for its RSS)")
    parser.add_argument(
        "--attack", action="append", choices=ATTACKS, help="run only this attack (repeatable)"
    )
    parser.add_argument("--idle-seconds", type=float, default=10.0, help="idle measurement (10)")
    parser.add_argument("--keep-tmp", action="store_true", help="keep the site's temporary files")
    parser.add_argument(
        "--attacker",
        choices=("wifi", "loopback"),
        default="wifi",
        help="where the attacker runs: wifi = a machine of its own on a simulated Wi-Fi"
        " (a network namespace; needs root), so the site sees another address and applies"
        " every per-address limit (the default); loopback = this machine's 127.0.0.1, which"
        " the site never rate-limits",
    )
    # One attack's attacker side, run by ``Attacker.run``: its parameters as JSON on stdin.
    parser.add_argument("--child", choices=sorted(SIDES), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        run_side(args.child)
        return
    guard.install()  # honest players and probes: loopback and the Wi-Fi only
    with contextlib.ExitStack() as stack:
        args.attacker_host = None
        gateway = subnet = None
        if args.attacker == "wifi":
            reason = unavailable_reason()
            if reason:
                raise SystemExit(
                    f"abuse: cannot put the attacker on a simulated Wi-Fi: {reason}."
                    " Run as root, or pass --attacker loopback (no per-address limits apply)."
                )
            wifi = stack.enter_context(SimulatedWifi())
            args.attacker_host = wifi.add_host("attacker")
            gateway, subnet = wifi.gateway, str(wifi.subnet)
        site = load.Site(site_args(args.url, args.keep_tmp, gateway))
        attacker = Attacker(gateway or "127.0.0.1", args.attacker_host, subnet)
        try:
            site.start()
            asyncio.run(main_async(args, site, attacker))
        finally:
            site.stop()


if __name__ == "__main__":
    main()
