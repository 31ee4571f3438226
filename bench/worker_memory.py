"""Memory of the production stack's processes, above all a Celery worker's prefork children.

    python bench/worker_memory.py [--concurrency 2]

Starts the site as in production (tests/stack.py: two Daphnes, one worker, beat) on a
private Redis and a throwaway PostgreSQL database, with the photo reader preloaded
(``BOGGLE_PRELOAD_READER=1``, production's default). Measures each process once every
child has loaded the reader, then again after one photo was read, and prints, per process,
its connections to PostgreSQL and Redis, and:

- RSS, what ``ps -o rss`` shows: pages shared with other processes count in each of them;
- PSS: shared pages divided among the processes sharing them (these add up to the memory
  the stack takes), and its anonymous part (the heap, which the system cannot drop and read
  again from a file as it can a library's pages);
- USS: the pages of that process alone (what stopping it frees).

Loopback only; nothing is left behind. Figures: docs/operations.md, "Capacity".
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.faults.stack import RedisServer  # noqa: E402
from tests.servers import throwaway_postgres_database  # noqa: E402
from tests.stack import WAIT, Stack, http, poll_until  # noqa: E402

POSTGRES = "postgresql://postgres@127.0.0.1:5432/postgres"
PHOTO = REPO.parent / "shared" / "data" / "boggle-boards" / "004d2c027e43dd194554d6527b4ba67a.jpg"
MB = 1024 * 1024


def measure(pid: int) -> dict[str, int]:
    """RSS, PSS, USS and anonymous PSS of the process (MB)."""
    info = psutil.Process(pid).memory_full_info()
    figures = {"rss": info.rss // MB, "pss": info.pss // MB, "uss": info.uss // MB}
    # Linux's split of PSS (kB): file pages can be dropped and read again, anonymous cannot.
    rollup = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
    anon = next((line.split()[1] for line in rollup if line.startswith("Pss_Anon:")), "0")
    return figures | {"anon": int(anon) // 1024}


def connections(pid: int, port: int) -> int:
    """The process's open TCP connections to ``port`` on this machine."""
    return sum(
        1
        for connection in psutil.Process(pid).net_connections("tcp")
        if connection.raddr and connection.raddr.port == port
    )


def processes(stack: Stack) -> list[tuple[str, int]]:
    """The stack's processes, the worker's pool children after its main process."""
    named = [(f"daphne {name}", process.popen) for name, process in stack.web.items()]
    if stack.beat_process is not None:
        named.append(("beat", stack.beat_process.popen))
    worker = stack.workers[-1].popen
    named.append(("worker", worker))
    rows = [(name, popen.pid) for name, popen in named if popen is not None]
    assert worker is not None
    children = psutil.Process(worker.pid).children()
    return rows + [(f" child {n}", child.pid) for n, child in enumerate(children, start=1)]


def report(stage: str, stack: Stack, redis_port: int) -> None:
    print(f"\n{stage}")
    print(
        f"{'process':<10}{'RSS MB':>8}{'PSS MB':>8}{'USS MB':>8}{'anon PSS MB':>13}"
        f"{'PostgreSQL':>12}{'Redis':>7}"
    )
    worker_pss = worker_anon = 0
    for name, pid in processes(stack):
        figures = measure(pid)
        if name.startswith(("worker", " child")):
            worker_pss, worker_anon = worker_pss + figures["pss"], worker_anon + figures["anon"]
        print(
            f"{name:<10}{figures['rss']:>8}{figures['pss']:>8}{figures['uss']:>8}"
            f"{figures['anon']:>13}{connections(pid, 5432):>12}{connections(pid, redis_port):>7}"
        )
    print(f"{'worker':<10}{worker_pss:>16}{worker_anon:>21}   (its main process and pool)")


def upload(stack: Stack, code: str, token: str) -> int:
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="photo"; filename="board.jpg"'
            "\r\nContent-Type: image/jpeg\r\n\r\n"
        ).encode()
        + PHOTO.read_bytes()
        + f"\r\n--{boundary}--\r\n".encode()
    )
    request = urllib.request.Request(
        f"{stack.http_url('A')}/api/rooms/{code}/photos", data=body, method="POST"
    )
    request.add_header("Content-Type", f"multipart/form-data; boundary={boundary}")
    request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=WAIT) as response:
        return int(json.loads(response.read())["photo"]["id"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=2, help="prefork children")
    parser.add_argument(
        "--lazy-reader",
        action="store_true",
        help="BOGGLE_PRELOAD_READER=0: the reader loads in the child that reads the first photo",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="boggle-worker-memory-") as scratch:
        workdir = Path(scratch)
        redis = RedisServer(workdir)
        redis.start()
        try:
            with throwaway_postgres_database(POSTGRES) as database_url:
                options = ("--concurrency", str(args.concurrency), "--without-mingle")
                stack = Stack(database_url, redis.url(0), workdir)
                stack.worker_options = options
                preload = "0" if args.lazy_reader else "1"
                stack.env |= {"BOGGLE_PRELOAD_READER": preload, "BOGGLE_MEDIA_DIR": scratch}
                try:
                    run(stack, 0 if args.lazy_reader else args.concurrency, redis.port)
                finally:
                    stack.stop()
        finally:
            redis.stop()


def run(stack: Stack, preloaded: int, redis_port: int) -> None:
    """Measure once ``preloaded`` children have loaded the reader, and after a photo."""
    started = time.monotonic()
    stack.start()
    worker = stack.workers[-1]
    assert worker.popen is not None

    def loaded() -> bool:
        return worker.output().count("board reader loaded") >= preloaded

    poll_until(loaded, "every child's reader loaded", timeout=180)
    print(f"worker ready, readers loaded {time.monotonic() - started:.1f} s after the start")
    time.sleep(5)
    report(f"started, {preloaded} readers preloaded, no photo read yet", stack, redis_port)

    answer, created = http(stack.http_url("A"), "POST", "/api/rooms", {"nickname": "Ann"})
    assert answer == 201, created
    photo_id = upload(stack, created["room"]["code"], created["player"]["token"])
    path = f"/api/rooms/{created['room']['code']}/photos/{photo_id}"

    def photo_status() -> str:
        _, body = http(stack.http_url("A"), "GET", path, token=created["player"]["token"])
        return str(body["photo"]["status"])

    poll_until(lambda: photo_status() in ("read", "failed"), "the photo read", timeout=120)
    time.sleep(1)
    report(
        f"after one photo was read (by one of the children): {photo_status()}",
        stack,
        redis_port,
    )


if __name__ == "__main__":
    main()
