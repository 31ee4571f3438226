"""Phones reach the embedded default by this machine's address, and every join link and QR
code carries an address a phone can open, never 127.0.0.1 or localhost."""

from __future__ import annotations

import re

import pytest
from django.test import Client, override_settings

from web import hosts, network

LAN = "192.168.1.20"
EMBEDDED = {
    "BOGGLE_SERVES_LOCAL_NETWORK": True,
    "ALLOWED_HOSTS": ["*"],
    "BOGGLE_PUBLIC_URL": "",
    "BOGGLE_LAN_HOST": "",
}


@pytest.fixture(autouse=True)
def fresh_lan_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hosts, "_lan_cache", (-hosts.LAN_ADDRESS_TTL_SECONDS, None))


def create_room(client: Client, host: str) -> dict:
    response = client.post(
        "/api/rooms", {"nickname": "Ann"}, content_type="application/json", HTTP_HOST=host
    )
    assert response.status_code == 201, response.content
    return response.json()


def page_join_url(client: Client, code: str, host: str) -> str:
    """The join link the room page hands to its QR code and copy button."""
    response = client.get(f"/r/{code}/", HTTP_HOST=host)
    assert response.status_code == 200
    match = re.search(r'data-join-url="([^"]*)"', response.content.decode())
    assert match, "the room page names no join link"
    return match.group(1)


def host_of(url: str) -> str:
    return url.split("//", 1)[1].split("/", 1)[0]


@pytest.mark.django_db
@override_settings(**EMBEDDED)
def test_a_phone_using_the_laptops_address_gets_links_to_that_address() -> None:
    client = Client()
    data = create_room(client, f"{LAN}:8000")
    code = data["room"]["code"]
    assert data["player"]["join_url"] == f"http://{LAN}:8000/r/{code}/"
    assert page_join_url(client, code, f"{LAN}:8000") == f"http://{LAN}:8000/r/{code}/"


@pytest.mark.django_db
@override_settings(**EMBEDDED)
@pytest.mark.parametrize("loopback", ["127.0.0.1:8000", "localhost:8000", "[::1]:8000"])
def test_a_host_on_loopback_hands_out_the_lan_address(
    loopback: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(network, "best_lan_address", lambda: LAN)
    client = Client()
    data = create_room(client, loopback)
    code = data["room"]["code"]
    assert data["player"]["join_url"] == f"http://{LAN}:8000/r/{code}/"
    assert page_join_url(client, code, loopback) == f"http://{LAN}:8000/r/{code}/"


@pytest.mark.django_db
@override_settings(**EMBEDDED)
def test_join_links_on_loopback_use_this_machines_real_address() -> None:
    """No stand-in: the address found on this machine (skips on a machine with none)."""
    address = network.best_lan_address()
    if address is None:
        pytest.skip("this machine has no network address besides loopback")
    data = create_room(Client(), "127.0.0.1:8000")
    name, port = network.split_host(host_of(data["player"]["join_url"]))
    assert (name, port) == (address, "8000")
    assert not network.is_loopback(name)


@pytest.mark.django_db
@override_settings(**{**EMBEDDED, "BOGGLE_LAN_HOST": "laptop.local"})
def test_lan_host_variable_overrides_detection() -> None:
    data = create_room(Client(), "localhost:8000")
    assert data["player"]["join_url"].startswith("http://laptop.local:8000/r/")


@pytest.mark.django_db
@override_settings(**{**EMBEDDED, "BOGGLE_PUBLIC_URL": "https://boggle.example"})
def test_public_url_fixes_every_link() -> None:
    client = Client()
    for host in ("127.0.0.1:8000", f"{LAN}:8000"):
        data = create_room(client, host)
        code = data["room"]["code"]
        assert data["player"]["join_url"] == f"https://boggle.example/r/{code}/"


@pytest.mark.django_db
@override_settings(**EMBEDDED)
@pytest.mark.parametrize(
    "host", [f"{LAN}:8000", "10.0.0.7", "[fe80::1]:8000", "laptop", "laptop.local:8000"]
)
def test_embedded_default_answers_local_addresses_and_names(host: str) -> None:
    assert Client().get("/", HTTP_HOST=host).status_code == 200


@pytest.mark.django_db
@override_settings(**EMBEDDED)
@pytest.mark.parametrize("host", ["evil.example.com", "rebind.attacker.net:8000"])
def test_embedded_default_refuses_public_names(host: str) -> None:
    """A public name reaching a laptop's server can only be DNS rebinding."""
    assert Client().get("/", HTTP_HOST=host).status_code == 400


@pytest.mark.django_db
@override_settings(
    BOGGLE_SERVES_LOCAL_NETWORK=False,
    ALLOWED_HOSTS=["boggle.example"],
    BOGGLE_PUBLIC_URL="",
    BOGGLE_LAN_HOST="",
)
def test_production_answers_its_configured_host_only() -> None:
    client = Client()
    assert client.get("/", HTTP_HOST=f"{LAN}:8000").status_code == 400
    data = create_room(client, "boggle.example")
    assert data["player"]["join_url"].startswith("http://boggle.example/r/")


@pytest.mark.django_db
@override_settings(
    BOGGLE_SERVES_LOCAL_NETWORK=False,
    ALLOWED_HOSTS=["127.0.0.1"],
    BOGGLE_PUBLIC_URL="",
    BOGGLE_LAN_HOST="",
)
def test_a_server_for_this_machine_only_keeps_loopback_links(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """bin/start --local (or a server behind a proxy) is not reachable on the LAN address."""
    monkeypatch.setattr(network, "best_lan_address", lambda: LAN)
    data = create_room(Client(), "127.0.0.1:8000")
    assert data["player"]["join_url"].startswith("http://127.0.0.1:8000/r/")


def test_loopback_and_local_names() -> None:
    assert network.is_loopback("127.0.0.1") and network.is_loopback("::1")
    assert network.is_loopback("localhost") and network.is_loopback("app.localhost")
    assert not network.is_loopback(LAN) and not network.is_loopback("laptop.local")
    assert network.split_host("[::1]:8000") == ("::1", "8000")
    assert network.split_host("Laptop.Local") == ("laptop.local", "")
    assert network.is_local_name("boggle.example", extra=("boggle.example",))
    assert not network.is_local_name("")


def test_lan_addresses_are_never_loopback() -> None:
    for item in network.lan_addresses():
        assert not network.is_loopback(item.address)
        assert not item.address.startswith("169.254.")


ROUTES = """Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
wlan0\t0000A8C0\t00000000\t0001\t0\t0\t600\t00FFFFFF\t0\t0\t0
docker0\t000011AC\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0
eth0\t00000000\t0101A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0
wlan0\t00000000\t0100A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0
tun0\t00000000\t00000000\t0000\t0\t0\t0\t00000000\t0\t0\t0
"""


def test_the_default_route_is_read_from_the_kernels_table() -> None:
    """Linux's /proc/net/route: the default route (destination and mask 0) that is up, with
    the lowest metric; none without one. No socket is opened to find it."""
    assert network.default_route_interface(ROUTES) == "eth0"
    lines = ROUTES.splitlines()
    without_default = "\n".join(
        lines[:1] + [line for line in lines[1:] if line.split()[1] != "00000000"]
    )
    assert len(without_default.splitlines()) == 3
    assert network.default_route_interface(without_default) is None
    assert network.default_route_interface("") is None
