"""The network guard: the test process reaches loopback and the simulated Wi-Fi only.

Every refusal here happens before the kernel is asked (the audit hook raises first), so
these tests send nothing anywhere; each takes its own violations back, or it would fail.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from netlab import SimulatedWifi, guard

REPO_ROOT = Path(__file__).resolve().parents[2]
# Documentation addresses (RFC 5737): never anybody's machine.
ELSEWHERE = "203.0.113.7"


def test_a_tcp_connect_elsewhere_is_refused_and_named() -> None:
    with pytest.raises(guard.ForbiddenDestination, match=rf"{ELSEWHERE}:9"):
        socket.create_connection((ELSEWHERE, 9), timeout=0.1)
    assert [str(v) for v in guard.take_violations()] == [f"connect to {ELSEWHERE}:9"]


def test_a_datagram_elsewhere_is_refused() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        with pytest.raises(guard.ForbiddenDestination):
            udp.sendto(b"x", ("198.51.100.1", 53))
        with pytest.raises(guard.ForbiddenDestination):
            udp.connect(("192.0.2.1", 9))
    assert len(guard.take_violations()) == 2


def test_a_name_lookup_is_refused_but_localhost_resolves() -> None:
    with pytest.raises(guard.ForbiddenDestination, match=r"example\.org"):
        socket.getaddrinfo("example.org", 80)
    assert guard.take_violations()
    assert socket.getaddrinfo("localhost", 80)


def test_loopback_is_open() -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass
    assert guard.take_violations() == []


def test_hosts_of_an_open_wifi_are_reachable(wifi: SimulatedWifi) -> None:
    phone = wifi.add_host("phone")
    assert guard.is_allowed_host(phone.address)
    assert guard.is_allowed_host(wifi.gateway)
    wifi.close()
    assert not guard.is_allowed_host(phone.address)


def test_a_test_that_swallows_the_refusal_still_fails(tmp_path: Path) -> None:
    """The pytest plugin, in a run of its own: a test that catches the error fails anyway,
    naming the address."""
    (tmp_path / "test_sneaky.py").write_text(
        textwrap.dedent(
            f"""
            import socket

            def test_sneaky():
                try:
                    socket.create_connection(("{ELSEWHERE}", 80), timeout=0.1)
                except OSError:
                    pass
            """
        )
    )
    result = subprocess.run(
        [
            *[sys.executable, "-m", "pytest", "-q", "-p", "netlab.pytest_plugin"],
            *["-p", "no:django", "-p", "no:cacheprovider", str(tmp_path / "test_sneaky.py")],
        ],
        cwd=tmp_path,
        env=os.environ | {"PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "1 failed" in result.stdout
    assert f"network guard (the test): connect to {ELSEWHERE}:80" in result.stdout
