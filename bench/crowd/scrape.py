"""A web process's own ``/metrics`` page, read from loopback straight from it (never
through nginx, which would hand the request to another process)."""

from __future__ import annotations

import urllib.request

NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def metrics_text(url: str) -> str | None:
    """The text of ``<url>/metrics``, or None when the process does not answer."""
    try:
        with NO_PROXY.open(url + "/metrics", timeout=10) as response:
            return response.read().decode("utf-8", "replace")
    except OSError:
        return None
