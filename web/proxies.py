"""Which TCP peers are this site's reverse proxies, and which client stands behind them.

``BOGGLE_TRUSTED_PROXIES`` (``boggle_site.env.trusted_proxies``) lists the proxies'
networks, as uvicorn's ``--forwarded-allow-ips`` does. Only a peer inside one of them may
say, in ``X-Forwarded-For``, whom it is forwarding, or, in ``X-Forwarded-Proto``, that the
client came over HTTPS. Anyone else's ``X-Forwarded-*`` headers are dropped before Django
reads them (``ForwardedHeadersMiddleware``) and ignored by ``client_address``: a client that
reaches Daphne directly is counted as the address it connects from, whatever it writes.

Each proxy appends the peer it saw to ``X-Forwarded-For``, so the client is the right-most
entry that is not itself a trusted proxy; what stands left of it was written by the client
and is never believed. No proxy is trusted by default.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from functools import lru_cache

from django.conf import settings
from django.http import HttpRequest, HttpResponse

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

# Request headers (as META keys) only a trusted proxy may send; Django reads some of them
# (SECURE_PROXY_SSL_HEADER), the site reads X-Forwarded-For (web.throttle).
FORWARDED_META_KEYS = (
    "HTTP_X_FORWARDED_FOR",
    "HTTP_X_FORWARDED_PROTO",
    "HTTP_X_FORWARDED_HOST",
    "HTTP_X_FORWARDED_PORT",
    "HTTP_X_REAL_IP",
    "HTTP_FORWARDED",
)


@lru_cache(maxsize=8)
def _networks(cidrs: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(cidr, strict=False) for cidr in cidrs)


def trusted_networks() -> tuple[Network, ...]:
    """The networks of BOGGLE_TRUSTED_PROXIES (parsed once per distinct setting)."""
    return _networks(tuple(getattr(settings, "BOGGLE_TRUSTED_PROXIES", None) or ()))


def parse_ip(address: str) -> IPAddress | None:
    """The address (an IPv6 zone dropped, an IPv4-mapped IPv6 one as IPv4), or None."""
    try:
        ip = ipaddress.ip_address(address.strip().split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def is_trusted_proxy(address: str) -> bool:
    """True when ``address`` lies in one of BOGGLE_TRUSTED_PROXIES' networks."""
    networks = trusted_networks()
    if not networks:
        return False
    ip = parse_ip(address)
    return ip is not None and any(ip in network for network in networks)


def client_address(peer: str, forwarded_for: str) -> str:
    """The client's address: ``peer`` (the TCP peer), unless it is a trusted proxy; then the
    right-most entry of ``forwarded_for`` that is not one. An entry that is not an address
    stops the walk at the trusted hop that passed it on."""
    client = peer
    if not is_trusted_proxy(peer):
        return client
    for entry in reversed(forwarded_for.split(",")):
        entry = entry.strip()
        if not entry:
            continue
        if parse_ip(entry) is None:
            return client
        client = entry
        if not is_trusted_proxy(entry):
            return client
    return client


class ForwardedHeadersMiddleware:
    """Drops ``X-Forwarded-*`` (and ``Forwarded``, ``X-Real-IP``) from requests whose peer is
    not a trusted proxy, before SecurityMiddleware believes an ``X-Forwarded-Proto: https``."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not is_trusted_proxy(request.META.get("REMOTE_ADDR") or ""):
            for key in FORWARDED_META_KEYS:
                request.META.pop(key, None)
        return self.get_response(request)
