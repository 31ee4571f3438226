"""One process of the production stack, the one place its command line is written:

    python -m production.run daphne PORT     a Daphne on 127.0.0.1:PORT (production.serve:
                                             ready before it listens, drained on SIGTERM)
    python -m production.run worker NAME     a Celery worker (rounds, photos, clean-ups)
    python -m production.run beat [FILE]     Celery beat: exactly one per site (its
                                             schedule in FILE, default var/celerybeat-schedule)

The systemd units (deploy/systemd/) run these with their ``EnvironmentFile=``; the
supervisor of ``bin/start --production`` runs them with ``--env-file``, read the same way
(``production.envfile``). ``BOGGLE_DAPHNE_BIND`` moves the Daphnes off 127.0.0.1, for a
proxy on another machine (docs/operations.md: never a public interface). Run from the checkout's root.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from production import envfile

REPO = Path(__file__).resolve().parent.parent
# Workers need no chatter between them, and Celery's gossip logs a harmless error after
# every Redis restart (docs/operations.md, "The stack").
QUIET_WORKER = ("--without-gossip", "--without-mingle")


def command(role: str, argument: str | None, python: str = sys.executable) -> list[str]:
    """The command line of one process of the stack."""
    if role == "daphne":
        if argument is None or not argument.isdigit():
            raise ValueError("daphne needs its port: production.run daphne 8001")
        bind = os.environ.get("BOGGLE_DAPHNE_BIND", "127.0.0.1")
        # Daphne in-process (production.serve): ready before it listens, drained on SIGTERM.
        # No proxy headers: the site reads X-Forwarded-* itself, from declared proxies only.
        return [python, "-m", "production.serve", "-b", bind, "-p", argument]
    celery = [python, "-m", "celery", "-A", "boggle_site"]
    if role == "worker":
        name = argument or "1"
        return [*celery, "worker", "-l", "info", "-n", f"worker{name}@%h", *QUIET_WORKER]
    if role == "beat":
        schedule = argument or str(REPO / "var" / "celerybeat-schedule")
        return [*celery, "beat", "-l", "info", "-s", schedule]
    raise ValueError(f"unknown process {role!r}: daphne, worker or beat")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m production.run", description=__doc__)
    parser.add_argument("--env-file", type=Path, help="read the environment from this file")
    parser.add_argument("role", choices=["daphne", "worker", "beat"])
    parser.add_argument(
        "argument", nargs="?", help="the Daphne's port, the worker's name or beat's schedule file"
    )
    args = parser.parse_args(argv)
    if args.env_file is not None:
        try:
            os.environ.update(envfile.read(args.env_file))
        except (OSError, envfile.EnvFileError) as error:
            parser.error(str(error))
    try:
        argv_ = command(args.role, args.argument)
    except ValueError as error:
        parser.error(str(error))
    (REPO / "var").mkdir(exist_ok=True)
    os.chdir(REPO)
    os.execv(argv_[0], argv_)


if __name__ == "__main__":
    main()
