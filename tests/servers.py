"""The site as a real Daphne subprocess, for tests that need HTTP and websockets end to end.

pytest-django's ``live_server`` speaks WSGI only (no websockets, one thread), so tests that
must see the site as phones do (concurrent requests, real sockets, the embedded default's
Host rules) start Daphne on a free port. The database is a throwaway SQLite file unless
``database_url`` names another (PostgreSQL in the integration tests).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

from boggle_site import env as env_settings
from netlab import Host
from web.network import free_port

REPO_ROOT = Path(__file__).resolve().parents[1]


class SiteServer:
    """Daphne serving the site. ``extra_env`` adds or overrides variables; the default is
    the embedded setup (SQLite, in-memory channel layer, in-process tasks), DEBUG on.
    ``host``: run it on that machine of a simulated Wi-Fi (``netlab``) instead of here."""

    def __init__(
        self,
        workdir: Path,
        port: int | None = None,
        *,
        bind: str = "127.0.0.1",
        database_url: str | None = None,
        extra_env: dict[str, str] | None = None,
        host: Host | None = None,
    ) -> None:
        self.workdir = workdir
        self.host = host
        self.db_path = workdir / "db.sqlite3"
        self.port = port or free_port()
        self.bind = bind
        self.database_url = database_url or f"sqlite:///{self.db_path}"
        self.extra_env = dict(extra_env or {})
        self.log_path = workdir / f"daphne-{self.port}.log"
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        """Where this process reaches the site."""
        return f"http://{self.host.address if self.host else '127.0.0.1'}:{self.port}"

    @property
    def url_on_its_machine(self) -> str:
        """The site as a browser on its own machine opens it (loopback)."""
        return f"http://127.0.0.1:{self.port}"

    def env(self) -> dict[str, str]:
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in env_settings.MODE_VARIABLES
        }
        env.update(
            DJANGO_SETTINGS_MODULE="boggle_site.settings",
            DATABASE_URL=self.database_url,
            DJANGO_DEBUG="1",
            PYTHONUNBUFFERED="1",
            # Most tests read no photo: spare each server TensorFlow's seconds and memory
            # (the photo tests load it on first use).
            BOGGLE_PRELOAD_READER="0",
        )
        env.update(self.extra_env)
        return env

    def migrate(self) -> None:
        result = subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput"],
            cwd=REPO_ROOT,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        assert result.returncode == 0, f"migrate failed:\n{result.stdout}\n{result.stderr}"

    def server_command(self) -> list[str]:
        """The web process's command line: Daphne's own."""
        daphne = Path(sys.executable).parent / "daphne"
        return [str(daphne), "-b", self.bind, "-p", str(self.port), "boggle_site.asgi:application"]

    def start(self, timeout: float = 30.0) -> None:
        """Start Daphne and wait until the start page answers."""
        log = self.log_path.open("a")
        command = self.server_command()
        self.process = subprocess.Popen(
            self.host.command(command) if self.host else command,
            cwd=REPO_ROOT,
            env=self.env(),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stop() ends it and its children
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"daphne exited with {self.process.returncode}:\n{self.log()}")
            try:
                with urllib.request.urlopen(self.url + "/", timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise AssertionError(f"daphne did not answer within {timeout} s:\n{self.log()}")

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        except ProcessLookupError:
            pass

    def log(self) -> str:
        return self.log_path.read_text() if self.log_path.exists() else ""

    @contextlib.contextmanager
    def running(self) -> Iterator[SiteServer]:
        """Migrated and started; stopped afterwards, whatever happens."""
        self.migrate()
        self.start()
        try:
            yield self
        finally:
            self.stop()


@contextlib.contextmanager
def throwaway_postgres_database(postgres_url: str) -> Iterator[str]:
    """A new, empty PostgreSQL database for one test; dropped afterwards. Yields its URL."""
    import psycopg
    from psycopg import sql

    name = f"boggle_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_url, autocommit=True, connect_timeout=5) as connection:
        connection.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
    try:
        yield postgres_url.rsplit("/", 1)[0] + "/" + name
    finally:
        with psycopg.connect(postgres_url, autocommit=True, connect_timeout=5) as connection:
            connection.execute(
                sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name))
            )


def run_script_on_postgres(
    postgres_url: str, script: str, extra_env: dict[str, str] | None = None
) -> dict:
    """Run ``script`` (a test file run as a script) with Django on a throwaway, migrated
    PostgreSQL database, and return what it printed last as one JSON line: the way a test
    checks a scenario on PostgreSQL while pytest-django holds SQLite."""
    import json

    from tests.games.verdict_race_processes import migrate, worker_env

    with throwaway_postgres_database(postgres_url) as database_url:
        env = worker_env(database_url) | (extra_env or {})
        migrate(env)
        result = subprocess.run(
            [sys.executable, script],
            cwd=Path(__file__).resolve().parent.parent,
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def delete_redis_keys(url: str, prefix: str) -> int:
    """Delete the keys under ``prefix`` (and no other) in the Redis database at ``url``;
    returns how many. The tests' way of tidying up: never a FLUSHDB."""
    import redis

    assert prefix and not any(char in prefix for char in "*?[]\\"), prefix
    deleted = 0
    with redis.Redis.from_url(url, socket_timeout=5) as client:
        batch: list[bytes] = []
        for key in client.scan_iter(match=prefix + "*", count=1000):
            batch.append(key)
            if len(batch) >= 500:
                deleted += client.unlink(*batch)
                batch.clear()
        if batch:
            deleted += client.unlink(*batch)
    return deleted
