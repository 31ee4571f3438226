"""Per-address limits as phones on a Wi-Fi meet them: each phone has an address of its own,
so one that joins too often is refused while the others, and the laptop itself, are not.

The site runs here as bin/start runs it (every address); the phones are machines of a
simulated Wi-Fi (netlab) and reach it on the Wi-Fi's address, never this machine's own.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from netlab import Host, SimulatedWifi
from tests.servers import SiteServer
from tests.stack import http

# docs/api.md, "Limits": joins per address, 10 at once then 60 a minute.
JOINS_AT_ONCE = 10

JOIN_SCRIPT = """
import json, sys, urllib.error, urllib.request
base, code, count, name = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
statuses = []
for index in range(count):
    body = json.dumps({"nickname": f"{name}{index}"}).encode()
    request = urllib.request.Request(
        f"{base}/api/rooms/{code}/join", data=body, method="POST",
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            statuses.append(response.status)
    except urllib.error.HTTPError as error:
        statuses.append(error.code)
print(json.dumps(statuses))
"""


@pytest.fixture
def site_on_the_wifi(wifi: SimulatedWifi, tmp_path: Path) -> Iterator[SiteServer]:
    with SiteServer(tmp_path, bind="0.0.0.0").running() as server:
        yield server


def joins_from(phone: Host, base: str, code: str, count: int, name: str) -> list[int]:
    result = phone.run(
        [sys.executable, "-c", JOIN_SCRIPT, base, code, str(count), name],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return list(json.loads(result.stdout))


def test_a_phone_that_joins_too_often_is_refused_and_nobody_else(
    wifi: SimulatedWifi, site_on_the_wifi: SiteServer
) -> None:
    site = site_on_the_wifi
    status, created = http(site.url, "POST", "/api/rooms", {"nickname": "Host"})
    assert status == 201
    code = created["room"]["code"]
    over_the_wifi = f"http://{wifi.gateway}:{site.port}"
    noisy, quiet = wifi.add_host("noisy"), wifi.add_host("quiet")

    statuses = joins_from(noisy, over_the_wifi, code, JOINS_AT_ONCE + 1, "Noisy")
    assert statuses == [201] * JOINS_AT_ONCE + [429]
    assert joins_from(quiet, over_the_wifi, code, 1, "Quiet") == [201]
    # The laptop (loopback) is the host's own machine: never limited.
    for index in range(JOINS_AT_ONCE + 1):
        assert (
            http(site.url, "POST", f"/api/rooms/{code}/join", {"nickname": f"L{index}"})[0] == 201
        )
