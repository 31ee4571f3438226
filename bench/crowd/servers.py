"""Another ASGI server for the web processes (``bench/load.py --server``), for issue 50's
comparison of Daphne, Uvicorn and Granian: never what production ships (Daphne, through
``production.serve``), and neither server is in requirements.txt.

They run from a virtualenv of their own, ``BOGGLE_BENCH_SERVERS_VENV`` (default
``var/bench-servers/venv``): the project's requirements plus the pinned servers below. It is
used only when ``--server`` asks for it; when it is missing, or was built from another
requirements.txt (a copy is kept in it), the bench prints the commands that (re)create it.

Each web process serves ``boggle_site.asgi:application`` with the run's environment, on the
port a Daphne would have, one process each (Granian: its supervisor and one worker), under
the name ``daphne-<port>``: the CPU accounting, profiles and faults find web processes by
that name. The application is imported through ``bench.crowd.warm_asgi``, which warms it up
as ``production.serve`` warms a Daphne before it listens: without it the first round would
load the word lists inside the measured window, under the other servers only.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent

SERVERS = ("daphne", "uvicorn", "granian")
# Pinned: the comparison names the versions it measured.
UVICORN = "uvicorn[standard]==0.54.0"  # with uvloop 0.23.0, httptools 0.9.0, websockets 17.4
GRANIAN = "granian==2.8.7"
VENV_VARIABLE = "BOGGLE_BENCH_SERVERS_VENV"
DEFAULT_VENV = REPO / "var" / "bench-servers" / "venv"
# The requirements.txt the virtualenv was built from (the commands below copy it there).
STAMP = "requirements.txt"
APPLICATION = "bench.crowd.warm_asgi:application"
# Daphne's websocket keep-alive (production.serve), kept for the others.
PING_INTERVAL_SECONDS = 20
PING_TIMEOUT_SECONDS = 30

# What the other servers leave out, said with the figures (one line).
NOT_PRODUCTION = (
    "--server {server}: a comparison, not a production configuration: the web processes"
    " (named daphne-<port>) are {server}, and the Daphne-only parts do not apply"
    " (production.serve's drain on SIGTERM and systemd notify; web.send_cap, web.prompt_writes,"
    " web.connection_guard and web.body_limit's guard inside Daphne; games.draining);"
    " production.serve's warm-up is done by bench.crowd.warm_asgi"
)


def venv_dir() -> Path:
    configured = os.environ.get(VENV_VARIABLE)
    return Path(configured) if configured else DEFAULT_VENV


def create_commands(venv: Path) -> str:
    """The commands that build the servers' virtualenv (from the repository's root)."""
    python = shlex.quote(str(venv / "bin" / "python"))
    where = shlex.quote(str(venv))
    return (
        f"rm -rf {where} && python3 -m venv {where} && {python} -m pip install -r requirements.txt"
        f" '{UVICORN}' '{GRANIAN}' && cp requirements.txt {where}/{STAMP}"
    )


def venv_python(venv: Path | None = None) -> Path:
    """The servers' virtualenv's Python; SystemExit, with the commands that build it, when it
    is missing or was built from another requirements.txt."""
    venv = venv or venv_dir()
    python = venv / "bin" / "python"
    stamp = venv / STAMP
    if not python.exists() or not stamp.exists():
        problem = f"no virtualenv with Uvicorn and Granian at {venv} ({VENV_VARIABLE})"
    elif stamp.read_bytes() != (REPO / "requirements.txt").read_bytes():
        problem = f"the virtualenv at {venv} was built from another requirements.txt"
    else:
        return python
    raise SystemExit(
        f"load: --server: {problem}; create it (not in requirements.txt: for the comparison"
        f" only) from {REPO} with:\n    {create_commands(venv)}"
    )


def command(server: str, python: Path, bind: str, port: int) -> list[str]:
    """The command line of one web process of ``server`` (uvicorn or granian)."""
    if server == "uvicorn":
        return [
            str(python),
            "-m",
            "uvicorn",
            APPLICATION,
            "--host",
            bind,
            "--port",
            str(port),
            "--loop",
            "uvloop",
            "--http",
            "httptools",
            "--ws",
            "websockets",
            # The application reads X-Forwarded-* itself, from the peer (web.proxies), as
            # under Daphne: Uvicorn's rewriting of the client would hide nginx from it.
            "--no-proxy-headers",
            # The application does not speak lifespan (Channels' router refuses it).
            "--lifespan",
            "off",
            # Daphne never compresses frames: the same work on both sides.
            "--ws-per-message-deflate",
            "false",
            "--ws-ping-interval",
            str(PING_INTERVAL_SECONDS),
            "--ws-ping-timeout",
            str(PING_TIMEOUT_SECONDS),
            # web.request_log writes one line per request, as under Daphne (no access log).
            "--no-access-log",
            "--log-level",
            "warning",
        ]
    if server == "granian":
        return [
            str(python),
            "-m",
            "granian",
            # ASGI without lifespan, which the application does not speak ("asgi" tries it
            # and logs a warning).
            "--interface",
            "asginl",
            "--host",
            bind,
            "--port",
            str(port),
            "--workers",
            "1",
            "--loop",
            "uvloop",
            "--log-level",
            "warning",
            APPLICATION,
        ]
    raise ValueError(f"not another server: {server}")
