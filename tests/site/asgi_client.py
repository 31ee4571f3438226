"""HTTP requests to the site's whole ASGI application (boggle_site.asgi), as Daphne hands them
over: with the TCP peer (``client``) and raw headers, so that what sits in front of Django
(probes, the request log, body limits) is exercised too. Django's test Client skips it."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from channels.testing import ApplicationCommunicator

# A client on the Internet, seen directly (no proxy): only the ``client`` of an in-process
# ASGI scope, never an address any socket goes to (a documentation range, RFC 5737).
PUBLIC_CLIENT = "203.0.113.5"
PATIENCE = 20.0


@dataclass
class Response:
    status: int
    headers: list[tuple[str, str]]
    body: bytes

    def header(self, name: str) -> str | None:
        found = [value for key, value in self.headers if key == name.lower()]
        return ",".join(found) if found else None

    def json(self) -> Any:
        return json.loads(self.body)


async def request(
    path: str,
    *,
    client: str = PUBLIC_CLIENT,
    headers: Iterable[tuple[str, str]] = (),
    method: str = "GET",
    host: str = "localhost",
    app: Any = None,
) -> Response:
    """One request through ``app`` (default: the site's application) from ``client``."""
    if app is None:
        from boggle_site.asgi import application

        app = application
    path_only, _, query = path.partition("?")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path_only,
        "raw_path": path_only.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(b"host", host.encode())]
        + [(name.lower().encode(), value.encode("latin-1")) for name, value in headers],
        "client": (client, 40000),
        "server": ("127.0.0.1", 8001),
    }
    communicator = ApplicationCommunicator(app, scope)
    await communicator.send_input({"type": "http.request", "body": b"", "more_body": False})
    start = await communicator.receive_output(PATIENCE)
    assert start["type"] == "http.response.start", start
    body = b""
    while True:
        chunk = await communicator.receive_output(PATIENCE)
        body += chunk.get("body", b"")
        if not chunk.get("more_body", False):
            break
    await communicator.wait(PATIENCE)
    return Response(
        start["status"],
        [
            (name.decode("latin-1").lower(), value.decode("latin-1"))
            for name, value in start["headers"]
        ],
        body,
    )
