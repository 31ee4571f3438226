"""The site under test (``Site``): started here, embedded (SQLite, one Daphne) or in
production (PostgreSQL, Redis, Daphnes, a Celery worker and beat, and with
``--through-nginx`` the production nginx in front of them: ``bench.crowd.nginx``), or given
by ``--url``; its processes broken on purpose (--faults), its statement counts and logs
read, and every process, database and key it made removed at the end."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

from bench.crowd import nginx, servers
from bench.crowd.figures import log
from bench.crowd.http_client import http_call
from bench.crowd.processes import ProcessMonitor, Started
from bench.crowd.scrape import metrics_text
from bench.crowd.service_probe import ServiceProbe
from bench.crowd.services import PrivatePostgres, PrivateRedis
from boggle_site import env as env_settings
from web.network import free_ports

REPO = Path(__file__).resolve().parent.parent.parent


# Variables of the caller's environment that would change the site's mode, or what it
# writes where: the site's own list, plus the key, debug and the bench's own folders.
MODE_VARIABLES = env_settings.MODE_VARIABLES | {
    "DJANGO_SECRET_KEY",
    "DJANGO_DEBUG",
    "BOGGLE_DICTIONARY_DIR",
    "BOGGLE_STATEMENT_STATS_DIR",
}
STATS_VARIABLE = "BOGGLE_STATEMENT_STATS_DIR"
ALLOWED_HOSTS = "127.0.0.1,localhost"


class Site:
    """The site under test: started here (embedded or production) or given by ``--url``."""

    def __init__(self, args: argparse.Namespace, private: bool = False) -> None:
        self.args = args
        self.mode: str = "url" if args.url else args.mode
        # Where the players go: the Daphnes, or with --through-nginx nginx alone.
        self.urls: list[str] = [url.rstrip("/") for url in args.url or []]
        self.daphne_urls: list[str] = []  # the Daphnes this run started
        self.through_nginx: bool = bool(getattr(args, "through_nginx", False))
        self.nginx_url: str | None = None
        self.tmp = Path(tempfile.mkdtemp(prefix="boggle-load-"))
        self.stats_dir: Path | None = None
        self.processes: list[Started] = []
        self.monitor = ProcessMonitor()
        self.postgres_db: str | None = None
        self.redis_url: str | None = None
        self.redis_prefix = ""
        self.notes: list[str] = []
        self.ready = False
        # private: a redis-server and a PostgreSQL cluster of this site alone (--faults),
        # instead of --redis-url and --postgres-url; stopped and removed at the end.
        self.private = private
        self.private_redis: PrivateRedis | None = None
        self.private_postgres: PrivatePostgres | None = None
        self.postgres_url: str = args.postgres_url
        self.run_env: dict[str, str] = {}
        # The costs (bench/crowd/costs.py): Redis and PostgreSQL counters, and with private
        # services the CPU of the redis-server and the PostgreSQL cluster.
        self.probe: ServiceProbe | None = None
        self.services_monitor = ProcessMonitor()
        # The web processes' ASGI server (--server; bench.crowd.servers): Daphne unless asked.
        self.server: str = getattr(args, "server", "daphne")
        self.server_python: Path | None = None

    # -- starting

    def base_env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in MODE_VARIABLES}
        env.update(
            DJANGO_SETTINGS_MODULE="boggle_site.settings",
            PYTHONUNBUFFERED="1",
            DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
            DJANGO_ALLOWED_HOSTS=",".join([ALLOWED_HOSTS, *getattr(self.args, "extra_hosts", ())]),
        )
        env.setdefault("DJANGO_LOG_LEVEL", "WARNING")
        # Text lines: server_logs reads tracebacks line by line (production's default is JSON).
        env.setdefault("BOGGLE_LOG_FORMAT", "text")
        # Load runs send words, not photos: TensorFlow in the worker (or the embedded
        # Daphne) would only add to the memory figures. bench/abuse.py keeps the default.
        if not getattr(self.args, "preload_reader", False):
            env["BOGGLE_PRELOAD_READER"] = "0"
        return env

    def start(self) -> None:
        if self.mode == "url":
            log(f"using the running site at {', '.join(self.urls)} (nothing started)")
            return
        if self.server != "daphne":  # before anything starts: its virtualenv may be missing
            self.server_python = servers.venv_python()
            self.notes.append(servers.NOT_PRODUCTION.format(server=self.server))
            log(self.notes[-1])
        self.stats_dir = self.tmp / "statements"
        self.stats_dir.mkdir()
        env = self.base_env()
        if self.mode == "embedded":
            env["DATABASE_URL"] = f"sqlite:///{self.tmp / 'db.sqlite3'}"
        else:
            env.update(self._production_services())
        self._setup(env)
        if self.through_nginx:
            # The Daphnes believe nginx's X-Forwarded-For, as production's do.
            env["BOGGLE_TRUSTED_PROXIES"] = nginx.TRUSTED_PROXIES
        run_env = self.run_env = {**env, STATS_VARIABLE: str(self.stats_dir)}
        venv_bin = Path(sys.executable).parent
        daphnes = 1 if self.mode == "embedded" else self.args.daphnes
        # nginx's port picked with the Daphnes': a Daphne listens only once it is ready.
        ports = free_ports(daphnes + self.through_nginx)
        for port in ports[:daphnes]:
            self.start_daphne(port)
            self.urls.append(f"http://127.0.0.1:{port}")
        self.daphne_urls = list(self.urls)
        if self.through_nginx:
            self._start_nginx(ports[-1], tuple(ports[:daphnes]))
        if self.mode == "production":
            celery = str(venv_bin / "celery")
            self._spawn(
                "celery-worker",
                [celery, "-A", "boggle_site", "worker", "-l", "warning", "--concurrency", "2"],
                run_env,
            )
            self._spawn(
                "celery-beat",
                [
                    celery,
                    "-A",
                    "boggle_site",
                    "beat",
                    "-l",
                    "warning",
                    "-s",
                    str(self.tmp / "beat-schedule"),
                ],
                run_env,
            )
        self.monitor.start()
        if self.mode == "production":
            self._start_probe(env)
        for url in self.daphne_urls:
            self._wait_ready(url)
        if self.nginx_url is not None:
            self._wait_ready(self.nginx_url)
            # Every request and socket of the load goes through nginx from now on.
            self.urls = [self.nginx_url]
            log(f"nginx on {self.nginx_url} in front of {', '.join(self.daphne_urls)}")
        if self.mode == "production":
            self._wait_worker()
        log(f"site up: {self.mode}, {', '.join(self.urls)}")

    def _start_nginx(self, port: int, daphne_ports: tuple[int, ...]) -> None:
        """The production nginx (bench.crowd.nginx) on ``port``, in front of the Daphnes."""
        binary = nginx.nginx_binary()
        if binary is None:
            raise SystemExit(
                "load: --through-nginx needs nginx (Debian: apt-get install nginx; bin/test"
                " installs it when run as root)"
            )
        files = nginx.write_config(self.tmp / "nginx-run", port, daphne_ports)
        refused = nginx.check_config(files, binary)
        if refused is not None:
            raise SystemExit(f"load: nginx refused its configuration:\n{refused}")
        self._spawn("nginx", files.command(binary), dict(os.environ))
        self.nginx_url = files.url

    def _production_services(self) -> dict[str, str]:
        if self.private:
            started = time.monotonic()
            self.private_redis = PrivateRedis(self.tmp / "redis")
            self.private_redis.start()
            self.private_postgres = PrivatePostgres()
            self.private_postgres.init()
            self.private_postgres.start()
            self.postgres_url = self.private_postgres.url()
            redis_server = self.private_redis.url()
            log(
                f"private Redis on :{self.private_redis.port} and PostgreSQL on"
                f" :{self.private_postgres.port} up in {time.monotonic() - started:.1f} s"
            )
        else:
            services = subprocess.run(
                [str(REPO / "bin" / "services")], capture_output=True, text=True, check=False
            )
            for line in services.stdout.splitlines():
                log(line)
            if services.returncode != 0:
                raise SystemExit("load: PostgreSQL or Redis is not reachable (bin/services failed)")
            redis_server = self.args.redis_url
        import psycopg
        from psycopg import sql

        name = f"boggle_load_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.postgres_url, autocommit=True, connect_timeout=5) as conn:
            conn.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
        self.postgres_db = name
        self.redis_url = f"{redis_server.rstrip('/')}/{self.args.redis_db}"
        # Redis is shared: this run's keys carry a prefix of its own and only they are
        # deleted at the end (never a FLUSHDB).
        self.redis_prefix = f"boggle-load-{os.getpid()}-{secrets.token_hex(4)}:"
        log(
            f"PostgreSQL database {name} created; Redis {self.redis_url}, keys {self.redis_prefix}*"
        )
        return {
            "DATABASE_URL": self.postgres_url.rsplit("/", 1)[0] + "/" + name,
            "REDIS_URL": self.redis_url,
            "BOGGLE_REDIS_PREFIX": self.redis_prefix,
            "BOGGLE_DICTIONARY_DIR": str(REPO / "var" / "dictionaries"),
        }

    def _start_probe(self, env: dict[str, str]) -> None:
        self.probe = ServiceProbe(self.redis_url, env.get("DATABASE_URL"))
        if self.private_redis is not None and self.private_redis.process is not None:
            self.services_monitor.add("redis", self.private_redis.process.pid)
        if self.private_postgres is not None:
            pid = self.private_postgres.postmaster_pid()
            if pid is not None:
                self.services_monitor.add("postgres", pid)

    def services_note(self) -> dict[str, str]:
        """Where the costs' Redis and PostgreSQL counters come from, and what they include."""
        if self.private:
            return {
                "redis": "a redis-server of this run alone: its counts are this site's",
                "postgres": "a PostgreSQL cluster of this run alone: rows, WAL and CPU are this"
                " site's",
            }
        return {
            "redis": f"the shared Redis at {self.args.redis_url}: commands, CPU and bytes include"
            " every other program's on it (--private-services for clean counts)",
            "postgres": "the shared PostgreSQL: rows and transactions are this run's database"
            " only; WAL bytes are the whole server's; its CPU is not measured"
            " (--private-services)",
        }

    def _setup(self, env: dict[str, str]) -> None:
        for name, command in (
            ("solver-build", [sys.executable, "-m", "solver", "build"]),
            ("migrate", [sys.executable, "manage.py", "migrate", "--noinput"]),
        ):
            log(f"{' '.join(command[1:])} ...")
            result = subprocess.run(
                command, cwd=REPO, env=env, capture_output=True, text=True, check=False
            )
            (self.tmp / f"{name}.log").write_text(result.stdout + result.stderr)
            if result.returncode != 0:
                tail = (result.stdout + result.stderr)[-3000:]
                raise SystemExit(f"load: {name} failed ({result.returncode}):\n{tail}")

    def _spawn(self, name: str, command: list[str], env: dict[str, str]) -> None:
        log_path = self.tmp / f"{name}.log"
        with log_path.open("ab") as output:
            process = subprocess.Popen(
                command,
                cwd=REPO,
                env=env,
                stdout=output,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # its own process group: stop() ends it and its children
            )
        self.processes.append(Started(name, process, log_path))
        self.monitor.add(name, process.pid)

    def _wait_ready(self, url: str, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.check_alive()
            if http_call(url, "GET", "/api/dictionaries", timeout=5).status == 200:
                return
            time.sleep(0.25)
        raise SystemExit(f"load: {url} did not answer GET /api/dictionaries within {timeout} s")

    def celery_client(self) -> Any:
        """A Celery app on this site's broker and key prefix (for control pings)."""
        from celery import Celery

        app = Celery()
        app.conf.update(
            env_settings.celery_config(
                {"REDIS_URL": self.redis_url or "", "BOGGLE_REDIS_PREFIX": self.redis_prefix}
            )
        )
        return app

    def _wait_worker(self, timeout: float = 60.0) -> None:
        """Wait until the Celery worker answers a control ping through the broker."""
        app = self.celery_client()
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                self.check_alive()
                with contextlib.suppress(Exception):
                    if app.control.ping(timeout=1.0):
                        return
                time.sleep(0.5)
        finally:
            with contextlib.suppress(Exception):
                app.close()
        self.notes.append(f"the Celery worker did not answer a ping within {timeout:.0f} s")

    def check_alive(self) -> None:
        """Stop the run when a process it started has exited during start-up."""
        dead = [s.name for s in self.processes if s.process.poll() is not None]
        if dead:
            logs = "\n".join(f"--- {s.name}:\n{self.log_tail(s)}" for s in self.processes)
            raise SystemExit(f"load: {', '.join(dead)} exited during start-up\n{logs}")

    @staticmethod
    def log_tail(started: Started, chars: int = 2000) -> str:
        try:
            return started.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    # -- faults (--faults)

    def kill(self, started: Started) -> None:
        """SIGKILL a process this run started, with its whole group (a supervisor's
        cgroup kill: Celery's pool children go too)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(started.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            started.process.wait(timeout=10)
        started.killed = True

    def start_daphne(self, port: int) -> Started:
        """A Daphne as production runs it (``production.serve``: it listens once ready, and
        drains on SIGTERM); with --server, Uvicorn or Granian instead."""
        # bench/abuse.py's attacker comes from another of this machine's addresses
        bind = getattr(self.args, "bind", "127.0.0.1")
        command = [sys.executable, "-m", "production.serve", "-b", bind, "-p", str(port)]
        if self.server_python is not None:
            command = servers.command(self.server, self.server_python, bind, port)
        # Named daphne-<port> whatever the server: costs, profiles and faults look for that.
        self._spawn(f"daphne-{port}", command, self.run_env)
        return self.processes[-1]

    def terminate(self, started: Started, timeout: float = 30.0) -> int | None:
        """SIGTERM a process this run started, as a supervisor stops it, and wait for it
        to exit; its exit code (None if it did not within ``timeout``: then SIGKILLed)."""
        with contextlib.suppress(ProcessLookupError):
            started.process.send_signal(signal.SIGTERM)
        try:
            code = started.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill(started)
            return None
        started.killed = True  # stopped on purpose: reaped, not an unexpected exit
        return code

    def find(self, prefix: str) -> list[Started]:
        return [s for s in self.processes if s.name.startswith(prefix) and not s.killed]

    def start_worker(self, name: str) -> None:
        """Another Celery worker, as a supervisor starts one after a crash."""
        celery = str(Path(sys.executable).parent / "celery")
        self._spawn(
            name,
            [celery, "-A", "boggle_site", "worker", "-l", "warning", "--concurrency", "2"],
            self.run_env,
        )

    def worker_answers(self, timeout: float = 60.0) -> float | None:
        """Wait until a Celery worker answers a control ping; its wall time, or None."""
        app = self.celery_client()
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                with contextlib.suppress(Exception):
                    if app.control.ping(timeout=0.5):
                        return time.time()
                time.sleep(0.2)
        finally:
            with contextlib.suppress(Exception):
                app.close()
        return None

    # -- measuring

    def statements(self) -> dict[str, Any] | None:
        """Statement totals over every server process's file (None without files)."""
        if self.stats_dir is None:
            return None
        total: Counter[str] = Counter()
        kinds: Counter[str] = Counter()
        transaction: Counter[str] = Counter()
        files = 0
        for path in self.stats_dir.glob("statements-*.json"):
            try:
                data = json.loads(path.read_text())
            except (OSError, ValueError):
                continue
            files += 1
            total["statements"] += int(data.get("statements", 0))
            kinds.update(data.get("by_kind", {}))
            transaction.update(data.get("transaction", {}))
        return {
            "files": files,
            "statements": total["statements"],
            "by_kind": kinds,
            "transaction": transaction,
        }

    def sockets_by_daphne(self) -> dict[str, int]:
        """Websockets each Daphne holds now, from its own /metrics (``boggle_sockets_open``,
        read from loopback straight from the Daphne): with --through-nginx, how the hash on
        the room code spread the rooms."""
        counts: dict[str, int] = {}
        for url in self.daphne_urls:
            text = metrics_text(url)
            if text is None:
                continue
            for line in text.splitlines():
                if line.startswith("boggle_sockets_open "):
                    counts[f"daphne-{url.rsplit(':', 1)[-1]}"] = int(float(line.split()[1]))
        return counts

    def server_logs(self) -> dict[str, Any]:
        """Error lines in the started processes' logs."""
        errors: Counter[str] = Counter()
        exceptions: Counter[str] = Counter()  # the last line of each traceback
        lines = tracebacks = 0
        python_errors = re.compile(r"\b(ERROR|CRITICAL)\b")
        # nginx's error log (its stderr): error and worse; its access lines never match.
        nginx_errors = re.compile(r"\[(error|crit|alert|emerg)\]")
        for started in self.processes:
            pattern = nginx_errors if started.name == "nginx" else python_errors
            try:
                text = started.log_path.read_text(errors="replace")
            except OSError:
                continue
            in_traceback = False
            for line in text.splitlines():
                if line.startswith("Traceback"):
                    tracebacks += 1
                    in_traceback = True
                elif in_traceback and line and not line[0].isspace():
                    if not line.startswith(("During handling", "The above exception")):
                        exceptions[f"{started.name}: {line.strip()[:160]}"] += 1
                        in_traceback = False
                elif pattern.search(line):
                    lines += 1
                    short = re.sub(r"^\d{4}-\d\d-\d\d [\d:,.]+ ", "", line.strip())
                    # nginx's "2025/01/02 10:11:12 [error] 12#12: *34 ": by kind, not by time
                    short = re.sub(r"^\S+ \S+ (\[\w+\]) \d+#\d+: (\*\d+ )?", r"\1 ", short)
                    short = short.split(", client: ", 1)[0][:160]
                    errors[f"{started.name}: {short}"] += 1
        return {
            "error_lines": lines,
            "tracebacks": tracebacks,
            "most_common": dict(errors.most_common(5)),
            "traceback_exceptions": dict(exceptions.most_common(5)),
        }

    # -- stopping

    def stop(self) -> None:
        self.monitor.stop()
        if self.probe is not None:
            self.probe.close()
        alive = [s for s in self.processes if not s.killed]  # the killed ones are reaped
        for started in reversed(alive):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(started.process.pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        for started in alive:
            with contextlib.suppress(subprocess.TimeoutExpired):
                started.process.wait(timeout=max(0.1, deadline - time.monotonic()))
        for started in alive:
            # The group may hold children still (Celery's pool) even when the leader is gone.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(started.process.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                started.process.wait(timeout=5)
        if self.private:
            # The whole private cluster and redis-server go: nothing to drop or flush.
            if self.private_postgres is not None:
                if self.args.keep_tmp:
                    with contextlib.suppress(OSError):
                        shutil.copy(self.private_postgres.log_path, self.tmp / "pg.log")
                self.private_postgres.destroy()
                log(f"private PostgreSQL stopped, {self.private_postgres.dir} removed")
            if self.private_redis is not None:
                self.private_redis.stop()
                log("private Redis stopped")
            self.postgres_db = self.redis_url = None
        if self.postgres_db:
            try:
                import psycopg
                from psycopg import sql

                with psycopg.connect(self.postgres_url, autocommit=True, connect_timeout=5) as conn:
                    conn.execute(
                        sql.SQL("drop database if exists {} with (force)").format(
                            sql.Identifier(self.postgres_db)
                        )
                    )
                log(f"PostgreSQL database {self.postgres_db} dropped")
            except Exception as error:
                log(f"could not drop PostgreSQL database {self.postgres_db}: {error}")
        if self.redis_url:
            try:
                import redis

                with redis.Redis.from_url(self.redis_url, socket_timeout=5) as client:
                    keys = list(client.scan_iter(match=self.redis_prefix + "*", count=1000))
                    for start in range(0, len(keys), 500):
                        client.unlink(*keys[start : start + 500])
                log(f"Redis: {len(keys)} keys {self.redis_prefix}* deleted")
            except Exception as error:
                log(f"could not delete the keys {self.redis_prefix}* in {self.redis_url}: {error}")
        if self.args.keep_tmp:
            log(f"logs and files kept in {self.tmp}")
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)
