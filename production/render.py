"""The configuration files of the stack, from deploy/'s templates.

``nginx_site`` fills in deploy/nginx/boggle.conf (``${NAME}`` fields, as envsubst would)
for operators and for ``bin/start --production`` alike; ``nginx_main`` and ``supervisord``
are what ``bin/start --production`` adds to run everything as the current user under
var/production/ (a machine with systemd uses the units of deploy/systemd/ instead).
"""

from __future__ import annotations

import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEPLOY = REPO / "deploy"
NGINX_TEMPLATE = DEPLOY / "nginx" / "boggle.conf"
ENV_TEMPLATE = DEPLOY / "boggle.env.example"
FIELD = re.compile(r"\$\{([A-Z_]+)\}")

# Per client address, at nginx (the site's own per-address limits come after, finer):
# generous, since a household or a classroom shares one address (docs/api.md, "Limits").
REQUESTS_PER_SECOND = 50
REQUEST_BURST = 500
CONNECTIONS_PER_ADDRESS = 200
# After a reload, nginx's old workers close the sockets they still hold and exit after
# this long (the pages reconnect at once); deploy/nginx/boggle-main.conf says the same.
WORKER_SHUTDOWN_SECONDS = 30
# bin/start --production: nginx's access lines go to its stdout, which supervisord writes
# to logs/nginx.log and rotates (stdout_logfile_maxbytes); a file of nginx's own would grow
# for ever (operators' /var/log/nginx/*.log are rotated by Debian's logrotate.d/nginx).
STACK_ACCESS_LOG = "/dev/stdout"


@dataclass(frozen=True)
class Site:
    """What the nginx site needs: where it listens and where the Daphnes are."""

    listen: str  # "80", "0.0.0.0:8000", "10.0.0.5:8000"
    daphne_ports: tuple[int, ...]
    server_name: str = "_"
    daphne_host: str = "127.0.0.1"
    # "$scheme" when nginx itself is what the client reached; "https" behind a TLS proxy.
    forwarded_proto: str = "$scheme"
    access_log: str = "/var/log/nginx/boggle-access.log"


def fill(template: str, values: dict[str, str]) -> str:
    """``template`` with each ``${NAME}`` replaced; a field without a value is an error (a
    half-rendered nginx file would fail later, further from the cause). nginx's own
    ``$variables`` have no braces here and are left alone."""
    missing = sorted({name for name in FIELD.findall(template) if name not in values})
    if missing:
        raise KeyError(f"no value for {', '.join(missing)}")
    return FIELD.sub(lambda match: values[match.group(1)], template)


def nginx_site(site: Site) -> str:
    if not site.daphne_ports:
        raise ValueError("at least one Daphne")
    # Never marked failed: a refused connection moves the request on, nothing more
    # (deploy/nginx/boggle.conf says why).
    servers = "\n".join(
        f"    server {site.daphne_host}:{port} max_fails=0;" for port in site.daphne_ports
    )
    return fill(
        NGINX_TEMPLATE.read_text(encoding="utf-8"),
        {
            "BOGGLE_LISTEN": site.listen,
            "BOGGLE_SERVER_NAME": site.server_name,
            "BOGGLE_DAPHNE_SERVERS": servers,
            "BOGGLE_FORWARDED_PROTO": site.forwarded_proto,
            "BOGGLE_ACCESS_LOG": site.access_log,
            "BOGGLE_REQUESTS_PER_SECOND": str(REQUESTS_PER_SECOND),
            "BOGGLE_REQUEST_BURST": str(REQUEST_BURST),
            "BOGGLE_CONNECTIONS_PER_ADDRESS": str(CONNECTIONS_PER_ADDRESS),
        },
    )


def nginx_main(
    site_file: Path,
    run_dir: Path,
    as_root: bool,
    worker_shutdown_seconds: int = WORKER_SHUTDOWN_SECONDS,
) -> str:
    """A whole nginx.conf around the site, for nginx run in the foreground by the
    supervisor, its pid and buffers under ``run_dir``, its error log on stderr (the
    supervisor's rotated log, as its access log on stdout: ``STACK_ACCESS_LOG``)."""
    temp = run_dir / "nginx"
    lines = [
        "# Written by bin/start --production (production.render); the site is the include.",
        # As root nginx would hand its workers to "nobody"; Debian's nginx runs them as
        # www-data, which its package creates.
        *(["user www-data;"] if as_root else []),
        "worker_processes auto;",
        "daemon off;",
        f"worker_shutdown_timeout {worker_shutdown_seconds}s;",
        f"pid {run_dir / 'nginx.pid'};",
        "error_log stderr warn;",
        "events { worker_connections 4096; }",
        "http {",
        *(
            f"    {kind}_temp_path {temp / kind};"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        ),
        f"    include {site_file};",
        "}",
    ]
    return "\n".join(lines) + "\n"


# A Daphne drains within 10 s (production.serve: 8 s, then its watchdog's 2 s): its
# supervisor waits longer than that before it kills (as the unit's TimeoutStopSec=15).
DAPHNE_STOP_SECONDS = 15


@dataclass(frozen=True)
class Program:
    name: str
    command: list[str]
    # Seconds the supervisor waits after a stop signal before it kills.
    stop_seconds: int = 10
    # The account it runs as (supervisord's user=, which needs root); None: supervisord's.
    user: str | None = None
    # supervisord starts lower numbers first: the stack's Redis before what uses it.
    priority: int = 999


def stack_programs(
    env_file: Path,
    daphne_ports: tuple[int, ...],
    workers: int,
    nginx_command: list[str],
    beat_schedule: Path,
    user: str | None = None,
    redis_command: list[str] | None = None,
) -> list[Program]:
    """Every process of the stack: nginx, the Daphnes, the workers and one beat, each
    through ``production.run`` (the units' own command) with the environment file, and
    the stack's own Redis when it has one. All but nginx (whose master binds the port and
    whose workers are www-data) run as ``user`` when given."""
    run = [sys.executable, "-m", "production.run", "--env-file", str(env_file)]
    redis = [Program("redis", redis_command, 30, user, 100)] if redis_command else []
    return [
        *redis,
        Program("nginx", nginx_command),
        *(
            Program(f"daphne-{port}", [*run, "daphne", str(port)], DAPHNE_STOP_SECONDS, user=user)
            for port in daphne_ports
        ),
        *(
            Program(f"worker-{n}", [*run, "worker", str(n)], 30, user)
            for n in range(1, workers + 1)
        ),
        Program("beat", [*run, "beat", str(beat_schedule)], user=user),
    ]


def supervisord(programs: list[Program], run_dir: Path, home: Path | None = None) -> str:
    """supervisord.conf: every program restarted when it dies (a killed Daphne comes back
    while its players reconnect to the others), logs in ``run_dir/logs``, and the control
    socket for ``supervisorctl -c <this file> status``. A program run as another user gets
    that user's names and ``home`` as HOME (supervisord changes only the ids)."""
    logs = run_dir / "logs"
    sections = [
        "; Written by bin/start --production (production.render). Run it with",
        f";   supervisord -n -c {run_dir / 'supervisord.conf'}",
        "[supervisord]",
        "nodaemon=true",
        f"logfile={logs / 'supervisord.log'}",
        f"pidfile={run_dir / 'supervisord.pid'}",
        f"childlogdir={logs}",
        "",
        "[unix_http_server]",
        f"file={run_dir / 'supervisor.sock'}",
        "chmod=0700",
        "",
        "[supervisorctl]",
        f"serverurl=unix://{run_dir / 'supervisor.sock'}",
        "",
        "[rpcinterface:supervisor]",
        "supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface",
    ]
    for program in programs:
        # supervisord's own expansion reads "%(...)s": a literal % is doubled.
        command = " ".join(shlex.quote(part) for part in program.command).replace("%", "%%")
        sections += [
            "",
            f"[program:{program.name}]",
            f"command={command}",
            f"directory={REPO}",
            "autorestart=true",
            "startsecs=1",
            "startretries=10",
            f"stopwaitsecs={program.stop_seconds}",
            "stopasgroup=true",
            "killasgroup=true",
            "redirect_stderr=true",
            f"stdout_logfile={logs / (program.name + '.log')}",
            "stdout_logfile_maxbytes=50MB",
            "stdout_logfile_backups=3",
            f"priority={program.priority}",
        ]
        if program.user is not None:
            names = f'USER="{program.user}",LOGNAME="{program.user}"'
            sections += [
                f"user={program.user}",
                f'environment={names},HOME="{home}"'.replace("%", "%%")
                if home
                else f"environment={names}",
            ]
    return "\n".join(sections) + "\n"
