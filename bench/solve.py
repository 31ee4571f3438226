"""The Solve page's costs: ``GET /api/solve`` per board size, ``POST /api/solve/check`` for
a full paper game, and a 12-megapixel photo to its words.

    python bench/solve.py [--boards 200] [--photos 5] [--mode embedded|production]
    python bench/solve.py --url http://127.0.0.1:8000    # a running site (starts nothing)

Starts the site as ``bench/load.py`` does (embedded: a SQLite file and one Daphne, the
photo reader preloaded; production: PostgreSQL, Redis, a Daphne and a Celery worker that
reads the photos), then, from one client on loopback over one kept-alive connection:

- **solve**: ``--boards`` seeded rolls of each size (classic 4x4, big 5x5, super-big 6x6),
  each asked once (a board the process has not solved: what a new board costs, the
  process warm) and then once again (the process keeps solutions: what a second visit
  costs); the time from sending the request to the last byte of the answer.
- **check**: a paper game of 12 lists of 500 words (the largest taken) on 4x4 boards.
- **photo** (needs ``../shared/data/boggle-boards``; skipped without): a labelled photo
  scaled up to 4000x3000 (12 MP) JPEG, sent to ``POST /api/solve/photos``, waited for with
  ``GET …?wait=``, then its board solved with ``GET /api/solve``: the page's path from the
  shutter to the words, less the drawing. The first photo warms the reader up and is not
  counted.

Prints the load average before and after, and p50 / p95 / p99 / max in milliseconds. The
issue's floors (issue 47): solve p50 <= 20 ms and p99 <= 50 ms on 4x4, p99 <= 100 ms on
6x6; the photo <= 2 s warm.
"""

from __future__ import annotations

import argparse
import http.client
import io
import json
import os
import statistics
import sys
import time
import urllib.parse
import uuid
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.crowd.figures import log  # noqa: E402
from bench.crowd.site import Site  # noqa: E402
from solver import roll  # noqa: E402

SIZES = (("4x4", "classic"), ("5x5", "big"), ("6x6", "super-big"))
PHOTO = REPO.parent / "shared" / "data" / "boggle-boards" / "004d2c027e43dd194554d6527b4ba67a.jpg"
TWELVE_MP = (4000, 3000)


class Connection:
    """One kept-alive HTTP connection to the site, as a page's would be."""

    def __init__(self, url: str) -> None:
        parts = urllib.parse.urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.http = http.client.HTTPConnection(self.host, self.port, timeout=60)

    def request(
        self, method: str, path: str, body: bytes | None = None, headers: dict | None = None
    ) -> tuple[int, bytes, float]:
        """(status, body, seconds from sending to the last byte)."""
        started = time.perf_counter()
        try:
            self.http.request(method, path, body=body, headers=headers or {})
            response = self.http.getresponse()
            data = response.read()
        except (http.client.HTTPException, OSError):
            self.http.close()
            self.http = http.client.HTTPConnection(self.host, self.port, timeout=60)
            raise
        return response.status, data, time.perf_counter() - started


def percentiles(seconds: list[float]) -> str:
    ms = sorted(value * 1000 for value in seconds)
    if not ms:
        return "no samples"

    def at(share: float) -> float:
        return ms[min(len(ms) - 1, round(share * (len(ms) - 1)))]

    return (
        f"p50 {statistics.median(ms):6.1f}  p95 {at(0.95):6.1f}  p99 {at(0.99):6.1f}"
        f"  max {ms[-1]:6.1f} ms  (n={len(ms)})"
    )


def warm_up(connection: Connection) -> None:
    """A few boards of each size, not counted: the first loads the word list, the
    frequency list and the compiled walk into the process."""
    for size, dice in SIZES:
        for seed in range(5):
            text = roll(dice, f"bench-solve:warm:{size}:{seed}").to_text()
            connection.request("GET", "/api/solve?" + urllib.parse.urlencode({"board": text}))


def bench_solve(connection: Connection, boards: int) -> dict[str, Any]:
    warm_up(connection)
    figures: dict[str, Any] = {}
    for size, dice in SIZES:
        texts = [
            roll(dice, f"bench-solve:{size}:{seed}:{uuid.uuid4().hex}").to_text()
            for seed in range(boards)
        ]
        new: list[float] = []
        again: list[float] = []
        words: list[int] = []
        for attempt in (new, again):
            for text in texts:
                path = "/api/solve?" + urllib.parse.urlencode({"board": text})
                status, body, seconds = connection.request("GET", path)
                if status != 200:
                    raise SystemExit(f"solve: {status} {body[:200]!r} for {text!r}")
                attempt.append(seconds)
                if attempt is new:
                    words.append(json.loads(body)["word_count"])
        log(
            f"solve {size} new boards:   {percentiles(new)}  (words p50 {statistics.median(words):.0f}, max {max(words)})"
        )
        log(f"solve {size} asked again:  {percentiles(again)}")
        figures[size] = {"new": new, "again": again, "words": words}
    return figures


def bench_check(connection: Connection, games: int) -> list[float]:
    times = []
    for seed in range(games):
        board = roll("classic", f"bench-check:{seed}").to_text()
        status, body, _ = connection.request(
            "GET", "/api/solve?" + urllib.parse.urlencode({"board": board})
        )
        found = [word["word"] for word in json.loads(body)["words"]]
        players = []
        for player in range(12):
            # A mix a family writes: words of the board (shared by some), misspellings, junk.
            words = [found[(player * 7 + i) % len(found)] for i in range(min(len(found), 150))]
            words += [f"{word}s" for word in words[:150]] + ["zqxj", "aa", "hello"] * 66
            players.append({"name": f"Player {player + 1}", "words": words[:500]})
        body_bytes = json.dumps({"board": board, "players": players}).encode()
        status, answer, seconds = connection.request(
            "POST", "/api/solve/check", body_bytes, {"Content-Type": "application/json"}
        )
        if status != 200:
            raise SystemExit(f"check: {status} {answer[:200]!r}")
        times.append(seconds)
    log(f"check 12 lists x 500 words: {percentiles(times)}")
    return times


def twelve_megapixel_jpeg() -> bytes | None:
    if not PHOTO.is_file():
        return None
    import numpy as np
    from PIL import Image

    with Image.open(PHOTO) as image:
        big = image.convert("RGB").resize(TWELVE_MP, Image.Resampling.LANCZOS)
    # A phone's sensor noise: without it the scaled-up picture compresses to a tenth of a
    # real 12 MP photo, and decoding a JPEG costs by its compressed size.
    noise = np.random.default_rng(0).normal(0, 6, (TWELVE_MP[1], TWELVE_MP[0], 3))
    noisy = np.clip(np.asarray(big, dtype=np.float32) + noise, 0, 255).astype(np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(noisy).save(buffer, format="JPEG", quality=92)
    return buffer.getvalue()


def multipart(data: bytes) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="photo"; filename="board.jpg"\r\n'
        "Content-Type: image/jpeg\r\n\r\n"
    ).encode()
    return (
        head + data + f"\r\n--{boundary}--\r\n".encode(),
        f"multipart/form-data; boundary={boundary}",
    )


def photo_to_words(connection: Connection, data: bytes) -> tuple[float, dict[str, float]]:
    """One photo from upload to its solved board: (total seconds, each step's)."""
    body, content_type = multipart(data)
    started = time.perf_counter()
    status, answer, upload = connection.request(
        "POST", "/api/solve/photos", body, {"Content-Type": content_type}
    )
    if status != 202:
        raise SystemExit(f"photo upload: {status} {answer[:200]!r}")
    sent = json.loads(answer)
    photo_id, key = sent["photo"]["id"], sent["key"]
    reading = 0.0
    give_up = time.monotonic() + 60
    while True:
        if time.monotonic() > give_up:
            raise SystemExit(f"photo {photo_id} still not read after 60 s (see the worker's log)")
        status, answer, seconds = connection.request(
            "GET",
            f"/api/solve/photos/{photo_id}?wait=10",
            headers={"Authorization": f"Bearer {key}"},
        )
        reading += seconds
        photo = json.loads(answer)["photo"]
        if photo["status"] in ("read", "failed"):
            break
    if photo["status"] != "read":
        raise SystemExit(f"photo not read: {photo['error']}")
    board = photo["result"]["board"]
    status, answer, solving = connection.request(
        "GET", "/api/solve?" + urllib.parse.urlencode({"board": board})
    )
    if status != 200:
        raise SystemExit(f"photo's board: {status} {answer[:200]!r}")
    return time.perf_counter() - started, {"upload": upload, "read": reading, "solve": solving}


def bench_photo(connection: Connection, photos: int) -> list[float] | None:
    data = twelve_megapixel_jpeg()
    if data is None:
        log(f"photo: skipped ({PHOTO} is not here)")
        return None
    log(f"photo: {TWELVE_MP[0]}x{TWELVE_MP[1]} JPEG, {len(data) / 1e6:.1f} MB")
    first, _ = photo_to_words(connection, data)
    log(f"photo, first (reader warming up, not counted): {first * 1000:.0f} ms")
    totals, steps = [], []
    for _ in range(photos):
        total, parts = photo_to_words(connection, data)
        totals.append(total)
        steps.append(parts)
    log(f"photo to its words (warm): {percentiles(totals)}")
    for step in ("upload", "read", "solve"):
        log(f"  {step:7s} {percentiles([parts[step] for parts in steps])}")
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=200, help="boards of each size")
    parser.add_argument("--checks", type=int, default=10, help="full paper games checked")
    parser.add_argument("--photos", type=int, default=5, help="photos timed (after one warm-up)")
    parser.add_argument("--mode", choices=("embedded", "production"), default="embedded")
    parser.add_argument("--url", action="append", help="a running site (starts nothing)")
    parser.add_argument("--postgres-url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379")
    parser.add_argument("--redis-db", type=int, default=14)
    parser.add_argument("--keep-tmp", action="store_true")
    parser.add_argument("--json", metavar="PATH", help="also write the figures to this file")
    args = parser.parse_args()
    args.daphnes = 1
    args.preload_reader = True  # the photo part times a warm reader
    log(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    site = Site(args)
    try:
        site.start()
        connection = Connection(site.urls[0])
        figures = {
            "solve": bench_solve(connection, args.boards),
            "check": bench_check(connection, args.checks),
            "photo": bench_photo(connection, args.photos),
        }
    finally:
        site.stop()
    log(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures))


if __name__ == "__main__":
    main()
