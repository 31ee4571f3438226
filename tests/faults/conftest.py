"""Fixtures of the fault tests: private servers to break, and the site on top of them.

The shared PostgreSQL (5432) and Redis (6379) are never stopped here: other test runs use
them. A test that breaks Redis gets a private ``redis-server``; one that breaks PostgreSQL
gets a private cluster. Subprocess logs are printed at teardown (pytest shows them when a
test fails).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.faults.stack import REDIS_SERVER, PostgresCluster, RedisServer
from tests.stack import Stack, running_site


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[RedisServer]:
    if not os.access(REDIS_SERVER, os.X_OK):
        pytest.skip(f"no redis-server at {REDIS_SERVER}: cannot run a private Redis")
    server = RedisServer(Path(tempfile.mkdtemp(prefix="boggle-redis-", dir=tmp_path)))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def private_postgres() -> Iterator[PostgresCluster]:
    missing = PostgresCluster.missing()
    if missing:
        pytest.skip(missing)
    cluster = PostgresCluster()
    try:
        cluster.init()
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Callable[[str, str], Stack]]:
    """``site(server_url, redis_url)``: a throwaway database on the PostgreSQL server, and
    the site (two Daphnes, a worker, beat) started on it; all stopped and dropped after."""
    with contextlib.ExitStack() as started:

        def make(server_url: str, redis_url: str) -> Stack:
            return started.enter_context(running_site(server_url, redis_url, tmp_path))

        yield make
