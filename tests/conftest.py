"""Shared fixtures: real PostgreSQL and Redis for tests marked ``integration``, other
machines on a simulated Wi-Fi (``wifi``), and the network guard.

The URLs can be changed with BOGGLE_TEST_POSTGRES_URL and BOGGLE_TEST_REDIS_URL; the
defaults are the local services that bin/services (and CI's machine) provide.

The test process may reach only loopback and the simulated Wi-Fi's hosts (netlab.guard):
a connect, a datagram or a name lookup aimed anywhere else is refused and fails the test.
"""

from __future__ import annotations

import os
import socket
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from boggle_site.env import get_bool
from netlab import SimulatedWifi, unavailable_reason
from netlab.pytest_plugin import (  # noqa: F401  (hooks pytest finds here)
    pytest_runtest_call,
    pytest_runtest_setup,
    pytest_runtest_teardown,
)
from netlab.wifi import NetlabError

REPO_ROOT = Path(__file__).resolve().parent.parent

POSTGRES_URL = os.environ.get(
    "BOGGLE_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
# Redis and PostgreSQL are shared with other programs on the machine. The tests use Redis
# database 13 (never a server's 0), and each test's keys carry a prefix of its own
# (``redis_prefix``: BOGGLE_REDIS_PREFIX for the site) and are deleted after it: no test
# flushes a database. PostgreSQL: each test that needs a database creates one named
# boggle_test_<random> and drops it (tests.servers.throwaway_postgres_database); none
# touches another database.
REDIS_TEST_DATABASE = 13
REDIS_URL = os.environ.get("BOGGLE_TEST_REDIS_URL", f"redis://127.0.0.1:6379/{REDIS_TEST_DATABASE}")


def _reachable(url: str, default_port: int) -> bool:
    """True when a TCP connection to the URL's host and port opens within a second."""
    parts = urlsplit(url)
    try:
        with socket.create_connection((parts.hostname, parts.port or default_port), timeout=1):
            return True
    except OSError:
        return False


def _check_services() -> dict[str, bool]:
    return {"postgres": _reachable(POSTGRES_URL, 5432), "redis": _reachable(REDIS_URL, 6379)}


@pytest.fixture(scope="session")
def services() -> dict[str, bool]:
    """Which services answer, after trying bin/services once if any did not."""
    status = _check_services()
    if not all(status.values()):
        try:
            result = subprocess.run(
                [str(REPO_ROOT / "bin" / "services")],
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            print(result.stdout)
        except (OSError, subprocess.TimeoutExpired) as error:
            print(f"bin/services failed: {error}")
        status = _check_services()
    return status


@pytest.fixture
def postgres_url(services: dict[str, bool]) -> str:
    """URL of a real PostgreSQL (its maintenance database); skips when none answers."""
    if not services["postgres"]:
        pytest.skip(f"PostgreSQL not reachable at {urlsplit(POSTGRES_URL).netloc}")
    return POSTGRES_URL


@pytest.fixture
def redis_url(services: dict[str, bool]) -> str:
    """URL of a real Redis; skips when none answers."""
    if not services["redis"]:
        pytest.skip(f"Redis not reachable at {urlsplit(REDIS_URL).netloc}")
    return REDIS_URL


@pytest.fixture
def redis_prefix(redis_url: str) -> Iterator[str]:
    """A key prefix of this test's own in the tests' Redis database; its keys are deleted
    afterwards (only they: the database may hold other runs' keys)."""
    from tests.servers import delete_redis_keys

    prefix = f"boggle-test-{os.getpid()}-{uuid.uuid4().hex[:8]}:"
    delete_redis_keys(redis_url, prefix)
    yield prefix
    delete_redis_keys(redis_url, prefix)


def _simulated_wifi() -> Iterator[SimulatedWifi]:
    """A simulated Wi-Fi (netlab): ``wifi.add_host("phone")`` is another machine on it.
    Skips where network namespaces cannot be made (not root, no ``ip``), except under
    CI=true: CI runs as root, and the tests that need it must run there."""
    reason = unavailable_reason()
    network = None
    if not reason:
        try:
            network = SimulatedWifi().open()
        except NetlabError as error:  # root, yet not allowed (a container without NET_ADMIN)
            reason = str(error)
    if network is None:
        if get_bool(os.environ, "CI"):
            pytest.fail(f"cannot simulate a Wi-Fi: {reason}. CI=true: these tests must run.")
        pytest.skip(f"cannot simulate a Wi-Fi here: {reason}")
    try:
        yield network
    finally:
        network.close()


@pytest.fixture
def wifi() -> Iterator[SimulatedWifi]:
    """A simulated Wi-Fi of the test's own (``_simulated_wifi``)."""
    yield from _simulated_wifi()


@pytest.fixture(scope="module")
def module_wifi() -> Iterator[SimulatedWifi]:
    """A simulated Wi-Fi shared by a module's tests, for a server that serves them all."""
    yield from _simulated_wifi()


@pytest.fixture(autouse=True)
def _fresh_process_state():
    """Each test starts as a fresh web process would: no running rounds held in memory
    (``games.live``), no counts waiting and no results kept (``games.results_cache``):
    database ids repeat across tests."""
    from games import live, live_counts, results_cache

    live.clear()
    live_counts.clear()
    results_cache.clear()
    yield
    live.clear()
    live_counts.clear()
    results_cache.clear()


def pytest_configure(config: pytest.Config) -> None:
    """Test modules import boggle_site.asgi, which would load TensorFlow in the background
    in every test run; the photo tests use a fake reader or load the real one themselves.
    (Django's settings are loaded by now, before any test module is imported.) The
    interface translations are compiled here too."""
    from django.conf import settings

    from netlab import guard
    from web import compile_messages

    guard.install()
    settings.PHOTOS_PRELOAD_READER = False
    settings.GAMES_WARM_UP_ROUNDS = False  # a thread reading the database mid-test
    # The .mo files are build products (not in git): a bare `pytest` builds missing or
    # stale ones, before any translation is loaded.
    compile_messages.compile_all()
