"""A released version of the site, run from its own tree with this checkout's .venv, on a
database migrated by whichever code a scenario says: the upgrade test
(tests/production/test_upgrade.py) and bench/upgrade.py.

A release's tree is extracted with ``git archive`` (so this checkout's history must hold
the commit: a shallow clone does not). What git does not hold comes from this checkout as
a deployment shares it between releases: the compiled word lists (var/dictionaries,
``BOGGLE_DICTIONARY_DIR``) and the Python packages. Each process runs from the tree it is
given, so one stack can serve the old release's code and then the new one's (``replace``).
"""

from __future__ import annotations

import asyncio
import functools
import json
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

from tests.servers import REPO_ROOT
from tests.stack import (
    CELERY,
    DAPHNE,
    WAIT,
    Client,
    Process,
    Stack,
    poll_until,
)
from web.network import free_ports


def unavailable(commit: str) -> str:
    """Why ``commit``'s tree cannot be extracted here; empty when it can."""
    found = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "cat-file", "-e", f"{commit}^{{commit}}"],
        capture_output=True,
        text=True,
        check=False,
    )
    if found.returncode == 0:
        return ""
    shallow = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "rev-parse", "--is-shallow-repository"],
        capture_output=True,
        text=True,
        check=False,
    )
    if shallow.stdout.strip() == "true":
        return f"release {commit[:10]} is not in this shallow clone (git fetch --unshallow)"
    return f"release {commit[:10]} is not in this checkout's history ({found.stderr.strip()})"


def extract(commit: str, into: Path) -> Path:
    """The release's tree (``git archive``) in ``into``/<commit>; returns that folder."""
    tree = into / commit[:12]
    tree.mkdir(parents=True)
    archive = subprocess.Popen(
        ["git", "-C", str(REPO_ROOT), "archive", commit], stdout=subprocess.PIPE
    )
    untar = subprocess.run(["tar", "-x", "-C", str(tree)], stdin=archive.stdout, check=False)
    assert archive.stdout is not None
    archive.stdout.close()
    assert archive.wait() == 0 and untar.returncode == 0, f"git archive {commit} failed"
    return tree


@dataclass
class ProcessIn(Process):
    """A process of the stack run from the tree ``root`` (a release's, or this checkout)."""

    root: Path = REPO_ROOT

    def start(self) -> ProcessIn:
        with self.log.open("ab") as out:
            self.popen = subprocess.Popen(
                self.args,
                cwd=self.root,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        return self


@dataclass
class ReleaseStack(Stack):
    """tests.stack's site (Daphnes A and B, a worker, beat unless off) with its processes
    running ``code``'s tree, on a database that ``migrated_by``'s tree migrated."""

    code: Path = REPO_ROOT
    migrated_by: Path = REPO_ROOT

    def migrate(self, tree: Path) -> str:
        """``manage.py migrate`` with ``tree``'s code (its migrations); returns its output."""
        done = subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput"],
            cwd=tree,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def setup(self) -> None:
        """The word lists compiled by this checkout (shared, as var/ is between releases),
        the database migrated by ``migrated_by``."""
        done = subprocess.run(
            [sys.executable, "-m", "solver", "build"],
            cwd=REPO_ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        self.migrate(self.migrated_by)

    def daphne(self, name: str, tree: Path) -> ProcessIn:
        port = self.ports[name]
        args = [*DAPHNE, "-b", "127.0.0.1", "-p", str(port), "boggle_site.asgi:application"]
        log = self.workdir / f"daphne-{name}.log"
        return ProcessIn(f"daphne-{name}", args, self.env, log, root=tree)

    def start(self) -> None:
        self.setup()
        for name, port in zip(("A", "B"), free_ports(2), strict=True):
            self.ports[name] = port
            self.web[name] = self.daphne(name, self.code).start()
        self.start_worker()
        if self.beat:
            self.beat_process = self.start_beat(self.code)
        for name in self.web:
            poll_until(functools.partial(self._web_ready, name), f"daphne {name}")
        self.wait_worker_ready(self.workers[-1])

    def start_worker(self, tree: Path | None = None) -> Process:
        number = len(self.workers) + 1
        worker = ProcessIn(
            f"celery-{number}",
            [*CELERY, "worker", "-l", "info", *self.worker_options],
            self.env,
            self.workdir / f"celery-{number}.log",
            root=tree or self.code,
        ).start()
        self.workers.append(worker)
        return worker

    def start_beat(self, tree: Path) -> ProcessIn:
        schedule = str(self.workdir / f"beat-schedule-{tree.name}")
        args = [*CELERY, "beat", "-l", "info", "-s", schedule]
        return ProcessIn("beat", args, self.env, self.workdir / "beat.log", root=tree).start()

    def replace_web(self, name: str, tree: Path) -> None:
        """Daphne ``name`` stopped (SIGTERM) and started again from ``tree`` on its port:
        one step of a rolling restart into another release."""
        self.web[name].stop()
        self.web[name] = self.daphne(name, tree).start()
        poll_until(functools.partial(self._web_ready, name), f"daphne {name} from {tree.name}")

    def replace_worker_and_beat(self, tree: Path) -> None:
        """A worker from ``tree`` started and ready before the old ones stop; then beat."""
        old = list(self.workers)
        self.wait_worker_ready(self.start_worker(tree))
        for worker in old:
            worker.stop()
        if self.beat_process is not None:
            self.beat_process.stop()
            self.beat_process = self.start_beat(tree)


# ---------------------------------------------------------------- players of any release


def http_as_browser(
    base: str, method: str, path: str, body: Any = None, cookie: str = ""
) -> tuple[int, Any, str]:
    """One API call as the room's page makes it, with its session cookie; returns (status,
    JSON, the session cookie now). Releases before the ``Authorization`` header knew a
    player's socket by the session its page had joined with."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if cookie:
        request.add_header("Cookie", cookie)
    try:
        with urllib.request.urlopen(request, timeout=WAIT) as response:
            status, raw, headers = response.status, response.read(), response.headers
    except urllib.error.HTTPError as error:
        status, raw, headers = error.code, error.read(), error.headers
    jar = SimpleCookie(cookie)
    for value in headers.get_all("Set-Cookie") or []:
        jar.load(value)
    cookie = "; ".join(f"{name}={morsel.value}" for name, morsel in jar.items())
    try:
        return status, json.loads(raw), cookie
    except ValueError:
        return status, {"body": raw[:500].decode(errors="replace")}, cookie


class BrowserClient(Client):
    """tests.stack's player socket that also sends its page's session cookie, so releases
    that knew players by their session (and not the Authorization header) know it too."""

    def __init__(
        self, name: str, url: str, player_id: int, token: str, cookie: str, reconnect: bool = True
    ) -> None:
        super().__init__(name, url, player_id, token, reconnect=reconnect)
        self.cookie = cookie

    def handshake_headers(self) -> dict[str, str]:
        return {**super().handshake_headers(), "Cookie": self.cookie}


async def open_room_as_browsers(
    site: Stack,
    nicknames: Sequence[str],
    round_seconds: int = 30,
    *,
    reconnect: bool = True,
    statuses: list[int] | None = None,
) -> tuple[str, list[BrowserClient]]:
    """tests.stack.open_room for any release: the host creates the room on A, the others
    join alternately on B and A, each with its own session; sockets opened one by one.
    Each HTTP status is added to ``statuses`` when given."""
    seen = statuses if statuses is not None else []
    status, created, cookie = await asyncio.to_thread(
        http_as_browser,
        site.http_url("A"),
        "POST",
        "/api/rooms",
        {"nickname": nicknames[0], "settings": {"round_seconds": round_seconds}},
    )
    seen.append(status)
    assert status == 201, created
    code = created["room"]["code"]
    joined = [("A", created, cookie)]
    for index, nickname in enumerate(nicknames[1:], start=1):
        web = "B" if index % 2 else "A"
        status, body, cookie = await asyncio.to_thread(
            http_as_browser,
            site.http_url(web),
            "POST",
            f"/api/rooms/{code}/join",
            {"nickname": nickname},
        )
        seen.append(status)
        assert status == 201, body
        joined.append((web, body, cookie))
    clients = [
        BrowserClient(
            f"{code}/{nickname}@{web}",
            site.ws_url(web, code),
            body["player"]["id"],
            body["player"]["token"],
            cookie,
            reconnect,
        )
        for nickname, (web, body, cookie) in zip(nicknames, joined, strict=True)
    ]
    for client in clients:
        await client.open()
    return code, clients
