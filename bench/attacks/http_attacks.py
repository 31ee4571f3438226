"""The attacks of bench/abuse.py that POST what no client should: huge-body (100 MB
streamed), photo-bombs (PNGs that decode big) and deep-json (JSON nested thousands deep,
over HTTP and the socket); each has its attacker's side (``side_*``) and this side's
reading of it (``attack_*``)."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import math
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections import Counter
from typing import Any

from bench.attacks.attacker import SideReport, take_report, to_monotonic
from bench.attacks.client import Credentials, create_room, http, join_room
from bench.attacks.honest import Player
from bench.attacks.measurement import Bench
from bench.attacks.outcome import Outcome
from bench.attacks.server_watch import MB, mb
from bench.crowd.http_client import HttpResult
from vision.loading import MAX_FULL_DECODE_PIXELS

HUGE_BODY_BYTES = 100 * MB


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


def post(url: str, body: bytes, headers: dict[str, str], timeout: float) -> HttpResult:
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
        return HttpResult(0, None, type(error).__name__, time.monotonic() - start)
    parsed = None
    with contextlib.suppress(ValueError):
        parsed = json.loads(raw)
    code = ""
    if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict):
        code = str(parsed["error"].get("code"))
    if not code and status >= 400:
        code = raw[:40].decode(errors="replace")
    return HttpResult(status, parsed, code, time.monotonic() - start)


def upload(base: str, code: str, token: str, body: bytes, content_type: str) -> HttpResult:
    headers = {"Content-Type": content_type, "Authorization": f"Bearer {token}"}
    return post(f"{base}/api/rooms/{code}/photos", body, headers, timeout=60)


def upload_png(base: str, room: Credentials, side: int) -> HttpResult:
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


# deep-json


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def raw_json_post(base: str, path: str, text: str) -> HttpResult:
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
