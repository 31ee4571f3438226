"""The nginx site with real nginx in front of fake Daphnes (tests/deploy/nginx_harness.py).

Issue 49, item 4: with ``max_fails=1`` a Daphne that refused one connection was marked
failed, and then again on each new socket until one closed: its rooms stayed split across
Daphnes after it was back, and with every Daphne marked (a rolling restart) nginx answered
502 "no live upstreams" to requests a running Daphne could have served. Item 6: reloads
left old workers up to an hour; no request id reached the site or the access log; the
health checks were rate-limited with everything else.
"""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import time
from pathlib import Path

from production import render
from production.render import Site
from tests.deploy.nginx_harness import WAIT_SECONDS, RunningNginx, nginx_before, wait_until
from tests.deploy.tools import require_tool
from tests.photo_data import missing

ROOMS = [f"R{number:03d}" for number in range(40)]


def owners(nginx: RunningNginx) -> dict[str, str]:
    """Which Daphne answers each room's socket address, every answer a 200."""
    answers = {room: nginx.get(f"/ws/rooms/{room}/") for room in ROOMS}
    assert {answer.status for answer in answers.values()} == {200}, answers
    return {room: answer.body for room, answer in answers.items()}


def round_robin_statuses(nginx: RunningNginx, count: int = 12) -> set[int]:
    return {nginx.get(f"/api/dictionaries?n={n}").status for n in range(count)}


def test_only_a_dead_daphnes_rooms_move_and_they_come_back(tmp_path: Path) -> None:
    with nginx_before(tmp_path, ["A", "B", "C"]) as (nginx, daphnes):
        before = owners(nginx)
        assert set(before.values()) == {"A", "B", "C"}  # every Daphne holds some rooms
        rooms_of_b = {room for room, owner in before.items() if owner == "B"}

        daphnes.stop("B")
        moved = owners(nginx)
        for room, owner in moved.items():
            if room in rooms_of_b:
                assert owner != "B"
            else:
                assert owner == before[room], f"{room} moved off a running Daphne"
        for _ in range(2):  # more sockets of each room, while B is down
            assert round_robin_statuses(nginx) == {200}
            # A room of the dead Daphne is not split: all its sockets meet on one Daphne.
            assert owners(nginx) == moved

        daphnes.start("B")
        # Back at once, on its very next socket: not after a fail_timeout, not one at a time.
        assert owners(nginx) == before
        assert round_robin_statuses(nginx) == {200}


def test_a_rolling_restart_never_answers_502(tmp_path: Path) -> None:
    with nginx_before(tmp_path, ["A", "B"]) as (nginx, daphnes):
        before = owners(nginx)
        daphnes.stop("A")
        assert set(owners(nginx).values()) == {"B"}
        assert round_robin_statuses(nginx) == {200}
        daphnes.start("A")
        daphnes.stop("B")  # at once: A refused a moment ago, and is back
        assert set(owners(nginx).values()) == {"A"}
        assert round_robin_statuses(nginx) == {200}
        daphnes.start("B")
        assert owners(nginx) == before


def test_every_request_carries_a_fresh_request_id_to_the_site_and_the_log(
    tmp_path: Path,
) -> None:
    with nginx_before(tmp_path, ["A"]) as (nginx, _):
        first = nginx.get("/api/rooms", headers={"X-Request-Id": "forged-by-the-client"})
        second = nginx.get("/ws/rooms/ABCD/")
        ids = [first.headers["x-seen-request-id"], second.headers["x-seen-request-id"]]
        for request_id in ids:
            assert re.fullmatch(r"[0-9a-f]{32}", request_id)  # nginx's, never the client's
        assert ids[0] != ids[1]

        def logged() -> bool:
            return all(request_id in nginx.output() for request_id in ids)

        wait_until(logged, "the access log lines (nginx's stdout) with the request ids")


def test_health_checks_are_never_rate_limited(tmp_path: Path) -> None:
    burst = render.REQUEST_BURST * 2  # past the burst even with the rate refilling it
    with nginx_before(tmp_path, ["A"]) as (nginx, _):
        for path in ("/healthz", "/readyz"):
            statuses = [nginx.get(path).status for _ in range(burst)]
            assert set(statuses) == {200}, f"{path}: {statuses.count(429)} answered 429"
        # The rest of the site is limited: the same burst elsewhere meets 429.
        assert 429 in {nginx.get("/").status for _ in range(burst)}


def test_a_reload_ends_its_old_workers_within_the_shutdown_timeout(tmp_path: Path) -> None:
    with nginx_before(tmp_path, ["A"], worker_shutdown_seconds=1) as (nginx, _):
        held = socket.create_connection(("127.0.0.1", nginx.port), WAIT_SECONDS)
        held.sendall(
            b"GET /ws/rooms/ABCD/ HTTP/1.1\r\nHost: boggle\r\nUpgrade: websocket\r\n"
            b"Connection: Upgrade\r\n\r\n"
        )
        assert held.recv(4096).startswith(b"HTTP/1.1 101")
        nginx.reload()
        # The old worker holding the socket closes it once its time is up (before: it
        # waited for the socket's own end, up to proxy_read_timeout, an hour).
        held.settimeout(WAIT_SECONDS)
        started = time.monotonic()
        try:
            rest = held.recv(4096)
            while rest and time.monotonic() - started < WAIT_SECONDS:
                rest = held.recv(4096)
        except TimeoutError:
            rest = b"still open"
        finally:
            held.close()
        assert rest == b"", "the old worker kept the socket open"


DEBIAN_NGINX_CONF = Path("/etc/nginx/nginx.conf")
MAIN_SNIPPET = render.DEPLOY / "nginx" / "boggle-main.conf"


def test_the_main_context_snippet_loads_where_debian_includes_it(tmp_path: Path) -> None:
    """deploy/nginx/boggle-main.conf in /etc/nginx/modules-enabled/, the site in
    sites-enabled/, under Debian's own nginx.conf (its paths moved into the test's folder)."""
    nginx = require_tool("nginx")
    if not DEBIAN_NGINX_CONF.exists():
        missing(f"{DEBIAN_NGINX_CONF} is not here (Debian's nginx-common installs it)")
    snippet = MAIN_SNIPPET.read_text()
    assert re.findall(r"^worker_shutdown_timeout (\d+)s;$", snippet, re.MULTILINE) == [
        str(render.WORKER_SHUTDOWN_SECONDS)
    ]  # the same as bin/start --production's
    debian = DEBIAN_NGINX_CONF.read_text()
    assert "include /etc/nginx/modules-enabled/*.conf;" in debian.split("http {")[0]
    for folder in ("modules-enabled", "sites-enabled", "conf.d", "log"):
        (tmp_path / folder).mkdir()
    shutil.copy(MAIN_SNIPPET, tmp_path / "modules-enabled" / "90-boggle-main.conf")
    site = Site(
        listen="127.0.0.1:8000",
        daphne_ports=(8001, 8002),
        access_log=str(tmp_path / "log" / "a.log"),
    )
    (tmp_path / "sites-enabled" / "boggle").write_text(render.nginx_site(site))
    moved = debian.replace("/var/log/nginx/", f"{tmp_path}/log/").replace("/run/", f"{tmp_path}/")
    for folder in ("modules-enabled", "sites-enabled", "conf.d"):
        moved = moved.replace(f"/etc/nginx/{folder}/", f"{tmp_path}/{folder}/")
    (tmp_path / "nginx.conf").write_text(moved)
    done = subprocess.run(
        [nginx, "-t", "-c", str(tmp_path / "nginx.conf"), "-e", str(tmp_path / "log" / "e.log")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
