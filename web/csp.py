"""The Content Security Policy sent with every response.

The pages load their scripts and stylesheet from /static/ only: no inline scripts, no
event-handler attributes, no eval. The one exception is ``style=""`` attributes that the
room's scripts set (a results bar's width, an avatar's hue), allowed by ``style-src-attr``
only; ``<style>`` elements stay forbidden. The QR codes are inline SVG elements; images
come from the site itself, or from ``blob:`` addresses the page's own scripts make (the
Solve page shows a board photo it fetched with the photo's key in a header, which an
``<img src>`` cannot send).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse

HEADER = "Content-Security-Policy"

POLICY = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "style-src-attr": "'unsafe-inline'",
    "img-src": "'self' blob:",
    "connect-src": "'self'",
    "object-src": "'none'",
    "frame-ancestors": "'none'",
    "base-uri": "'self'",
    "form-action": "'self'",
}

# A Host header that is only a name or address and a port: anything else stays out of the
# header (Django has validated it already; this guards the policy's syntax regardless).
SAFE_HOST = re.compile(r"^[A-Za-z0-9.\-]+(:\d+)?$|^\[[0-9A-Fa-f:.]+\](:\d+)?$")


def websocket_sources(request: HttpRequest) -> list[str]:
    """ws:// and wss:// on the host the page was loaded from: CSP Level 2 browsers' 'self'
    does not match websocket schemes. Both, since behind a TLS proxy the request may look
    like http while the page (and so its socket) uses https."""
    try:
        host = request.get_host()
    except DisallowedHost:
        return []
    if not SAFE_HOST.match(host):
        return []
    return [f"ws://{host}", f"wss://{host}"]


def policy_for(request: HttpRequest) -> str:
    directives = dict(POLICY)
    directives["connect-src"] = " ".join([POLICY["connect-src"], *websocket_sources(request)])
    return "; ".join(f"{name} {sources}" for name, sources in directives.items())


class ContentSecurityPolicyMiddleware:
    """Adds the policy to every response that does not set its own."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if HEADER not in response:
            response[HEADER] = policy_for(request)
        return response
