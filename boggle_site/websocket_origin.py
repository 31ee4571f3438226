"""Websocket origin check that also admits clients sending no Origin header.

Browsers always send Origin, so cross-site websocket hijacking is still refused: a page on
another site gets rejected. Non-browser clients (scripts, bots written from docs/api.md)
usually send none and authenticate with their player token instead.

In the embedded default (ALLOWED_HOSTS ``*``, see ``boggle_site.hosts``) a browser's Origin
must be the very address the socket was opened to, and a local one: a page served by
another machine or under a public name is refused.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from channels.security.websocket import OriginValidator, WebsocketDenier
from django.conf import settings

from boggle_site.hosts import is_allowed_local_host


class BrowserOriginValidator(OriginValidator):
    """Like Channels' AllowedHostsOriginValidator, but a missing Origin is accepted."""

    def valid_origin(self, parsed_origin) -> bool:
        if parsed_origin is None:
            return True
        return super().valid_origin(parsed_origin)


class LocalNetworkOriginValidator:
    """The socket's Host must be a local name, and a browser's Origin that very address."""

    def __init__(self, application) -> None:
        self.application = application

    async def __call__(self, scope, receive, send):
        headers = dict(scope.get("headers", []))
        origin = headers.get(b"origin", b"").decode("latin1")
        host = headers.get(b"host", b"").decode("latin1").lower()
        # No Host (an ASGI test client) is judged by its Origin alone: browsers send both.
        if (host and not is_allowed_local_host(host)) or (origin and not same_origin(origin, host)):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)


def same_origin(origin: str, host: str) -> bool:
    """True when ``origin`` (scheme://host[:port]) names the ``host`` header's address."""
    parts = urlsplit(origin)
    return parts.scheme in {"http", "https"} and parts.netloc.lower() == host


def browser_origin_validator(application):
    if settings.BOGGLE_SERVES_LOCAL_NETWORK:
        return LocalNetworkOriginValidator(application)
    allowed_hosts = list(settings.ALLOWED_HOSTS)
    if settings.DEBUG and not allowed_hosts:
        allowed_hosts = ["localhost", "127.0.0.1", "[::1]"]
    return BrowserOriginValidator(application, allowed_hosts)
