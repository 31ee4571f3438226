"""Issue 27's hostile probes, rerun: figures against the issue's floors.

    python bench/hostile.py                          # embedded site: SQLite, one Daphne
    python bench/hostile.py --mode production        # PostgreSQL + Redis, 2 Daphnes, worker, beat
    python bench/hostile.py --probe guessing --probe daily

The site is started as ``bench/load.py`` starts it (a throwaway SQLite file, or in production
a throwaway PostgreSQL database, Redis keys under a prefix of their own, two Daphnes, a Celery
worker and beat), after ``manage.py collectstatic`` into var/static as ``bin/start`` runs it
(with debug off the pages need it), and stopped at the end; no trusted proxy is declared. The attackers are machines of their own on a
simulated Wi-Fi (``netlab``, as ``bench/abuse.py``; needs root): loopback is never
rate-limited, so every probe that measures a per-address limit runs on a Wi-Fi host, one
host per probe so that no probe spends another's budget. Probes that need no limit (the 5xx
sweep, the poisoned words, the honest victims) run from 127.0.0.1, where nothing masks a
fault behind a 429. Each probe is one function below; what it prints:

1. poisoned-words: player A enters 5 refused words while player B, in the same room and
   process, enters words whose ``client_id`` is "e\\ud800" or "e\\u0000" and words holding NUL
   or a lone surrogate (and, once the round ended, challenges one): A's refused words
   missing from A's ``my_words`` and from the results ("words lost", floor 0), and every
   ``server_error`` reply.
2. idempotency: a victim POSTs /api/rooms, /api/rooms/<code>/join and /api/practice with
   ``Idempotency-Key: 1``; the attacker (another address, no session) POSTs the same key and
   body: tokens it received that are the victim's (floor 0), and the statuses.
3. sweep: ``%00`` and ``%ED%A0%80`` in a room code on the 11 URLs of the issue (and two more),
   ``/api/daily?nickname=a%00b``, sockets with ``?token=ab%00cd``: answers 5xx and sockets
   closed 1011 (floor 0).
4. guessing: random room codes on GET /api/rooms/<code>, POST …/photos, GET …/photos/1,
   /r/<code>/, the player socket and the table screen's socket, in turn, for ``--guess-seconds``
   (70): misses answered 404 (4404 on a socket) in any 60 s (floor 20), when the first
   429 (4029) came, and what a real code gets afterwards.
5. forwarded: 25 room creations at once with ``X-Forwarded-For: 127.0.0.1`` (no
   ``BOGGLE_TRUSTED_PROXIES``): created vs limited (floor: at most 20, the address's burst).
6. never-reading: 8 table-screen sockets on a room with a big state (6x6, many players,
   ended round with its solution) send ``sync`` 8 times a second and never read, for
   ``--never-reading-seconds`` (30): the Daphnes' RSS before, at the peak and after, MB
   held per socket (floor 5) and each socket's close code as its client then reads it.
7. daily: today's board computed offline from ``solver/daily.py`` without the server's secret
   (the former public seed, and the repository's development key) against the server's
   (floor: no match; tomorrow's cannot be compared, the server shows only today's); a
   scripted solution entered as fast as allowed (floor: not on the leaderboard); a 0-point
   "Victim" then the real "victim" from another device (floor: listed); 25 entries at once
   from one address (floor: at most 12 accepted, the documented burst).

The load average is printed after each probe, and a table of figures against floors at the
end. No traffic leaves this machine: everything goes over loopback or the simulated Wi-Fi.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hmac
import json
import os
import random
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(1, str(REPO))

# abuse before load: abuse puts bench/ first on the path as it loads, load then puts the
# repository first again (bench/vision.py must not hide the vision package).
import abuse  # noqa: E402
import load  # noqa: E402
from websockets.asyncio.client import ClientConnection  # noqa: E402
from websockets.exceptions import ConnectionClosed  # noqa: E402

from netlab import Host, SimulatedWifi, guard, unavailable_reason  # noqa: E402
from netlab.websocket_frames import (  # noqa: E402
    client_text_frame,
    close_code_in,
    open_raw_websocket,
)

MB = 1024 * 1024
PROBES = (
    "sweep",
    "poisoned-words",
    "idempotency",
    "forwarded",
    "daily",
    "never-reading",
    "guessing",
)
ROOM_CODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # games.models.ROOM_CODE_ALPHABET
MISS_FLOOR_PER_MINUTE = 20
CREATE_BURST = 20  # games.throttle: room creations per address, at once
DAILY_BURST = 12  # daily attempts per address, at once
HELD_FLOOR_MB = 5.0
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))

log = load.log


# ------------------------------------------------------------------------------ clients


@dataclass
class Answer:
    status: int  # 0: no answer
    body: Any
    text: str

    @property
    def error(self) -> str:
        if isinstance(self.body, dict) and isinstance(self.body.get("error"), dict):
            return str(self.body["error"].get("code"))
        return ""


def call(
    url: str,
    method: str = "GET",
    body: Any = None,
    headers: dict[str, str] | None = None,
    raw: bytes | None = None,
    timeout: float = 30.0,
) -> Answer:
    """One HTTP request from a fresh client (no cookies, no proxy); never raises."""
    data = raw if raw is not None else json.dumps(body).encode() if body is not None else None
    sent = {"Accept": "application/json", **(headers or {})}
    if body is not None:
        sent.setdefault("Content-Type", "application/json")
    request = urllib.request.Request(url, data=data, method=method, headers=sent)
    try:
        with _OPENER.open(request, timeout=timeout) as response:
            status, content = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, content = error.code, error.read() if error.fp else b""
    except Exception as error:
        return Answer(0, None, f"{type(error).__name__}: {error}")
    text = content.decode("utf-8", "replace")
    try:
        parsed = json.loads(text) if text else None
    except ValueError:
        parsed = None
    return Answer(status, parsed, text[:200])


def ws_base(base: str) -> str:
    return base.replace("http://", "ws://", 1)


class Socket:
    """A room websocket that reads everything into ``messages``."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.messages: list[dict[str, Any]] = []
        self.changed = asyncio.Event()
        self.close_code: int | None = None
        self.closed = asyncio.Event()
        self._next_id = 0
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, url: str) -> Socket:
        return cls(await abuse.open_socket(url))

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                self.messages.append(json.loads(raw))
                self.changed.set()
        except ConnectionClosed:
            pass
        finally:
            self.close_code = self.ws.close_code
            self.closed.set()
            self.changed.set()

    async def send(self, message: dict[str, Any]) -> int:
        self._next_id += 1
        await self.ws.send(json.dumps({**message, "request_id": self._next_id}))
        return self._next_id

    async def wait(
        self, found: Callable[[dict[str, Any]], bool], timeout: float = 15.0
    ) -> dict[str, Any] | None:
        deadline = time.monotonic() + timeout
        while True:
            for message in self.messages:
                if found(message):
                    return message
            left = deadline - time.monotonic()
            if left <= 0 or self.closed.is_set():
                return None
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)

    async def ask(self, message: dict[str, Any], timeout: float = 15.0) -> dict[str, Any] | None:
        request_id = await self.send(message)
        return await self.wait(lambda m: m.get("request_id") == request_id, timeout)

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._reader, 5)


async def sync(sock: Socket) -> dict[str, Any]:
    """The room's state, as a ``sync`` answers it ({} when it did not)."""
    reply = await sock.ask({"type": "sync"}) or {}
    return dict(reply.get("state") or {})


async def running_round(sock: Socket, timeout: float = 30.0) -> dict[str, Any]:
    """The room's round once it runs and its ``starts_at`` has passed (sync until then)."""
    deadline = time.monotonic() + timeout
    state: dict[str, Any] | None = None
    while time.monotonic() < deadline:
        state = await sync(sock)
        round_ = state.get("round") or {}
        if round_.get("status") == "running" and time.time() * 1000 >= (round_["starts_at"] or 0):
            return dict(round_)
        await asyncio.sleep(0.5)
    raise RuntimeError(f"the round did not start: {str(state)[:300]}")


async def end_round(sock: Socket) -> dict[str, Any]:
    """End the round (host) and return the viewer's state afterwards."""
    for _ in range(20):  # a player who just spent its message budget is answered rate_limited
        reply = await sock.ask({"type": "end_round"}) or {}
        if reply.get("code") != "rate_limited":
            break
        await asyncio.sleep(1.0)
    if not await sock.wait(lambda m: m.get("type") == "round.ended", 30):
        raise RuntimeError(f"end_round: {reply}")
    await asyncio.sleep(1.0)
    return await sync(sock)


async def create(base: str, nickname: str, settings: dict[str, Any] | None = None) -> Answer:
    body: dict[str, Any] = {"nickname": nickname, **({"settings": settings} if settings else {})}
    answer = await asyncio.to_thread(call, f"{base}/api/rooms", "POST", body)
    if answer.status != 201:
        raise RuntimeError(f"creating a room: {answer.status} {answer.text}")
    return answer


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


# ---------------------------------------------------------------------- the attackers


class Wifi:
    """Attackers on the simulated Wi-Fi: one host per probe, each its own address."""

    def __init__(self, wifi: SimulatedWifi, bases: list[str]) -> None:
        self.wifi = wifi
        self.bases = [abuse.with_host(base, wifi.gateway) for base in bases]
        self.hosts: dict[str, Host] = {}

    def host(self, name: str) -> Host:
        if name not in self.hosts:
            self.hosts[name] = self.wifi.add_host(name)
        return self.hosts[name]

    async def run(self, host: str, side: str, **params: Any) -> dict[str, Any]:
        """Run ``side`` (a function in SIDES) on ``host``; its JSON answer."""
        argv = [sys.executable, str(Path(__file__).resolve()), "--child", side]
        child = await asyncio.create_subprocess_exec(
            *self.host(host).command(argv),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        given = {"bases": self.bases, "allow": str(self.wifi.subnet), **params}
        out, _ = await child.communicate(json.dumps(given).encode())
        lines = out.decode().strip().splitlines()
        if child.returncode != 0 or not lines:
            raise RuntimeError(f"the attacker's {side} failed (exit {child.returncode})")
        return dict(json.loads(lines[-1]))


async def side_http(
    bases: list[str], requests: list[dict[str, Any]], at_once: bool
) -> dict[str, Any]:
    """HTTP requests (method, path, body, headers) to the first Daphne, in turn or all at once."""

    def one(request: dict[str, Any]) -> dict[str, Any]:
        answer = call(
            bases[0] + request["path"], request.get("method", "POST"), request.get("body"),
            request.get("headers"),
        )  # fmt: skip
        return {"status": answer.status, "body": answer.body, "error": answer.error}

    if at_once:
        answers = await asyncio.gather(*(asyncio.to_thread(one, r) for r in requests))
    else:
        answers = [await asyncio.to_thread(one, r) for r in requests]
    return {"answers": list(answers)}


async def guess_socket(url: str, wait: float = 10.0) -> str:
    """Open a socket (a guessed code, a bad token): its close code and error codes, or how
    the handshake failed, or "open" when it is still open after ``wait`` seconds."""
    try:
        sock = await Socket.open(url)
    except Exception as error:
        return f"handshake failed: {type(error).__name__}: {error}"[:90]
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(sock.closed.wait(), wait)
    codes = ",".join(str(m.get("code")) for m in sock.messages if m.get("type") == "error")
    if not sock.closed.is_set():
        await sock.close()
        return f"open {codes}".strip()
    return f"{sock.close_code} {codes}".strip()


async def side_guess(
    bases: list[str], seconds: float, rate: float, real_code: str
) -> dict[str, Any]:
    """Guess room codes over six paths in turn for ``seconds``, ``rate`` guesses a second,
    spread over the Daphnes; then ask for a real code once."""
    kinds = ["api", "photo-post", "photo-get", "page", "player-socket", "watch-socket"]
    events: list[tuple[float, str, str]] = []
    started = time.monotonic()
    index = 0
    while time.monotonic() - started < seconds:
        kind, base = kinds[index % len(kinds)], bases[index % len(bases)]
        index += 1
        code = "".join(random.choice(ROOM_CODE_ALPHABET) for _ in range(8))
        at = time.monotonic() - started
        if kind.endswith("socket"):
            path = (
                f"/ws/rooms/{code}/watch/"
                if kind == "watch-socket"
                else f"/ws/rooms/{code}/?token=x"
            )
            outcome = await guess_socket(ws_base(base) + path)
        else:
            method, path, raw, headers = {
                "api": ("GET", f"/api/rooms/{code}", None, {}),
                "photo-post": (
                    "POST", f"/api/rooms/{code}/photos", b"--x--\r\n",
                    {"Content-Type": "multipart/form-data; boundary=x"},
                ),
                "photo-get": ("GET", f"/api/rooms/{code}/photos/1", None, {}),
                "page": ("GET", f"/r/{code}/", None, {}),
            }[kind]  # fmt: skip
            answer = await asyncio.to_thread(call, base + path, method, None, headers, raw)
            outcome = str(answer.status)
        events.append((at, kind, outcome))
        await asyncio.sleep(max(0.0, index / rate - (time.monotonic() - started)))
    real = await asyncio.to_thread(call, f"{bases[0]}/api/rooms/{real_code}")
    return {"events": events, "real_code": real.status}


def open_never_reading(base: str, path: str) -> socket.socket:
    """A websocket handshake on a socket with a small receive window that is then never read."""
    parts = urllib.parse.urlsplit(base)
    sock, head = open_raw_websocket(parts.hostname or "", parts.port or 80, path)
    if not head.startswith(b"HTTP/1.1 101"):
        raise RuntimeError(f"handshake refused: {head[:80]!r}")
    return sock


def send_syncs(sock: socket.socket, seconds: float) -> str:
    """``sync`` 8 times a second for ``seconds``, never reading; how sending ended."""
    frame = client_text_frame(json.dumps({"type": "sync"}))
    sock.settimeout(2.0)
    end = time.monotonic() + seconds
    sent = 0
    while time.monotonic() < end:
        try:
            sock.sendall(frame)
        except OSError as error:
            return f"send stopped after {sent} syncs ({type(error).__name__})"
        sent += 1
        time.sleep(0.125)
    return f"{sent} syncs sent"


def read_close_code(sock: socket.socket) -> str:
    """Read what is left: the close frame's code, or how the connection ended."""
    data = bytearray()
    sock.settimeout(15)
    try:
        while chunk := sock.recv(1 << 20):
            data += chunk
        ending = "EOF without a close frame"
    except ConnectionResetError:
        ending = "reset without a close frame"
    except TimeoutError:
        ending = "still open"
    code = close_code_in(bytes(data))
    return f"close {code}" if code is not None else ending


async def side_never_reading(
    bases: list[str], code: str, sockets: int, seconds: float
) -> dict[str, Any]:
    opened = [open_never_reading(bases[0], f"/ws/rooms/{code}/watch/") for _ in range(sockets)]
    sending = await asyncio.gather(*(asyncio.to_thread(send_syncs, s, seconds) for s in opened))
    endings = await asyncio.gather(*(asyncio.to_thread(read_close_code, s) for s in opened))
    for sock in opened:
        sock.close()
    return {"sending": list(sending), "endings": list(endings)}


SIDES: dict[str, Callable[..., Any]] = {
    "http": side_http,
    "guess": side_guess,
    "never-reading": side_never_reading,
}


def run_side(name: str) -> None:
    """``--child NAME``: one attacker side; its parameters as JSON on stdin, its figures as
    one JSON line on stdout. It may reach loopback and the Wi-Fi's subnet only."""
    params = json.loads(sys.stdin.read())
    guard.install()
    guard.allow(params.pop("allow"))
    print(json.dumps(asyncio.run(SIDES[name](**params))))


# ------------------------------------------------------------------------------- probes


@dataclass
class Row:
    item: str
    figure: str
    floor: str
    held: bool


@dataclass
class Bench:
    mode: str
    bases: list[str]  # the Daphnes, on 127.0.0.1
    daphnes: list[abuse.RssSampler]
    wifi: Wifi
    guess_seconds: float
    never_reading_seconds: float
    rows: list[Row] = field(default_factory=list)

    def row(self, item: str, figure: str, floor: str, held: bool) -> None:
        self.rows.append(Row(item, figure, floor, held))
        print(f"  => {item}: {figure} (floor {floor}) {'ok' if held else 'MISSED'}", flush=True)

    def rss(self) -> int:
        """The Daphnes' RSS, their process trees together."""
        return sum(daphne.read() or 0 for daphne in self.daphnes)


async def probe_poisoned_words(bench: Bench) -> None:
    """Item 1: one player's poisoned entries must not cost another player's refused words."""
    base = bench.bases[0]  # both players on one process: one batch of refused words
    created = await create(base, "Ann", {"round_seconds": None})
    code, a_token = created.body["room"]["code"], created.body["player"]["token"]
    joined = await asyncio.to_thread(
        call, f"{base}/api/rooms/{code}/join", "POST", {"nickname": "Mallory"}
    )
    b_token = joined.body["player"]["token"]
    ann = await Socket.open(abuse.ws_url(base, code, a_token))
    mallory = await Socket.open(abuse.ws_url(base, code, b_token))
    await ann.ask({"type": "start_round"})
    round_ = await running_round(ann)
    found = abuse.solve_words(round_)
    refused = ["zzzxq", "qqqjx", "xxvvk", "jjjqz", "vvqxz"]
    poison = [
        {"word": found[0] if found else "tea", "client_id": "e\ud800"},
        {"word": "zzzzy", "client_id": "e\u0000"},
        {"word": "ab\u0000c", "client_id": "m3"},
        {"word": "ab\ud800c", "client_id": "m4"},
        {"word": found[1] if len(found) > 1 else "tee", "client_id": "e\u0000"},
    ]
    ann_ids, mallory_ids = [], []
    for index, word in enumerate(refused):
        ann_ids.append(await ann.send({"type": "submit", "word": word, "client_id": f"a{index}"}))
        mallory_ids.append(await mallory.send({"type": "submit", **poison[index]}))
    replies: Counter[str] = Counter()
    for sock, ids in ((ann, ann_ids), (mallory, mallory_ids)):
        for request_id in ids:
            reply = await sock.wait(lambda m, r=request_id: m.get("request_id") == r)
            reply = reply or {}
            what = reply.get("verdict") or reply.get("code") or "no answer"
            replies[f"{'A' if sock is ann else 'B'} {reply.get('type', '-')} {what}"] += 1
    await asyncio.sleep(3.0)  # the flusher's pass
    state = await end_round(ann)
    challenge = (
        await mallory.ask({"type": "challenge", "word": "ab\u0000c", "round_number": 1}) or {}
    )
    replies[f"B challenge of a NUL word: {challenge.get('type')} {challenge.get('code', '')}"] += 1
    mine = {entry["word"] for entry in state.get("my_words", [])}
    results = await asyncio.to_thread(call, f"{base}/api/rooms/{code}/rounds/1")
    rejected: set[str] = set()
    for player in ((results.body or {}).get("results") or {}).get("players", []):
        if player.get("nickname") == "Ann":
            rejected = {entry["word"] for entry in player.get("rejected", [])}
    lost = {word for word in refused if word not in mine or word not in rejected}
    server_errors = sum(n for what, n in replies.items() if "server_error" in what)
    for what, n in sorted(replies.items()):
        print(f"  {n} x {what}")
    print(
        f"  A's refused words: {len(set(refused) & mine)}/5 in my_words, {len(set(refused) & rejected)}/5 in the results"
        f" (results status {results.status}); words lost: {len(lost)}; server_error replies: {server_errors}"
    )
    await ann.close()
    await mallory.close()
    bench.row("1 words lost", str(len(lost)), "0", not lost)
    bench.row("1 server_error replies", str(server_errors), "0", server_errors == 0)


async def probe_idempotency(bench: Bench) -> None:
    """Item 2: the same Idempotency-Key from another client never gets the victim's token."""
    base = bench.bases[0]
    key = {"Idempotency-Key": "1"}
    owner = await create(base, "Owner")
    join_path = f"/api/rooms/{owner.body['room']['code']}/join"
    requests = [
        {"path": "/api/rooms", "body": {"nickname": "Victim"}, "headers": key},
        {"path": join_path, "body": {"nickname": "Vic"}, "headers": key},
        {"path": "/api/practice", "body": {"nickname": "Victim"}, "headers": key},
    ]
    victim = [
        await asyncio.to_thread(call, base + r["path"], "POST", r["body"], key) for r in requests
    ]
    tokens = {a.body["player"]["token"] for a in victim if a.status == 201}
    attacker = (await bench.wifi.run("idem", "http", requests=requests, at_once=False))["answers"]
    handed = 0
    for request, mine, theirs in zip(requests, victim, attacker, strict=True):
        token = ((theirs.get("body") or {}).get("player") or {}).get("token")
        handed += token in tokens
        print(
            f"  {request['path']}: victim {mine.status}, attacker {theirs['status']}"
            f" {theirs['error']}{' (the VICTIM token)' if token in tokens else ''}"
        )
    other = await asyncio.to_thread(call, f"{base}/api/rooms", "POST", {"nickname": "Other"}, key)
    print(f"  the victim's key again with another body: {other.status} {other.error}")
    bench.row("2 tokens handed to another client", f"{handed} of 3", "0", handed == 0)


SWEEP_PATHS = [
    ("GET", "/api/rooms/{c}"),
    ("POST", "/api/rooms/{c}/join"),
    ("GET", "/api/rooms/{c}/rounds"),
    ("GET", "/api/rooms/{c}/rounds/1"),
    ("GET", "/api/rooms/{c}/stats"),
    ("GET", "/api/rooms/{c}/rounds/1.png"),
    ("GET", "/r/{c}/"),
    ("GET", "/r/{c}/table/"),
    ("GET", "/r/{c}/rounds/1/"),
    ("POST", "/api/rooms/{c}/photos"),
    ("GET", "/api/rooms/{c}/photos/1"),
    ("GET", "/api/rooms/{c}/photos/1/image"),  # not in the 11
    ("GET", "/api/rooms/{c}/join-request"),  # not in the 11
]
BAD_TEXT = ("%00", "%ED%A0%80")


async def probe_sweep(bench: Bench) -> None:
    """Item 3: NUL and lone surrogates in codes, query strings and tokens: no 5xx, no 1011."""
    real = (await create(bench.bases[0], "Sweeper")).body["room"]["code"]
    statuses: Counter[int] = Counter()
    failures: list[str] = []
    targets = [(m, p.format(c="zzzzzzzz")) for m, p in SWEEP_PATHS]  # well-formed, unknown
    for bad in BAD_TEXT:
        targets += [(m, p.format(c=f"ab{bad}cd")) for m, p in SWEEP_PATHS]
        targets += [("GET", f"/api/daily?nickname=a{bad}b"), ("GET", f"/api/rooms?x={bad}")]
    for base in bench.bases:
        for method, path in targets:
            body = {"nickname": "x"} if method == "POST" else None
            answer = await asyncio.to_thread(call, base + path, method, body)
            statuses[answer.status] += 1
            if answer.status >= 500 or answer.status == 0:
                failures.append(f"{method} {path} -> {answer.status} {answer.text[:60]!r}")
            elif answer.status < 300:
                print(f"  answered {answer.status}: {method} {path}")
        for body in ({"nickname": "a\u0000b"}, {"nickname": "a\ud800b"}):
            for path in ("/api/rooms", "/api/daily", "/api/practice", f"/api/rooms/{real}/join"):
                answer = await asyncio.to_thread(call, base + path, "POST", body)
                statuses[answer.status] += 1
                if answer.status >= 500 or answer.status == 0:
                    failures.append(f"POST {path} {body!r} -> {answer.status}")
    closes: Counter[str] = Counter()
    for base in bench.bases:
        for bad in BAD_TEXT:
            for path in (
                f"/ws/rooms/{real}/?token=ab{bad}cd",
                f"/ws/rooms/ab{bad}cd/?token=x",
                f"/ws/rooms/{real}/watch/?token=ab{bad}cd",
            ):
                outcome = await guess_socket(ws_base(base) + path, wait=3.0)
                closes[outcome] += 1
                if outcome.startswith("1011") or "HTTP 5" in outcome:
                    failures.append(f"socket {path} -> {outcome}")
    fives = sum(n for status, n in statuses.items() if status >= 500)
    ten_elevens = sum(
        n for what, n in closes.items() if what.startswith("1011") or "HTTP 5" in what
    )
    print(f"  HTTP statuses: {dict(sorted(statuses.items()))}; socket closes: {dict(closes)}")
    for line in failures:
        print(f"  FAULT {line}")
    bench.row("3 answers 5xx", str(fives), "0", fives == 0 and not statuses[0])
    bench.row("3 sockets closed 1011", str(ten_elevens), "0", ten_elevens == 0)


async def probe_guessing(bench: Bench) -> None:
    """Item 4: one miss budget per address over every path that takes a room code."""
    real = (await create(bench.bases[0], "Guarded")).body["room"]["code"]
    report = await bench.wifi.run(
        "guesser", "guess", seconds=bench.guess_seconds, rate=8.0, real_code=real
    )
    events = [(float(at), kind, outcome) for at, kind, outcome in report["events"]]
    misses = [at for at, _, outcome in events if outcome in ("404", "4404 room_not_found")]
    limited = [at for at, _, outcome in events if outcome.startswith(("429", "4029"))]
    worst = max((sum(1 for t in misses if s <= t < s + 60) for s in misses), default=0)
    by_kind: dict[str, Counter[str]] = {}
    for _, kind, outcome in events:
        by_kind.setdefault(kind, Counter())[outcome] += 1
    for kind, outcomes in by_kind.items():
        print(f"  {kind}: {dict(outcomes)}")
    first = f"{limited[0]:.1f} s" if limited else "never"
    minutes = Counter(int(at // 60) for at in misses)
    print(
        f"  {len(events)} guesses in {bench.guess_seconds:.0f} s; misses answered 404/4404 by"
        f" minute: {dict(sorted(minutes.items()))}; the most in any 60 s: {worst}; first 429/4029"
        f" at {first}; a real code afterwards: {report['real_code']}"
    )
    bench.row(
        "4 room-code misses per minute per address",
        str(worst),
        f"<= {MISS_FLOOR_PER_MINUTE}",
        worst <= MISS_FLOOR_PER_MINUTE,
    )


async def probe_forwarded(bench: Bench) -> None:
    """Item 5: X-Forwarded-For from a client that is no declared proxy is ignored."""
    request = {
        "path": "/api/rooms",
        "body": {"nickname": "Forger"},
        "headers": {"X-Forwarded-For": "127.0.0.1"},
    }
    answers = (await bench.wifi.run("forwarder", "http", requests=[request] * 25, at_once=True))[
        "answers"
    ]
    statuses = Counter(answer["status"] for answer in answers)
    created = statuses[201]
    print(f"  25 creations with X-Forwarded-For: 127.0.0.1: {dict(statuses)}")
    bench.row(
        "5 creations with a forged X-Forwarded-For",
        f"{created} created, {statuses[429]} limited",
        f"<= {CREATE_BURST} created",
        created <= CREATE_BURST,
    )


async def big_room(base: str, players: int = 160, with_sockets: int = 30) -> str:
    """A room whose state is large: 6x6, ``players`` players, an ended round in which
    ``with_sockets`` of them entered words (its results hold the whole solution)."""
    created = await create(base, "Host", {"board_size": "6x6", "round_seconds": None})
    code = created.body["room"]["code"]
    tokens = [created.body["player"]["token"]]
    for index in range(players - 1):
        nickname = f"p{index:03d}-" + "x" * 19  # 24 characters, the most
        joined = await asyncio.to_thread(
            call, f"{base}/api/rooms/{code}/join", "POST", {"nickname": nickname}
        )
        if joined.status == 201:
            tokens.append(joined.body["player"]["token"])
    sockets = [
        await Socket.open(abuse.ws_url(base, code, token)) for token in tokens[:with_sockets]
    ]
    await sockets[0].ask({"type": "start_round"})
    found = abuse.solve_words(await running_round(sockets[0]))
    for index, sock in enumerate(sockets):
        for word in random.Random(index).sample(found, min(25, len(found))):
            await sock.send({"type": "submit", "word": word})
    await asyncio.sleep(3.0)
    await end_round(sockets[0])
    for sock in sockets:
        await sock.close()
    return code


async def probe_never_reading(bench: Bench) -> None:
    """Item 6: sockets that never read cost the server at most 5 MB each."""
    base = bench.bases[0]
    code = await big_room(base)
    state = await asyncio.to_thread(call, f"{base}/api/rooms/{code}")
    size = len(json.dumps(state.body).encode())
    await asyncio.sleep(3.0)
    before = peak = bench.rss()
    sockets = 8
    child = asyncio.create_task(
        bench.wifi.run(
            "reader",
            "never-reading",
            code=code,
            sockets=sockets,
            seconds=bench.never_reading_seconds,
        )
    )
    while not child.done():
        peak = max(peak, bench.rss())
        await asyncio.sleep(0.25)
    report = child.result()
    await asyncio.sleep(5.0)
    after = bench.rss()
    held = (peak - before) / MB / sockets
    print(
        f"  room state {size / 1024:.0f} KB; {sockets} sockets, sync 8/s for"
        f" {bench.never_reading_seconds:.0f} s: Daphne RSS {before / MB:.0f} MB before, peak"
        f" {peak / MB:.0f} MB (+{(peak - before) / MB:.1f}), {after / MB:.0f} MB 5 s after"
    )
    print(f"  sending: {dict(Counter(report['sending']))}")
    print(f"  closes as seen: {dict(Counter(report['endings']))}")
    bench.row(
        "6 MB held per never-reading socket",
        f"{held:.2f}",
        f"<= {HELD_FLOOR_MB:.0f}",
        held <= HELD_FLOOR_MB,
    )


def offline_boards(day: Any) -> dict[str, str]:
    """``day``'s board as someone with only the repository could compute it."""
    from boggle_site.env import DAILY_SECRET_PURPOSE, DEV_SECRET_KEY
    from solver import daily as solver_daily
    from solver import dictionaries, solve
    from solver.dice import roll

    lexicon = dictionaries.load("english")

    def public_seed() -> str:  # the seed before issue 27: date, salt, roll number
        for number in range(solver_daily.MAX_ROLLS):
            board = roll(
                solver_daily.CLASSIC_1992, f"{day.isoformat()}:{solver_daily.DAILY_SALT}:{number}"
            )
            if solver_daily.is_rich(solve(board, lexicon)):
                return board.to_text()
        return ""

    dev_secret = hmac.new(DEV_SECRET_KEY.encode(), DAILY_SECRET_PURPOSE, "sha256").hexdigest()
    guesses = {"public seed (before the fix)": public_seed()}
    for name, secret in (
        ("secret derived from the development key", dev_secret),
        ("the development key itself", DEV_SECRET_KEY),
        ("the salt as the secret", solver_daily.DAILY_SALT),
    ):
        guesses[name] = solver_daily.daily_board(day, lexicon, secret).board.to_text()
    return guesses


async def daily_attempt(base: str, nickname: str) -> tuple[Answer, Socket | None]:
    answer = await asyncio.to_thread(call, f"{base}/api/daily", "POST", {"nickname": nickname})
    if answer.status != 201:
        return answer, None
    room, token = answer.body["room"]["code"], answer.body["player"]["token"]
    return answer, await Socket.open(abuse.ws_url(base, room, token))


async def listed(base: str, nickname: str) -> tuple[bool, dict[str, Any]]:
    board = (await asyncio.to_thread(call, f"{base}/api/daily?nickname={nickname}")).body or {}
    names = [entry["nickname"] for entry in board.get("leaderboard", [])]
    return nickname in names, board


async def probe_daily(bench: Bench) -> None:
    """Item 7: the daily board: secret seed, plausibility, names owned by devices, limits."""
    from solver import parse_board

    base = bench.bases[0]
    today = datetime.now(UTC).date()
    first, fake = await daily_attempt(base, "Victim")
    if fake is None:
        raise RuntimeError(f"POST /api/daily: {first.status} {first.text}")
    round_ = await running_round(fake)
    server_board = parse_board(round_["board"]).to_text()
    guesses = await asyncio.to_thread(offline_boards, today)
    matches = [name for name, board in guesses.items() if board == server_board]
    print(f"  today's board {server_board!r}; offline guesses: {guesses}")
    tomorrow = await asyncio.to_thread(offline_boards, today + timedelta(days=1))
    print(
        f"  tomorrow's offline guesses (cannot be checked: the server shows today's only): {tomorrow}"
    )
    bench.row(
        "7a today's board computed offline",
        f"{len(matches)} of {len(guesses)} guesses match",
        "0",
        not matches,
    )

    # (c) a 0-point "Victim" first, from one device
    await end_round(fake)
    await fake.close()

    # (b) a script enters the solution as fast as the socket allows
    speedy_answer, speedy = await daily_attempt(base, "Speedy")
    if speedy is None:
        raise RuntimeError(f"POST /api/daily: {speedy_answer.status} {speedy_answer.text}")
    words = abuse.solve_words(await running_round(speedy))
    began, pending = time.monotonic(), list(words[:60])
    accepted = 0
    while pending and time.monotonic() - began < 20:
        ids = {await speedy.send({"type": "submit", "word": w, "client_id": w}): w for w in pending}
        pending = []
        for request_id, word in ids.items():
            reply = await speedy.wait(lambda m, r=request_id: m.get("request_id") == r) or {}
            if reply.get("code") == "rate_limited":
                pending.append(word)
            accepted += bool(reply.get("accepted"))
        if pending:
            await asyncio.sleep(1.0)
    seconds = time.monotonic() - began
    await end_round(speedy)
    await asyncio.sleep(2.0)  # the result is recorded as the round ends
    daily = (await sync(speedy)).get("daily") or {}
    await speedy.close()
    speedy_listed, _ = await listed(base, "Speedy")
    print(
        f"  script: {accepted} words accepted in {seconds:.1f} s; its attempt: status"
        f" {daily.get('status')}, entry {daily.get('entry')}; on the leaderboard: {speedy_listed}"
    )
    finished = daily.get("status") not in (None, "playing")
    bench.row(
        "7b scripted solution on the public leaderboard",
        f"{speedy_listed} ({len(words[:60])} of {len(words)} words, attempt {daily.get('status')})",
        "False, attempt finished",
        finished and not speedy_listed,
    )

    # (c) the real "victim" from another device, at a human pace
    real_answer, real = await daily_attempt(base, "victim")
    real_listed = False
    if real is not None:
        found = abuse.solve_words(await running_round(real))
        for word, gap in zip(
            sorted(found, key=len, reverse=True)[:3], (2.3, 3.9, 0.0), strict=False
        ):
            await real.ask({"type": "submit", "word": word, "client_id": word})
            await asyncio.sleep(gap)
        await end_round(real)
        await real.close()
        await asyncio.sleep(1.0)
        real_listed, board = await listed(base, "victim")
        print(
            f"  real victim: POST {real_answer.status}; played {board.get('played')}; listed: {real_listed}"
        )
    else:
        print(f"  real victim: POST /api/daily {real_answer.status} {real_answer.error}")
    bench.row(
        "7c real 'victim' listed after a 0-point 'Victim'", str(real_listed), "True", real_listed
    )

    # (d) 25 entries at once from one address
    requests = [{"path": "/api/daily", "body": {"nickname": f"Burst{i}"}} for i in range(25)]
    answers = (await bench.wifi.run("burster", "http", requests=requests, at_once=True))["answers"]
    statuses = Counter(answer["status"] for answer in answers)
    print(f"  25 entries at once: {dict(statuses)}")
    bench.row(
        "7d daily entries in a burst of 25",
        f"{statuses[201]} accepted, {statuses[429]} limited",
        f"<= {DAILY_BURST} accepted",
        statuses[201] <= DAILY_BURST,
    )


PROBE_FUNCTIONS: dict[str, Callable[[Bench], Any]] = {
    "sweep": probe_sweep,
    "poisoned-words": probe_poisoned_words,
    "idempotency": probe_idempotency,
    "forwarded": probe_forwarded,
    "daily": probe_daily,
    "never-reading": probe_never_reading,
    "guessing": probe_guessing,
}


# -------------------------------------------------------------------------------- main


def collect_static(site: load.Site) -> None:
    """``collectstatic``, as bin/start runs it before Daphne: with debug off the pages (the
    room-missing page among them) need the hashed files' manifest, or they answer 500."""
    log("manage.py collectstatic --noinput ...")
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
        cwd=REPO, env=site.base_env(), check=True,
    )  # fmt: skip


def site_args(args: argparse.Namespace, gateway: str) -> argparse.Namespace:
    """The options ``load.Site`` reads: listening on every address (the attackers reach it
    on the Wi-Fi's ``gateway``), with no trusted proxy."""
    return argparse.Namespace(
        bind="0.0.0.0",
        extra_hosts=[gateway],
        url=None,
        mode=args.mode,
        daphnes=1 if args.mode == "embedded" else 2,
        postgres_url=args.postgres_url,
        redis_url=args.redis_url,
        redis_db=args.redis_db,
        keep_tmp=args.keep_tmp,
        preload_reader=False,
    )


async def main_async(bench: Bench, chosen: list[str]) -> None:
    print(
        f"hostile probes, {bench.mode} mode, Daphnes {', '.join(bench.bases)}; load average {load_average()}"
    )
    for name in chosen:
        print(f"\n[{name}]", flush=True)
        started = time.monotonic()
        try:
            await PROBE_FUNCTIONS[name](bench)
        except Exception as error:
            print(f"  probe failed: {type(error).__name__}: {error}")
            bench.row(name, f"probe failed ({type(error).__name__})", "-", False)
        print(f"  {time.monotonic() - started:.0f} s; load average {load_average()}", flush=True)
    print(f"\nfigures vs floors ({bench.mode} mode; load average {load_average()}):")
    width = max(len(row.item) for row in bench.rows)
    for row in bench.rows:
        print(
            f"  {row.item:<{width}}  {row.figure:<28} floor {row.floor:<22} {'ok' if row.held else 'MISSED'}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mode", choices=("embedded", "production"), default="embedded")
    parser.add_argument(
        "--probe", action="append", choices=PROBES, help="run only this probe (repeatable)"
    )
    parser.add_argument("--guess-seconds", type=float, default=70.0)
    parser.add_argument("--never-reading-seconds", type=float, default=30.0)
    parser.add_argument("--postgres-url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379")
    parser.add_argument("--redis-db", type=int, default=14)
    parser.add_argument("--keep-tmp", action="store_true", help="keep the site's logs")
    parser.add_argument("--child", choices=sorted(SIDES), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        run_side(args.child)
        return
    reason = unavailable_reason()
    if reason:
        raise SystemExit(f"hostile: the attackers need a simulated Wi-Fi: {reason}")
    guard.install()
    chosen = [name for name in PROBES if name in (args.probe or PROBES)]
    with SimulatedWifi() as wifi:
        site = load.Site(site_args(args, wifi.gateway))
        try:
            collect_static(site)
            site.start()
            daphnes = [
                abuse.RssSampler(s.process.pid)
                for s in site.processes
                if s.name.startswith("daphne")
            ]
            bench = Bench(
                args.mode, site.urls, daphnes, Wifi(wifi, site.urls),
                args.guess_seconds, args.never_reading_seconds,
            )  # fmt: skip
            asyncio.run(main_async(bench, chosen))
        finally:
            site.stop()


if __name__ == "__main__":
    main()
