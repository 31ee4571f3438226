"""A redis-server and a PostgreSQL cluster of one run alone (--faults): started on free
ports, killed or stopped and started again to break the site, removed at the end."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from bench.crowd.figures import log
from web.network import free_port


class PrivateRedis:
    """A redis-server of this run alone on a free port (--faults), without persistence, so
    that it can be killed and started again: a restart loses everything, as a cache without
    a disk does."""

    def __init__(self, workdir: Path) -> None:
        self.dir = workdir
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.log_path = self.dir / "redis.log"
        self.process: subprocess.Popen[bytes] | None = None

    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def start(self, timeout: float = 20.0) -> float:
        """Start it (again) on its port; returns the wall time it answered PING."""
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        with self.log_path.open("ab") as output:
            self.process = subprocess.Popen(
                [
                    *(binary, "--port", str(self.port), "--save", "", "--appendonly", "no"),
                    *("--bind", "127.0.0.1", "--dir", str(self.dir)),
                ],
                stdout=output,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        import redis

        client = redis.Redis(port=self.port, socket_connect_timeout=0.5, socket_timeout=0.5)
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise SystemExit(f"load: redis-server exited:\n{self.log_tail()}")
                with contextlib.suppress(Exception):
                    if client.ping():
                        return time.time()
                time.sleep(0.02)
        finally:
            client.close()
        raise SystemExit(f"load: the private redis-server did not answer within {timeout} s")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill()

    def log_tail(self, chars: int = 1500) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""


class PrivatePostgres:
    """A PostgreSQL cluster of this run alone (--faults): ``initdb`` into a temporary
    directory, ``pg_ctl`` on a free port with its socket in that directory; run as the
    ``postgres`` user (``runuser``) when this runs as root. Removed at the end."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="boggle-load-pg-"))
        self.data = self.dir / "pg"
        self.log_path = self.dir / "pg.log"
        self.port = free_port()
        self.as_root = os.geteuid() == 0
        self.initialised = False

    @staticmethod
    def missing() -> str | None:
        for binary in ("initdb", "pg_ctl"):
            if shutil.which(binary) is None:
                return f"{binary} is not on PATH"
        if os.geteuid() == 0 and shutil.which("runuser") is None:
            return "running as root without runuser (PostgreSQL refuses to run as root)"
        return None

    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *command: str, timeout: float = 120.0) -> None:
        full = [shutil.which(command[0]) or command[0], *command[1:]]
        if self.as_root:
            full = ["runuser", "-u", "postgres", "--", *full]
        result = subprocess.run(
            full, capture_output=True, text=True, check=False, timeout=timeout, cwd=self.dir
        )
        if result.returncode != 0:
            raise SystemExit(
                f"load: {' '.join(command[:2])} failed ({result.returncode}):\n"
                f"{(result.stdout + result.stderr)[-2000:]}\n{self.log_tail()}"
            )

    def init(self) -> None:
        why = self.missing()
        if why:
            raise SystemExit(f"load: cannot start a private PostgreSQL: {why}")
        if self.as_root:
            shutil.chown(self.dir, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync")
        self.initialised = True

    def start(self) -> float:
        """Start the cluster; returns the wall time ``pg_ctl -w`` saw it accept connections."""
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1"
        self._run(
            "pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.log_path), "-w", "start"
        )
        return time.time()

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def postmaster_pid(self) -> int | None:
        """The cluster's postmaster (its backends are its children), or None."""
        with contextlib.suppress(OSError, ValueError, IndexError):
            return int((self.data / "postmaster.pid").read_text().split()[0])
        return None

    def destroy(self) -> None:
        """Stop it (immediate) if it runs, and remove its directory."""
        if self.initialised and self.running():
            try:
                self.stop("immediate")
            except (SystemExit, subprocess.TimeoutExpired) as error:
                log(f"private PostgreSQL: stop failed: {error}")
                self._kill_postmaster()
        shutil.rmtree(self.dir, ignore_errors=True)

    def _kill_postmaster(self) -> None:
        with contextlib.suppress(OSError, ValueError, IndexError):
            pid = int((self.data / "postmaster.pid").read_text().split()[0])
            os.kill(pid, signal.SIGKILL)

    def log_tail(self, chars: int = 1500) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""
