"""Shared fixtures: real PostgreSQL and Redis for tests marked ``integration``.

The URLs can be changed with BOGGLE_TEST_POSTGRES_URL and BOGGLE_TEST_REDIS_URL; the
defaults are the local services that bin/services (and CI's machine) provide.
"""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent

POSTGRES_URL = os.environ.get(
    "BOGGLE_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
# A database from 1 to 15 picked by process id: never a development server's database 0,
# and two test runs at once (say, two engineers on one machine) rarely share one, so one
# run's flushes and workers do not disturb the other's.
REDIS_URL = os.environ.get(
    "BOGGLE_TEST_REDIS_URL", f"redis://127.0.0.1:6379/{1 + os.getpid() % 15}"
)


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


@pytest.fixture(autouse=True)
def _fresh_process_state():
    """Each test starts as a fresh web process would: no running rounds held in memory
    (``games.live``) and no counts waiting (database ids repeat across tests)."""
    from games import live, live_counts

    live.clear()
    live_counts.clear()
    yield
    live.clear()
    live_counts.clear()


def pytest_configure(config: pytest.Config) -> None:
    """Test modules import boggle_site.asgi, which would load TensorFlow in the background
    in every test run; the photo tests use a fake reader or load the real one themselves.
    (Django's settings are loaded by now, before any test module is imported.) The
    interface translations are compiled here too."""
    from django.conf import settings

    from boggle_site import compile_messages

    settings.PHOTOS_PRELOAD_READER = False
    # The .mo files are build products (not in git): a bare `pytest` builds missing or
    # stale ones, before any translation is loaded.
    compile_messages.compile_all()
