"""The Host names the site answers, and the address other devices should use to reach it.

In the embedded default (``bin/start``, no ``DJANGO_ALLOWED_HOSTS``) the site answers any of
this machine's addresses, whatever network it is on tonight, plus names only a local
network resolves; production answers exactly ``DJANGO_ALLOWED_HOSTS``. Join links and QR
codes use ``BOGGLE_PUBLIC_URL`` when set; otherwise the request's own address, except that
in the embedded default a loopback address (the host's browser on 127.0.0.1 or localhost)
is replaced with this machine's LAN address, since on a phone "localhost" is the phone.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse

from web import network

# Networks change under a running server (a laptop moves to another Wi-Fi): look again
# after this many seconds.
LAN_ADDRESS_TTL_SECONDS = 30.0
_lan_cache: tuple[float, str | None] = (-LAN_ADDRESS_TTL_SECONDS, None)


def extra_local_names() -> tuple[str, ...]:
    """Configured names the embedded default also answers (BOGGLE_LAN_HOST, the public URL)."""
    names = [settings.BOGGLE_LAN_HOST]
    if settings.BOGGLE_PUBLIC_URL:
        names.append(urlsplit(settings.BOGGLE_PUBLIC_URL).hostname or "")
    return tuple(name for name in names if name)


def is_allowed_local_host(host: str) -> bool:
    """True when a Host header (with or without port) is one the embedded default answers."""
    name, _ = network.split_host(host)
    return network.is_local_name(name, extra_local_names())


class LocalNetworkHostMiddleware:
    """In the embedded default ALLOWED_HOSTS is ``*``; this refuses (400) public names, which
    only DNS rebinding would send here. A no-op when DJANGO_ALLOWED_HOSTS decides."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if settings.BOGGLE_SERVES_LOCAL_NETWORK:
            host = request.get_host()
            if not is_allowed_local_host(host):
                raise DisallowedHost(f"Invalid HTTP_HOST header: {host!r}: not a local name.")
        return self.get_response(request)


def lan_address() -> str | None:
    """BOGGLE_LAN_HOST, or this machine's detected LAN address (cached for a while)."""
    global _lan_cache
    if settings.BOGGLE_LAN_HOST:
        return settings.BOGGLE_LAN_HOST
    checked_at, address = _lan_cache
    now = time.monotonic()
    if now - checked_at >= LAN_ADDRESS_TTL_SECONDS:
        address = network.best_lan_address()
        _lan_cache = (now, address)
    return address


def site_url(request: HttpRequest) -> str:
    """``scheme://host[:port]`` that other devices should use to reach this site."""
    if settings.BOGGLE_PUBLIC_URL:
        return settings.BOGGLE_PUBLIC_URL
    host = request.get_host()
    name, port = network.split_host(host)
    # Only where the server listens on the network (bin/start): a server that answers
    # configured names (production, --local, tests) keeps the address it was reached by.
    if settings.BOGGLE_SERVES_LOCAL_NETWORK and network.is_loopback(name):
        lan = lan_address()
        if lan:
            bracketed = f"[{lan}]" if ":" in lan else lan
            host = f"{bracketed}:{port}" if port else bracketed
    # Behind a TLS proxy, https once SECURE_PROXY_SSL_HEADER (BOGGLE_PROXY_SSL_HEADER=1)
    # trusts its X-Forwarded-Proto, which only a declared proxy may send (web.proxies).
    return f"{request.scheme}://{host}"


def absolute_url(request: HttpRequest, path: str) -> str:
    """``path`` (starting with /) as a link other devices can open: join links, QR codes."""
    return site_url(request) + path
