"""bench/load.py --through-nginx and --side-by-side: the options, the players' loopback
addresses, nginx's configuration from the project's templates (and real nginx passing a
player's address on to the Daphnes), and the figures in columns."""

from __future__ import annotations

import contextlib
import http.server
import ipaddress
import json
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.crowd import nginx
from bench.crowd.costs import build_costs
from bench.crowd.http_client import http_call
from bench.crowd.side_by_side import ROWS, side_by_side, table_lines
from bench.load import parse_args, side_by_side_runs
from production import render
from tests.deploy.tools import require_tool
from web.network import free_ports


def test_through_nginx_implies_production_with_two_daphnes() -> None:
    args = parse_args(["--through-nginx"])
    assert (args.mode, args.daphnes, args.through_nginx) == ("production", 2, True)
    assert parse_args(["--through-nginx", "--daphnes", "3"]).daphnes == 3
    assert parse_args([]).mode == "embedded"  # unchanged without it


@pytest.mark.parametrize(
    "extra",
    [["--mode", "embedded"], ["--url", "http://127.0.0.1:8000"], ["--faults", "redis"]],
)
@pytest.mark.parametrize("option", ["--through-nginx", "--side-by-side"])
def test_nginx_runs_start_their_own_production_site(option: str, extra: list[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args([option, *extra])


def test_side_by_side_runs_direct_by_room_then_through_nginx() -> None:
    args = parse_args(["--side-by-side", "--players", "40"])
    assert args.mode == "production" and args.daphnes == 2
    runs = side_by_side_runs(args)
    assert list(runs) == ["direct", "through nginx"]
    direct, through = runs.values()
    assert (direct.through_nginx, direct.route) == (False, "room")
    assert through.through_nginx is True
    assert direct.players == through.players == 40
    assert direct.seed == through.seed


def test_each_player_has_a_loopback_address_of_its_own() -> None:
    addresses = [nginx.player_address(index) for index in range(nginx.MAX_PLAYERS)]
    assert len(set(addresses)) == nginx.MAX_PLAYERS
    assert "127.0.0.1" not in addresses  # nginx's own address, the trusted proxy
    for address in (addresses[0], addresses[253], addresses[254], addresses[-1]):
        ip = ipaddress.IPv4Address(address)
        assert ip.is_loopback and not address.endswith((".0", ".255"))
    with pytest.raises(ValueError):
        nginx.player_address(nginx.MAX_PLAYERS)
    with pytest.raises(SystemExit):
        parse_args(["--through-nginx", "--players", str(nginx.MAX_PLAYERS + 1)])


def test_the_configuration_is_the_production_templates_with_the_benchs_daphnes(
    tmp_path: Path,
) -> None:
    files = nginx.write_config(tmp_path / "nginx-run", 41000, (41001, 41002))
    site = files.site_file.read_text()
    assert site == render.nginx_site(
        render.Site(
            listen="127.0.0.1:41000",
            daphne_ports=(41001, 41002),
            access_log=render.STACK_ACCESS_LOG,
        )
    )
    assert "hash $boggle_room consistent;" in site  # the room affinity
    assert site.count("server 127.0.0.1:41001 max_fails=0;") == 2  # both upstreams
    assert f"rate={render.REQUESTS_PER_SECOND}r/s" in site  # the limits as shipped
    main = files.main_file.read_text()
    assert f"pid {files.run_dir / 'nginx.pid'};" in main
    assert f"include {files.site_file};" in main
    assert f"proxy_temp_path {files.run_dir / 'nginx' / 'proxy'};" in main
    assert files.url == "http://127.0.0.1:41000"
    assert files.command("/usr/sbin/nginx")[-2:] == ["-e", str(files.run_dir / "error.log")]


class _Echo(http.server.BaseHTTPRequestHandler):
    """A Daphne stand-in: answers who connected and whom the proxy says it forwards."""

    def do_GET(self) -> None:
        body = json.dumps(
            {"peer": self.client_address[0], "forwarded": self.headers.get("X-Forwarded-For")}
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def _echo_server(port: int) -> Iterator[None]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), _Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()


def _listening(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
        return True
    return False


def test_real_nginx_passes_each_players_own_address_on(tmp_path: Path) -> None:
    binary = require_tool("nginx")
    nginx_port, daphne_port = free_ports(2)
    files = nginx.write_config(tmp_path / "nginx-run", nginx_port, (daphne_port,))
    assert nginx.check_config(files, binary) is None
    with _echo_server(daphne_port), (tmp_path / "nginx.log").open("wb") as log:
        process = subprocess.Popen(files.command(binary), stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 10
            while not _listening(nginx_port):
                assert process.poll() is None, (tmp_path / "nginx.log").read_text()
                assert time.monotonic() < deadline, "nginx did not listen"
                time.sleep(0.05)
            answers = [
                http_call(files.url, "GET", "/api/x", source=nginx.player_address(index))
                for index in (0, 300)
            ]
        finally:
            process.terminate()
            process.wait(10)
    assert [a.status for a in answers] == [200, 200]
    # nginx is the Daphnes' peer (the trusted proxy); the player is the address it forwards.
    assert [a.body["peer"] for a in answers] == ["127.0.0.1", "127.0.0.1"]
    assert [a.body["forwarded"] for a in answers] == ["127.0.1.1", "127.0.2.47"]
    assert nginx.TRUSTED_PROXIES == "127.0.0.1/32"


def _report(daphne_cpu: float, nginx_cpu: float | None) -> dict[str, Any]:
    play = {
        "ws.accepted": 100.0,
        "ws.verdicts": 200.0,
        "ws.room_events": 10.0,
        "ws.event_frames": 80.0,
        "ws.frames_in": 400.0,
        "ws.frames_out": 200.0,
        "cpu.daphne-1": daphne_cpu,
        "redis.cmd.publish": 50.0,
    }
    if nginx_cpu is not None:
        play["cpu.nginx"] = nginx_cpu
    costs = build_costs(
        play, 10.0, {}, 1.0, 2, {}, 0.0, 0.0, 10.0, 8, 1, {"redis": "", "postgres": ""}
    )
    return {
        "players_playing": 8,
        "rooms": 2,
        "verdict_latency_ms": {"p50": 9.0, "p99": 105.3},
        "round_ended_after_deadline_ms": {"p50": 266.0, "p99": 490.0},
        "lost_words": 0,
        "http_game": {"5xx": 1, "other_non_2xx": 0},
        "http_burst": None,
        "websockets": {"connect_failures": {"InvalidStatus 504": 2, "TimeoutError": 1}},
        "costs": costs,
        "machine": {"load_average": [1.5, 1.0, 0.5]},
    }


def test_nginx_cpu_per_verdict_and_the_web_tier() -> None:
    play = _report(0.4, 0.1)["costs"]["play"]
    assert play["daphnes"]["cpu_ms_per_verdict"] == 2.0  # 0.4 s / 200 verdicts
    assert play["nginx"]["cpu_ms_per_verdict"] == 0.5
    assert play["web"]["cpu_ms_per_verdict"] == 2.5
    direct = _report(0.4, None)["costs"]["play"]
    assert direct["nginx"] is None
    assert direct["web"]["cpu_ms_per_verdict"] == 2.0


def test_the_columns_hold_each_runs_figures() -> None:
    assert len({label for label, _ in ROWS}) == len(ROWS)  # no row hides another
    reports = {"direct": _report(0.4, None), "through nginx": _report(0.6, 0.1)}
    rows = side_by_side(reports)
    assert rows["web CPU ms per verdict (Daphnes)"] == {"direct": "2", "through nginx": "3"}
    assert rows["nginx CPU ms per verdict"] == {"direct": "n/a", "through nginx": "0.5"}
    assert rows["Redis commands per room event"]["through nginx"] == "5"
    assert rows["frames to a socket in play"]["direct"] == "50"  # 400 frames / 8 sockets
    assert rows["verdict latency ms p50 / p99"]["direct"] == "9 / 105.3"
    assert rows["HTTP 5xx (game + burst)"]["direct"] == "1"
    assert rows["    of which handshakes answered 5xx"]["direct"] == "2"
    lines = table_lines(reports)
    assert "direct" in lines[0] and "through nginx" in lines[0]
    assert len(lines) == len(ROWS) + 1
