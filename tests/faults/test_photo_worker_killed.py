"""A photo's reading when the worker reading it is SIGKILLed (issue 49): the room hears how
the photo read, within a bounded wait, never an hour later.

- Only the pool process reading it killed (as the OOM killer would): the worker gives the
  task back to the queue and another pool process reads the photo; the room hears
  ``board.read`` once.
- The whole worker killed, its pool with it: its task stays in Redis's unacknowledged set
  until the broker's visibility timeout (40 minutes); a replacement worker runs beat's sweep
  (``photos.stuck``), which fails the reading once past its limit, so the room hears
  ``board.unreadable`` and can try again.

The read is caught mid-way as a worker reads its first photo: the pool process loads the
reader's models then (some seconds; the stack's workers do not preload them), and the test
kills as soon as the database says the photo is being read. Private Redis, throwaway
database, the site as in production (tests/stack.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import psutil
import psycopg
import pytest

from photos import stuck
from tests.faults.stack import RedisServer
from tests.photos.helpers import photo_bytes
from tests.servers import throwaway_postgres_database
from tests.stack import WAIT, Client, Process, Stack, open_room, poll_until

pytestmark = pytest.mark.integration

# The sweep fails a reading this long after it started, and runs every so often: the room
# hears within their sum, plus a worker's start and the sweep's own run.
SWEPT_WITHIN = stuck.READING_FOR_AT_MOST.total_seconds() + stuck.SWEEP_EVERY_SECONDS + WAIT
# A new pool process loads the reader's models (a few seconds, more on a busy machine).
READ_AGAIN_WITHIN = 90.0


@contextlib.contextmanager
def photo_site(server_url: str, redis_url: str, workdir: Path) -> Iterator[Stack]:
    """The site as tests.stack.running_site starts it, with its photos in ``workdir``."""
    with throwaway_postgres_database(server_url) as database_url:
        stack = Stack(database_url, redis_url, workdir)
        stack.env["BOGGLE_MEDIA_DIR"] = str(workdir / "media")
        try:
            stack.start()
            yield stack
        finally:
            stack.stop()
            stack.print_logs()


def upload_photo(stack: Stack, code: str, player: Client) -> int:
    """POST the labelled photo as ``player`` (multipart, as the page sends it); its id."""
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="photo"; filename="board.jpg"'
            "\r\nContent-Type: image/jpeg\r\n\r\n"
        ).encode()
        + photo_bytes()
        + f"\r\n--{boundary}--\r\n".encode()
    )
    request = urllib.request.Request(
        f"{stack.http_url('A')}/api/rooms/{code}/photos", data=body, method="POST"
    )
    request.add_header("Content-Type", f"multipart/form-data; boundary={boundary}")
    request.add_header("Authorization", f"Bearer {player.token}")
    with urllib.request.urlopen(request, timeout=WAIT) as response:
        assert response.status == 202
        return int(json.loads(response.read())["photo"]["id"])


def stored_photo(stack: Stack, photo_id: int) -> tuple[str, int]:
    """The photo's status and the attempts at reading it, as stored."""
    with psycopg.connect(stack.database_url, connect_timeout=5) as connection:
        row = connection.execute(
            "select status, read_attempts from photos_boardphoto where id = %s", (photo_id,)
        ).fetchone()
    assert row is not None, photo_id
    return row[0], row[1]


def wait_until_being_read(stack: Stack, photo_id: int) -> None:
    def being_read() -> bool:
        status, _ = stored_photo(stack, photo_id)
        assert status in ("uploaded", "reading"), f"read before it could be killed: {status}"
        return status == "reading"

    poll_until(being_read, f"photo {photo_id} being read", interval=0.02)


def kill_pool(worker: Process) -> int:
    """SIGKILL the worker's pool processes, not the worker; returns how many."""
    assert worker.popen is not None
    pool = psutil.Process(worker.popen.pid).children()
    for process in pool:
        with contextlib.suppress(psutil.NoSuchProcess):
            process.send_signal(signal.SIGKILL)
    return len(pool)


def outcomes(client: Client, photo_id: int) -> list[str]:
    return [
        message["type"]
        for _, message in client.messages
        if message["type"] in ("board.read", "board.unreadable")
        and message.get("photo_id") == photo_id
    ]


async def test_a_pool_process_killed_mid_read_leaves_the_photo_to_another(
    private_redis: RedisServer, postgres_url: str, tmp_path: Path
) -> None:
    with photo_site(postgres_url, private_redis.url(0), tmp_path) as stack:
        code, clients = await open_room(stack, 2)
        host = clients[0]
        try:
            photo_id = await asyncio.to_thread(upload_photo, stack, code, clients[1])
            await asyncio.to_thread(wait_until_being_read, stack, photo_id)
            assert kill_pool(stack.workers[-1]) > 0

            read = await host.wait_for("board.read", timeout=READ_AGAIN_WITHIN, photo_id=photo_id)
            assert read["board"]
            assert stored_photo(stack, photo_id) == ("read", 2)  # read on the second attempt
            assert stack.workers[-1].running  # the worker itself lived on
            await asyncio.sleep(1.0)  # an outcome announced twice would have come by now
            assert outcomes(host, photo_id) == ["board.read"]
        finally:
            await asyncio.gather(*(c.close() for c in clients))


async def test_a_worker_killed_mid_read_leaves_the_room_able_to_try_again(
    private_redis: RedisServer, postgres_url: str, tmp_path: Path
) -> None:
    with photo_site(postgres_url, private_redis.url(0), tmp_path) as stack:
        code, clients = await open_room(stack, 2)
        host = clients[0]
        try:
            photo_id = await asyncio.to_thread(upload_photo, stack, code, clients[1])
            await asyncio.to_thread(wait_until_being_read, stack, photo_id)
            stack.workers[-1].kill()  # with its pool: the task waits in Redis, unacknowledged
            replacement = stack.start_worker()
            await asyncio.to_thread(stack.wait_worker_ready, replacement)

            failed = await host.wait_for(
                "board.unreadable", timeout=SWEPT_WITHIN, photo_id=photo_id
            )
            assert failed["code"] == "failed"
            assert stored_photo(stack, photo_id)[0] == "failed"

            # The room tries again: the photo sent anew is read.
            again = await asyncio.to_thread(upload_photo, stack, code, clients[1])
            read = await host.wait_for("board.read", timeout=READ_AGAIN_WITHIN, photo_id=again)
            assert read["board"]
            assert outcomes(host, photo_id) == ["board.unreadable"]
        finally:
            await asyncio.gather(*(c.close() for c in clients))
