"""HTTP as the load client speaks it: one request per fresh client (``http_call``, never
raises), its result, a tally of the answers of one phase, and whether an attempt found
nobody listening."""

from __future__ import annotations

import functools
import http.client
import json
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass
from typing import Any

from bench.crowd.figures import summary


def is_refused(error: str) -> bool:
    """An HTTP or websocket attempt that found nobody listening (a dead backend)."""
    return "refused" in error.lower()


# ------------------------------------------------------------------------------- HTTP


@dataclass
class HttpResult:
    status: int  # 0: no answer (refused, reset, timed out)
    body: Any
    error: str  # the API's error code, or what went wrong without an answer
    seconds: float

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


# No proxies and no cookie jar: every request is a fresh client.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class _FromAddress(urllib.request.HTTPHandler):
    """Plain HTTP from one local address (--through-nginx: each player's own loopback
    address, bench.crowd.nginx.player_address)."""

    def __init__(self, source: str) -> None:
        super().__init__()
        self.source = source

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        connection = functools.partial(http.client.HTTPConnection, source_address=(self.source, 0))
        return self.do_open(connection, req)


@functools.cache
def _opener(source: str | None) -> urllib.request.OpenerDirector:
    if source is None:
        return _OPENER
    return urllib.request.build_opener(urllib.request.ProxyHandler({}), _FromAddress(source))


def http_call(
    base: str,
    method: str,
    path: str,
    body: dict[str, Any] | None = None,
    token: str | None = None,
    timeout: float = 60.0,
    idempotency_key: str | None = None,
    source: str | None = None,
) -> HttpResult:
    """One HTTP request (from the local address ``source`` when given); never raises."""
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Accept": "application/json"}
    if idempotency_key:
        headers["Idempotency-Key"] = idempotency_key
    if data is not None:
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    started = time.perf_counter()
    try:
        with _opener(source).open(request, timeout=timeout) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as error:
        status = error.code
        try:
            raw = error.read()
        except Exception:
            raw = b""
    except Exception as error:
        return HttpResult(
            0, None, f"{type(error).__name__}: {error}", time.perf_counter() - started
        )
    seconds = time.perf_counter() - started
    try:
        parsed = json.loads(raw) if raw else None
    except ValueError:
        parsed = None
    code = ""
    if not 200 <= status < 300:
        if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict):
            code = str(parsed["error"].get("code"))
        else:
            code = raw[:80].decode("utf-8", "replace").strip().replace("\n", " ") or "(empty)"
    return HttpResult(status, parsed, code, seconds)


class HttpTally:
    """HTTP answers of one phase, by status."""

    def __init__(self) -> None:
        self.requests = 0
        self.by_status: Counter[int] = Counter()
        self.no_answer: Counter[str] = Counter()
        self.seconds: list[float] = []
        self.examples: Counter[str] = Counter()

    def record(self, what: str, result: HttpResult) -> None:
        self.requests += 1
        if result.status == 0:
            self.no_answer[result.error.split(":", 1)[0]] += 1
            self.examples[f"{what}: no answer ({result.error[:100]})"] += 1
            return
        self.by_status[result.status] += 1
        self.seconds.append(result.seconds * 1000)
        if not result.ok:
            self.examples[f"{what}: {result.status} {result.error[:100]}"] += 1

    @property
    def server_errors(self) -> int:
        return sum(count for status, count in self.by_status.items() if status >= 500)

    @property
    def other_non_2xx(self) -> int:
        return sum(c for status, c in self.by_status.items() if status < 200 or 300 <= status < 500)

    def to_dict(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "2xx": sum(c for s, c in self.by_status.items() if 200 <= s < 300),
            "5xx": self.server_errors,
            "other_non_2xx": self.other_non_2xx,
            "no_answer": sum(self.no_answer.values()),
            "by_status": {str(k): v for k, v in sorted(self.by_status.items())},
            "latency_ms": summary(self.seconds),
            "examples": dict(self.examples.most_common(5)),
        }
