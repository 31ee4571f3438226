"""Connections from an address that opened too many lately are dropped by Daphne at accept,
before any HTTP parse (web.connection_guard)."""

from __future__ import annotations

import pytest
from daphne.http_protocol import HTTPFactory
from twisted.internet.address import IPv4Address

from tests.fake_clock import FakeClock
from web import throttle
from web.connection_guard import CONNECTION, admits, guard_connections

SCRIPT = "198.51.100.9"


@pytest.fixture(autouse=True)
def clock(monkeypatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(throttle, "clock", fake)
    throttle.reset()
    return fake


def peer(host: str) -> IPv4Address:
    return IPv4Address("TCP", host, 40000)


def test_an_address_over_its_connections_is_dropped_until_it_refills(clock: FakeClock) -> None:
    guard_connections()
    factory = HTTPFactory(server=None)

    taken = [factory.buildProtocol(peer(SCRIPT)) for _ in range(CONNECTION.burst)]
    assert all(protocol is not None for protocol in taken)
    assert factory.buildProtocol(peer(SCRIPT)) is None  # Twisted closes it at once
    assert factory.buildProtocol(peer("198.51.100.10")) is not None  # others unaffected

    clock.now += 60 / CONNECTION.per_minute
    assert factory.buildProtocol(peer(SCRIPT)) is not None


def test_this_machine_is_never_dropped() -> None:
    assert all(admits("127.0.0.1") for _ in range(CONNECTION.burst * 2))


def test_a_declared_proxy_is_not_counted(settings) -> None:
    """Every client behind the proxy comes through its connections: it caps them itself."""
    settings.BOGGLE_TRUSTED_PROXIES = ["192.0.2.0/28"]
    assert all(admits("192.0.2.1") for _ in range(CONNECTION.burst * 2))


def test_a_client_around_the_declared_proxy_is_counted(settings) -> None:
    """Declaring a proxy does not exempt clients that reach Daphne directly."""
    settings.BOGGLE_TRUSTED_PROXIES = ["192.0.2.0/28"]
    assert sum(admits(SCRIPT) for _ in range(CONNECTION.burst * 2)) == CONNECTION.burst


def test_guarding_twice_wraps_once() -> None:
    guard_connections()
    wrapped = HTTPFactory.buildProtocol
    guard_connections()
    assert HTTPFactory.buildProtocol is wrapped
