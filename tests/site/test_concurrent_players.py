"""Friends who click at the same moment all get in: no "database is locked", no 500.

A real Daphne serves the site (embedded default on SQLite; PostgreSQL in the integration
test) and many clients hit it at once, each as a separate browser (no shared cookies),
released together by a barrier. Only the answers are checked, never how long they took.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from websockets.sync.client import connect

from tests.servers import SiteServer, throwaway_postgres_database

JOINS = 40
CREATIONS = 10
BURSTS = 3


def post(url: str, body: dict) -> tuple[int, dict]:
    """POST JSON as a fresh client; returns (status, decoded body or {"raw": text})."""
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, raw = error.code, error.read()
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, {"raw": raw[:300].decode(errors="replace")}


def burst(base_url: str, room_code: str, label: str) -> list[tuple[int, dict]]:
    """JOINS joins of one room and CREATIONS new rooms, all released at the same instant."""
    calls = [
        (f"{base_url}/api/rooms/{room_code}/join", {"nickname": f"{label}-p{n}"})
        for n in range(JOINS)
    ] + [(f"{base_url}/api/rooms", {"nickname": f"{label}-h{n}"}) for n in range(CREATIONS)]
    start = threading.Barrier(len(calls))

    def call(url_body: tuple[str, dict]) -> tuple[int, dict]:
        start.wait()
        return post(*url_body)

    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return list(pool.map(call, calls))


def assert_bursts_all_succeed(server: SiteServer) -> None:
    failures = []
    for n in range(BURSTS):
        status, created = post(f"{server.url}/api/rooms", {"nickname": f"host{n}"})
        assert status == 201, created
        code = created["room"]["code"]
        answers = burst(server.url, code, f"b{n}")
        failures += [answer for answer in answers if answer[0] != 201]
        status, room = post(f"{server.url}/api/rooms/{code}/join", {"nickname": f"late{n}"})
        assert status == 201, room
        # Everyone who was told "joined" is in the room, once.
        assert len(room["room"]["players"]) == 1 + JOINS + 1
    assert not failures, f"{len(failures)} of {BURSTS * (JOINS + CREATIONS)} failed: {failures[:3]}"
    assert "database is locked" not in server.log()


def assert_room_creation_after_socket_close(server: SiteServer, times: int = 50) -> None:
    """The disconnect's write and the next room's creation meet at the database."""
    failures = []
    for n in range(times):
        status, created = post(f"{server.url}/api/rooms", {"nickname": f"ws{n}"})
        assert status == 201, created
        room, token = created["room"]["code"], created["player"]["token"]
        ws_url = f"ws://127.0.0.1:{server.port}/ws/rooms/{room}/"
        bearer = {"Authorization": f"Bearer {token}"}
        with connect(ws_url, additional_headers=bearer, open_timeout=30) as socket:
            assert json.loads(socket.recv(timeout=30))["type"] == "state"
        status, answer = post(f"{server.url}/api/rooms", {"nickname": f"after{n}"})
        if status != 201:
            failures.append((status, answer))
    assert not failures, f"{len(failures)} of {times} failed: {failures[:3]}"


@pytest.fixture
def sqlite_site(tmp_path: Path) -> Iterator[SiteServer]:
    # The embedded default, as bin/start runs it.
    with SiteServer(tmp_path).running() as server:
        yield server


def test_simultaneous_joins_and_creations_on_sqlite(sqlite_site: SiteServer) -> None:
    assert_bursts_all_succeed(sqlite_site)


def test_room_creation_right_after_a_socket_closes_on_sqlite(sqlite_site: SiteServer) -> None:
    assert_room_creation_after_socket_close(sqlite_site)


@pytest.mark.integration
def test_simultaneous_joins_and_creations_on_postgresql(postgres_url: str, tmp_path: Path) -> None:
    with throwaway_postgres_database(postgres_url) as database_url:
        server = SiteServer(
            tmp_path, database_url=database_url, extra_env={"DJANGO_SECRET_KEY": "test-only"}
        )
        server.migrate()
        server.start()
        try:
            assert_bursts_all_succeed(server)
            assert_room_creation_after_socket_close(server, times=20)
        finally:
            server.stop()
