"""Websocket origin check that also admits clients sending no Origin header.

Browsers always send Origin, so cross-site websocket hijacking is still refused: a page on
another site gets rejected. Non-browser clients (scripts, bots written from docs/api.md)
usually send none and authenticate with their player token instead.
"""

from __future__ import annotations

from channels.security.websocket import OriginValidator
from django.conf import settings


class BrowserOriginValidator(OriginValidator):
    """Like Channels' AllowedHostsOriginValidator, but a missing Origin is accepted."""

    def valid_origin(self, parsed_origin) -> bool:  # type: ignore[override]
        if parsed_origin is None:
            return True
        return super().valid_origin(parsed_origin)


def browser_origin_validator(application):
    allowed_hosts = list(settings.ALLOWED_HOSTS)
    if settings.DEBUG and not allowed_hosts:
        allowed_hosts = ["localhost", "127.0.0.1", "[::1]"]
    return BrowserOriginValidator(application, allowed_hosts)
