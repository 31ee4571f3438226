"""X-Forwarded-* headers are believed only from the proxies of BOGGLE_TRUSTED_PROXIES
(web.proxies): a client that reaches Daphne directly is limited as itself."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from django.test import Client, override_settings

from boggle_site import env
from tests.fake_clock import FakeClock
from web import proxies, throttle

PROXY_NETWORK = "10.0.0.0/24"
PROXY = "10.0.0.2"
CLIENT = "198.51.100.7"
HOST = "boggle.example"


@pytest.fixture(autouse=True)
def clock(monkeypatch) -> Iterator[FakeClock]:
    fake = FakeClock()
    monkeypatch.setattr(throttle, "clock", fake)
    throttle.reset()
    yield fake
    throttle.reset()


@pytest.fixture
def behind_proxy(settings) -> None:
    settings.BOGGLE_TRUSTED_PROXIES = [PROXY_NETWORK]


def create(browser: Client, nickname: str = "Ann"):
    return browser.post(
        "/api/rooms", json.dumps({"nickname": nickname}), content_type="application/json"
    )


@pytest.mark.parametrize(
    ("peer", "forwarded_for", "client"),
    [
        (CLIENT, "127.0.0.1", CLIENT),  # a direct client: its header is not read
        (PROXY, "", PROXY),  # the proxy's own request
        (PROXY, "203.0.113.5", "203.0.113.5"),
        (PROXY, "127.0.0.1, 203.0.113.5", "203.0.113.5"),  # the client's words, left of it
        (PROXY, "203.0.113.5, 10.0.0.9", "203.0.113.5"),  # two proxies, both trusted
        (PROXY, "10.0.0.8, 10.0.0.9", "10.0.0.8"),  # only proxies: the farthest one
        (PROXY, "203.0.113.5, not-an-address", PROXY),  # garbage: the hop that passed it
        ("::ffff:10.0.0.2", "203.0.113.5", "203.0.113.5"),  # IPv4-mapped peer
        ("", "203.0.113.5", ""),  # a Unix socket's peer is not a declared proxy
    ],
)
def test_the_client_is_the_rightmost_untrusted_address(
    behind_proxy, peer: str, forwarded_for: str, client: str
) -> None:
    assert proxies.client_address(peer, forwarded_for) == client


def test_no_proxy_is_trusted_by_default() -> None:
    assert proxies.client_address(PROXY, "203.0.113.5") == PROXY
    assert proxies.client_address("127.0.0.1", "203.0.113.5") == "127.0.0.1"


@pytest.mark.django_db
def test_a_direct_client_forging_forwarded_for_is_limited_as_itself(settings) -> None:
    """The probe: with a proxy declared (and the former hop count still set), a client that
    reaches Daphne directly and sends X-Forwarded-For: 127.0.0.1 created 25 rooms of 25."""
    settings.BOGGLE_TRUSTED_PROXIES = [PROXY_NETWORK]
    settings.BOGGLE_TRUSTED_PROXY_HOPS = 1  # what the probed site had: read no more
    forger = Client(REMOTE_ADDR=CLIENT, HTTP_X_FORWARDED_FOR="127.0.0.1")
    statuses = [create(forger, f"A{index}").status_code for index in range(25)]
    assert statuses.count(201) == throttle.CREATE.burst
    assert statuses[throttle.CREATE.burst :] == [429] * (25 - throttle.CREATE.burst)


@pytest.mark.django_db
def test_behind_a_trusted_proxy_the_forwarded_client_is_limited(behind_proxy) -> None:
    via_proxy = Client(REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR=f"127.0.0.1, {CLIENT}")
    for index in range(throttle.CREATE.burst):
        assert create(via_proxy, f"A{index}").status_code == 201
    assert create(via_proxy).status_code == 429
    # The same client straight to Daphne shares its own budget; another client does not.
    assert create(Client(REMOTE_ADDR=CLIENT)).status_code == 429
    other = Client(REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="203.0.113.5")
    assert create(other).status_code == 201


def test_a_sockets_address_follows_the_same_rule(behind_proxy) -> None:
    forged = {"client": [CLIENT, 5000], "headers": [(b"x-forwarded-for", b"127.0.0.1")]}
    assert throttle.scope_address(forged) == CLIENT
    proxied = {"client": [PROXY, 5000], "headers": [(b"x-forwarded-for", b"203.0.113.5")]}
    assert throttle.scope_address(proxied) == "203.0.113.5"


@pytest.mark.django_db
@override_settings(
    BOGGLE_SERVES_LOCAL_NETWORK=False,
    ALLOWED_HOSTS=[HOST],
    BOGGLE_LAN_HOST="",
    BOGGLE_PUBLIC_URL="",
    SECURE_PROXY_SSL_HEADER=env.security_settings(
        {"BOGGLE_PROXY_SSL_HEADER": "1", "BOGGLE_TRUSTED_PROXIES": PROXY_NETWORK}
    )["SECURE_PROXY_SSL_HEADER"],
    BOGGLE_TRUSTED_PROXIES=[PROXY_NETWORK],
)
def test_forwarded_proto_is_believed_only_from_the_proxy() -> None:
    """A direct client's X-Forwarded-Proto is dropped before Django reads it: its join
    link stays http; the proxy's makes it https."""
    direct = Client(REMOTE_ADDR=CLIENT, HTTP_HOST=HOST, HTTP_X_FORWARDED_PROTO="https")
    assert create(direct).json()["player"]["join_url"].startswith(f"http://{HOST}/")
    proxied = Client(REMOTE_ADDR=PROXY, HTTP_HOST=HOST, HTTP_X_FORWARDED_PROTO="https")
    assert create(proxied).json()["player"]["join_url"].startswith(f"https://{HOST}/")
