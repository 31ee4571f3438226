"""The simulated Wi-Fi: hosts that reach each other and nothing else, tidied up after."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import psutil

from netlab import SimulatedWifi
from netlab.wifi import sweep_leftovers

REPO_ROOT = Path(__file__).resolve().parents[2]


def namespaces() -> set[str]:
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True)
    return {line.split(" ", 1)[0] for line in listed.stdout.splitlines()}


def links() -> set[str]:
    listed = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True, check=True)
    return {line.split(":", 2)[1].strip().split("@", 1)[0] for line in listed.stdout.splitlines()}


def serve_once(host, port: int) -> subprocess.Popen:
    """A one-line HTTP server on ``host`` (its own namespace), every address."""
    return host.popen(
        [sys.executable, "-m", "http.server", "--bind", "0.0.0.0", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def fetch_from(host, url: str) -> str:
    code = (
        "import urllib.request, time\n"
        "for _ in range(50):\n"
        "    try:\n"
        f"        print(urllib.request.urlopen({url!r}, timeout=2).status); break\n"
        "    except OSError as error:\n"
        "        last = error; time.sleep(0.1)\n"
        "else:\n"
        "    print(type(last).__name__)\n"
    )
    return host.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60).stdout


def test_hosts_reach_each_other_and_this_machine_reaches_them(wifi: SimulatedWifi) -> None:
    laptop, phone = wifi.add_host("laptop"), wifi.add_host("phone")
    assert wifi.subnet is not None
    assert laptop.address != phone.address and {laptop.address, phone.address} < set(
        str(address) for address in wifi.subnet.hosts()
    )
    server = serve_once(laptop, 8765)
    try:
        assert fetch_from(phone, f"http://{laptop.address}:8765/").strip() == "200"
        assert fetch_from(laptop, "http://127.0.0.1:8765/").strip() == "200"  # its own loopback
    finally:
        server.kill()
        server.wait()


def test_a_host_has_loopback_and_its_wifi_and_no_way_out(wifi: SimulatedWifi) -> None:
    phone = wifi.add_host("phone")
    shown = phone.run(["ip", "-j", "addr"], capture_output=True, text=True, check=True).stdout
    interfaces = {item["ifname"] for item in json.loads(shown)}
    assert interfaces == {"lo", "wlan0"}
    routes = phone.run(["ip", "-j", "route"], capture_output=True, text=True, check=True).stdout
    assert [route["dst"] for route in json.loads(routes)] == [str(wifi.subnet)]  # no default


def test_detection_on_a_laptop_finds_its_wifi_address(wifi: SimulatedWifi) -> None:
    """What bin/start shows on a laptop whose only network is the Wi-Fi."""
    laptop = wifi.add_host("laptop")
    code = "from web import network; print(network.best_lan_address())"
    found = laptop.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    assert found.stdout.strip() == laptop.address


def test_closing_kills_what_runs_and_removes_everything() -> None:
    wifi = SimulatedWifi().open()
    phone = wifi.add_host("phone")
    sleeper = phone.popen(["sleep", "300"])
    assert phone.namespace in namespaces() and wifi.bridge in links()
    wifi.close()
    assert sleeper.wait(timeout=10) != 0
    assert phone.namespace not in namespaces() and wifi.bridge not in links()
    wifi.close()  # twice is harmless


def test_what_a_killed_run_left_behind_is_swept() -> None:
    """A run killed with SIGKILL cannot tidy up; the next one deletes its namespaces and
    bridge (their names carry the dead run's pid)."""
    gone = subprocess.Popen(["true"])
    gone.wait()
    while psutil.pid_exists(gone.pid):  # pragma: no cover - a pid reused at once
        time.sleep(0.01)
    namespace = f"boggle-{gone.pid}-abc-phone"
    bridge = f"bw{gone.pid:x}-abc"
    subprocess.run(["ip", "netns", "add", namespace], check=True)
    subprocess.run(["ip", "link", "add", bridge, "type", "bridge"], check=True)
    try:
        sweep_leftovers()
        assert namespace not in namespaces() and bridge not in links()
    finally:
        subprocess.run(["ip", "netns", "delete", namespace], check=False, capture_output=True)
        subprocess.run(["ip", "link", "delete", bridge], check=False, capture_output=True)
