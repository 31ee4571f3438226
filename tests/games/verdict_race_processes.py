"""The test's side of tests/games/test_verdict_race.py's worker processes
(tests/games/verdict_race_worker.py): their environment (production's database, the
embedded rest), the migration, starting them and speaking to them in JSON lines.
``tests.servers.run_script_on_postgres`` runs its scripts in the same environment.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.games.verdict_race_trials import ROOMS_PER_BATCH, WORKERS
from tests.games.verdict_race_worker import WAIT

REPO_ROOT = Path(__file__).resolve().parents[2]
WORKER_SCRIPT = Path(__file__).resolve().with_name("verdict_race_worker.py")


class Worker:
    """A worker subprocess, spoken to in JSON lines; its stderr goes to a log file."""

    def __init__(self, name: str, env: dict[str, str], log: Path) -> None:
        self.name = name
        self.log = log
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, str(WORKER_SCRIPT)],
                cwd=REPO_ROOT,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=out,
            )
        self._buffer = b""

    def send(self, cmd: str, **args: Any) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write((json.dumps({"cmd": cmd, "args": args}) + "\n").encode())
        self.process.stdin.flush()

    def receive(self) -> Any:
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        give_up = time.monotonic() + WAIT
        while b"\n" not in self._buffer:
            remaining = give_up - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"{self.name}: no answer within {WAIT} s\n{self.output()}")
            readable, _, _ = select.select([fd], [], [], remaining)
            if readable:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise AssertionError(f"{self.name} exited:\n{self.output()}")
                self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        reply = json.loads(line)
        if "error" in reply:
            raise AssertionError(f"{self.name} failed:\n{reply['error']}")
        return reply["ok"]

    def stop(self) -> None:
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-5000:]


def ask_all(workers: list[Worker], cmd: str, args: list[dict[str, Any]]) -> list[Any]:
    """Send each worker its command, then collect the answers (the workers run in parallel)."""
    for worker, worker_args in zip(workers, args, strict=True):
        worker.send(cmd, **worker_args)
    return [worker.receive() for worker in workers]


@contextlib.contextmanager
def started_workers(env: dict[str, str], logs: Path) -> Iterator[list[Worker]]:
    workers = [Worker(f"worker-{n}", env, logs / f"worker-{n}.log") for n in range(WORKERS)]
    try:
        for worker in workers:
            worker.receive()  # Django is set up
        yield workers
    finally:
        for worker in workers:
            worker.stop()
        for worker in workers:
            print(f"--- {worker.name} log (end)\n{worker.output()}")


def worker_env(database_url: str) -> dict[str, str]:
    """Production's database with the embedded rest: in-memory channel layer, eager tasks
    (so no end task is scheduled: only this test's enders end rounds)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "BOGGLE_", "REDIS_", "DATABASE_"))
    }
    return env | {
        "DATABASE_URL": database_url,
        # Room for every thread of a batch, even past TASKS_PER_WORKER: no task waits for a
        # pooled connection.
        "DATABASE_POOL_SIZE": str(4 * ROOMS_PER_BATCH + 1),
        "DJANGO_SECRET_KEY": "test-only-key",
        "DJANGO_SETTINGS_MODULE": "boggle_site.settings",
        "DJANGO_LOG_LEVEL": "WARNING",
        "BOGGLE_DICTIONARY_DIR": str(REPO_ROOT / "var" / "dictionaries"),
        "PYTHONPATH": str(REPO_ROOT),
        "PYTHONUNBUFFERED": "1",
    }


def migrate(env: dict[str, str]) -> None:
    result = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert result.returncode == 0, f"migrate failed:\n{result.stdout}\n{result.stderr}"
