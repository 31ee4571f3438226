"""A browser's websocket Origin must be one of the site's own origins: scheme, host and port
(web.websocket_origin). The probe: with DJANGO_ALLOWED_HOSTS set, a page on
http://127.0.0.1:9999 could open the site's sockets on port 8000."""

from __future__ import annotations

import pytest
from channels.testing import WebsocketCommunicator
from django.test import override_settings

from boggle_site.asgi import application
from web.websocket_origin import OriginValidator, parse_origin

PRODUCTION = {
    "BOGGLE_SERVES_LOCAL_NETWORK": False,
    "ALLOWED_HOSTS": ["127.0.0.1", "boggle.example"],
    "BOGGLE_PUBLIC_URL": "",
    "CSRF_TRUSTED_ORIGINS": [],
    "SESSION_COOKIE_SECURE": False,
}


def admits(origin: str, host: str) -> bool:
    return OriginValidator(application).admits(origin, host)


@override_settings(**PRODUCTION)
@pytest.mark.parametrize(
    ("origin", "host", "admitted"),
    [
        ("http://127.0.0.1:8000", "127.0.0.1:8000", True),
        ("http://127.0.0.1:9999", "127.0.0.1:8000", False),  # another port: another site
        ("http://127.0.0.1", "127.0.0.1:8000", False),
        ("http://127.0.0.1:80", "127.0.0.1", True),  # the scheme's default port
        ("https://boggle.example", "boggle.example", True),
        ("https://boggle.example:8443", "boggle.example", False),
        ("http://evil.example:8000", "evil.example:8000", False),  # not an allowed host
        ("null", "127.0.0.1:8000", False),
        ("ftp://127.0.0.1:8000", "127.0.0.1:8000", False),
        ("", "127.0.0.1:8000", True),  # no Origin: not a browser (a token authenticates)
    ],
)
def test_the_origin_must_be_the_sockets_own_address(origin: str, host: str, admitted: bool):
    assert admits(origin, host) is admitted


@override_settings(
    **{
        **PRODUCTION,
        "BOGGLE_PUBLIC_URL": "https://boggle.example",
        "CSRF_TRUSTED_ORIGINS": ["https://boggle.example:8443"],
        "SESSION_COOKIE_SECURE": True,
    }
)
def test_configured_origins_are_admitted_exactly_and_https_only_when_https():
    """Behind a proxy the Host may be the proxy's upstream name: the public URL and the
    CSRF trusted origins are the site's too, with their own port."""
    assert admits("https://boggle.example", "127.0.0.1:8001")
    assert admits("https://boggle.example:8443", "127.0.0.1:8001")
    assert not admits("https://boggle.example:9999", "127.0.0.1:8001")
    assert not admits("http://boggle.example", "boggle.example")  # HTTPS-only site


def test_origins_are_parsed_with_their_default_port():
    assert parse_origin("HTTPS://Boggle.Example") == ("https", "boggle.example", 443)
    assert parse_origin("http://[::1]:8000") == ("http", "::1", 8000)
    assert parse_origin("http://host:99999") is None
    assert parse_origin("http://host/path") is None


@pytest.mark.django_db(transaction=True)
@override_settings(**PRODUCTION)
@pytest.mark.parametrize(
    ("origin", "connected"), [(b"http://127.0.0.1:8000", True), (b"http://127.0.0.1:9999", False)]
)
async def test_the_handshake_of_another_ports_page_is_refused(origin: bytes, connected: bool):
    comm = WebsocketCommunicator(
        application,
        "/ws/rooms/nosuchroom/",
        headers=[(b"host", b"127.0.0.1:8000"), (b"origin", origin)],
    )
    accepted, _ = await comm.connect()
    try:
        assert accepted is connected
    finally:
        await comm.disconnect()
