"""Websocket origin check that also admits clients sending no Origin header.

Browsers always send Origin, so cross-site websocket hijacking is still refused: a page on
another site gets rejected. Non-browser clients (scripts, bots written from docs/api.md)
usually send none and authenticate with their player token instead.

A browser's Origin must be one of the site's own origins, scheme, host and port alike (a
page on another port of the same host is another site, as browsers see it):

- the address the socket was opened to (its Host header; a port left out is the scheme's
  default), always;
- in production (``DJANGO_ALLOWED_HOSTS``), also ``BOGGLE_PUBLIC_URL`` and the
  ``DJANGO_CSRF_TRUSTED_ORIGINS``; the Origin's host must be an allowed host, and it must
  be ``https`` when the site is served over HTTPS only;
- in the embedded default (ALLOWED_HOSTS ``*``, see ``web.hosts``) the socket's
  address must be a local one: a page served under a public name is refused.
"""

from __future__ import annotations

from typing import NamedTuple
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import validate_host

from web import network
from web.hosts import is_allowed_local_host

DEFAULT_PORTS = {"http": 80, "https": 443}


class Origin(NamedTuple):
    scheme: str
    host: str
    port: int


def parse_origin(origin: str) -> Origin | None:
    """``scheme://host[:port]`` with the scheme's default port filled in; None for anything
    else (``null``, another scheme, a path, a bad port)."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname or parts.path not in ("", "/"):
        return None
    return Origin(parts.scheme, parts.hostname.lower(), port or DEFAULT_PORTS[parts.scheme])


def origin_of_host(host: str, scheme: str) -> Origin | None:
    """The origin a page loaded from ``host`` (a Host header) over ``scheme`` has."""
    name, port = network.split_host(host)
    if not name:
        return None
    if not port:
        return Origin(scheme, name, DEFAULT_PORTS[scheme])
    if not port.isdigit():
        return None
    return Origin(scheme, name, int(port))


def same_origin(origin: str, host: str) -> bool:
    """True when ``origin`` (scheme://host[:port]) names the ``host`` header's address."""
    parsed = parse_origin(origin)
    return parsed is not None and parsed == origin_of_host(host, parsed.scheme)


def configured_origins() -> set[Origin]:
    """BOGGLE_PUBLIC_URL and DJANGO_CSRF_TRUSTED_ORIGINS (wildcard entries are not taken)."""
    origins = set()
    for value in [settings.BOGGLE_PUBLIC_URL, *settings.CSRF_TRUSTED_ORIGINS]:
        parsed = parse_origin(value) if value and "*" not in value else None
        if parsed is not None:
            origins.add(parsed)
    return origins


def production_origin_allowed(origin: str, host: str) -> bool:
    """A browser's Origin on a site that answers DJANGO_ALLOWED_HOSTS (see the docstring)."""
    parsed = parse_origin(origin)
    if parsed is None:
        return False
    if settings.SESSION_COOKIE_SECURE and parsed.scheme != "https":  # HTTPS only
        return False
    allowed_hosts = list(settings.ALLOWED_HOSTS)
    if settings.DEBUG and not allowed_hosts:
        allowed_hosts = ["localhost", "127.0.0.1", "[::1]"]
    name = f"[{parsed.host}]" if ":" in parsed.host else parsed.host
    if not validate_host(name, allowed_hosts):
        return False
    return parsed in configured_origins() or (
        bool(host) and parsed == origin_of_host(host, parsed.scheme)
    )


class OriginValidator:
    """Refuses the handshake of a browser whose page is not one of the site's origins."""

    def __init__(self, application) -> None:
        self.application = application

    async def __call__(self, scope, receive, send):
        headers = dict(scope.get("headers", []))
        origin = headers.get(b"origin", b"").decode("latin1")
        host = headers.get(b"host", b"").decode("latin1").lower()
        if not self.admits(origin, host):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)

    def admits(self, origin: str, host: str) -> bool:
        if settings.BOGGLE_SERVES_LOCAL_NETWORK:
            # No Host (an ASGI test client) is judged by its Origin alone: browsers send both.
            if host and not is_allowed_local_host(host):
                return False
            return not origin or same_origin(origin, host)
        return not origin or production_origin_allowed(origin, host)


def browser_origin_validator(application):
    return OriginValidator(application)
