"""bench/hostile.py's probes 1 to 6 (poisoned words, idempotency keys, the NUL and
surrogate sweep, code guessing, a forged X-Forwarded-For, never-reading sockets), each
printing its figures and adding rows against the issue's floors to the ``Bench``."""

from __future__ import annotations

import asyncio
import json
import random
import re
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bench.attacks.client import ws_url
from bench.attacks.honest import solve_words
from bench.attacks.probe_client import Socket, call, create, end_round, running_round, ws_base
from bench.attacks.server_watch import RssSampler
from bench.attacks.wifi_attackers import Wifi, guess_socket

MB = 1024 * 1024


MISS_FLOOR_PER_MINUTE = 20
CREATE_BURST = 20  # web.throttle: room creations per address, at once


HELD_FLOOR_MB = 5.0


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
    daphnes: list[RssSampler]
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
    ann = await Socket.open(ws_url(base, code), a_token)
    mallory = await Socket.open(ws_url(base, code), b_token)
    await ann.ask({"type": "start_round"})
    round_ = await running_round(ann)
    found = solve_words(round_)
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
            reply = await sock.reply(request_id)
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
    requests: list[dict[str, Any]] = [
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
            # The bytes themselves in the Bearer header (read as Latin-1, as HTTP's are),
            # or the text as written where a header cannot carry them (NUL); a token in an
            # address is refused before it is read (token_in_url, 4400).
            raw = urllib.parse.unquote_to_bytes(bad).decode("latin-1")
            raw = raw if re.fullmatch(r"[\t\x20-\x7e\x80-\xff]*", raw) else bad
            for path, token in (
                (f"/ws/rooms/{real}/", f"ab{raw}cd"),
                (f"/ws/rooms/ab{bad}cd/", "x"),
                (f"/ws/rooms/{real}/?token=ab{bad}cd", None),
                (f"/ws/rooms/{real}/watch/?token=ab{bad}cd", None),
            ):
                outcome = await guess_socket(ws_base(base) + path, wait=3.0, token=token)
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
    sockets = [await Socket.open(ws_url(base, code), token) for token in tokens[:with_sockets]]
    await sockets[0].ask({"type": "start_round"})
    found = solve_words(await running_round(sockets[0]))
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
