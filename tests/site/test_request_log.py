"""One log line per request and per socket event, each with its request id (web.request_log,
web.log_format): the id a trusted proxy gives, else a new one, sent back as X-Request-Id;
the client a trusted proxy forwards; never a query string, cookie, Authorization header or
token; no line per word; JSON lines in production (BOGGLE_LOG_FORMAT)."""

from __future__ import annotations

import http.client
import json
import logging
import re
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from boggle_site import env
from tests.games.ws_helpers import open_socket, submit, two_players
from tests.servers import SiteServer
from tests.site.asgi_client import PUBLIC_CLIENT, request
from web import request_log
from web.log_format import JsonFormatter, RequestIdFilter, request_id_var

pytestmark = pytest.mark.django_db(transaction=True)

# Addresses written into the in-process ASGI scope (``client``) and headers only: no socket
# is opened to them (documentation ranges, RFC 5737). The real Daphne below is on loopback.
PROXY_NETWORK = "192.0.2.0/24"
PROXY = "192.0.2.2"
FORWARDED_CLIENT = "198.51.100.7"
GENERATED = re.compile(r"[0-9a-f]{32}")
SECRET = "s3cret-token-value-0123456789"


@pytest.fixture(autouse=True)
async def _close_sockets() -> AsyncIterator[None]:
    from tests.games.ws_helpers import tear_down

    yield
    await tear_down()


def request_lines(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    """The request log's records, as the production console writes them (parsed back)."""
    formatter = JsonFormatter()
    return [
        json.loads(formatter.format(record))
        for record in caplog.records
        if record.name == "web.request_log"
    ]


# ---------------------------------------------------------------- request ids


async def test_a_response_and_its_log_line_carry_the_same_id(caplog) -> None:
    caplog.set_level(logging.INFO, logger="web.request_log")
    response = await request(
        f"/api/dictionaries?key={SECRET}",
        headers=[
            ("Authorization", f"Bearer {SECRET}"),
            ("Cookie", f"sessionid={SECRET}"),
            ("User-Agent", "Phone/1.0 " + "x" * 500),
        ],
    )
    assert response.status == 200
    request_id = response.header("x-request-id")
    assert request_id is not None and GENERATED.fullmatch(request_id)
    [line] = request_lines(caplog)
    assert line["request_id"] == request_id
    assert line["event"] == "http"
    assert (line["method"], line["path"], line["status"]) == ("GET", "/api/dictionaries", 200)
    assert line["client"] == PUBLIC_CLIENT
    assert isinstance(line["duration_ms"], float)
    assert line["user_agent"].startswith("Phone/1.0 ")
    assert len(line["user_agent"]) == request_log.MAX_AGENT_CHARS
    assert SECRET not in json.dumps(line)


async def test_an_id_from_a_peer_that_is_no_trusted_proxy_is_replaced(settings) -> None:
    settings.BOGGLE_TRUSTED_PROXIES = [PROXY_NETWORK]
    response = await request("/healthz", headers=[("X-Request-Id", "forged0123")])
    request_id = response.header("x-request-id")
    assert request_id != "forged0123" and GENERATED.fullmatch(request_id or "")


async def test_a_trusted_proxys_id_is_kept_and_its_client_logged(settings, caplog) -> None:
    settings.BOGGLE_TRUSTED_PROXIES = [PROXY_NETWORK]
    caplog.set_level(logging.INFO, logger="web.request_log")
    headers = [("X-Request-Id", "0f3c9a7e5b1d2c4a"), ("X-Forwarded-For", FORWARDED_CLIENT)]
    response = await request("/api/dictionaries", client=PROXY, headers=headers)
    assert response.header("x-request-id") == "0f3c9a7e5b1d2c4a"
    [line] = request_lines(caplog)
    assert (line["request_id"], line["client"]) == ("0f3c9a7e5b1d2c4a", FORWARDED_CLIENT)


@pytest.mark.parametrize("given", ["a b", "x" * 65, "id\nforged line", "", "ab,cd"])
async def test_a_trusted_proxys_id_that_is_no_safe_id_is_replaced(settings, given) -> None:
    settings.BOGGLE_TRUSTED_PROXIES = [PROXY_NETWORK]
    response = await request("/healthz", client=PROXY, headers=[("X-Request-Id", given)])
    assert GENERATED.fullmatch(response.header("x-request-id") or "")


async def test_refusals_before_django_carry_an_id_too() -> None:
    """A body refused by its Content-Length alone (web.body_limit) never reaches Django."""
    response = await request("/api/rooms", method="POST", headers=[("Content-Length", str(10**9))])
    assert response.status == 413
    assert GENERATED.fullmatch(response.header("x-request-id") or "")


async def test_probes_are_logged_at_debug_only(caplog) -> None:
    caplog.set_level(logging.INFO, logger="web.request_log")
    await request("/healthz")
    await request("/readyz")
    await request("/metrics", client="127.0.0.1")
    await request("/api/dictionaries")
    assert [line["path"] for line in request_lines(caplog)] == ["/api/dictionaries"]


def test_a_line_written_during_a_request_carries_its_id() -> None:
    record = logging.LogRecord("games.rounds", logging.ERROR, __file__, 1, "a bug", None, None)
    token = request_id_var.set("0123abcd")
    try:
        RequestIdFilter().filter(record)
    finally:
        request_id_var.reset(token)
    assert json.loads(JsonFormatter().format(record))["request_id"] == "0123abcd"


# ---------------------------------------------------------------- sockets


async def test_socket_events_are_logged_but_not_each_word(caplog) -> None:
    from tests.games.ws_helpers import start_round

    caplog.set_level(logging.INFO, logger="web.request_log")
    ann, bob = await two_players(round_seconds=60)
    await start_round(ann, bob)
    opened = request_lines(caplog)
    assert [line["event"] for line in opened] == ["socket.open", "socket.open"]
    assert {line["path"] for line in opened} == {f"/ws/rooms/{ann.code}/"}
    assert all(GENERATED.fullmatch(line["request_id"]) for line in opened)
    for word in ("went", "cats", "zebra"):
        await submit(bob.comm, word)
    assert len(request_lines(caplog)) == len(opened)  # no line per word
    assert bob.comm is not None
    await bob.comm.disconnect(code=4321)
    [closed] = request_lines(caplog)[len(opened) :]
    assert closed["event"] == "socket.close"
    assert (closed["code"], closed["closed_by"], closed["server_code"]) == (4321, "client", None)
    assert closed["request_id"] == opened[1]["request_id"]
    assert bob.token not in json.dumps(request_lines(caplog))


async def test_a_socket_the_site_closes_is_logged_with_its_code(caplog) -> None:
    caplog.set_level(logging.INFO, logger="web.request_log")
    comm = await open_socket("NOSUCHROOM")
    await comm.receive_from(timeout=20)
    assert (await comm.receive_output(timeout=20))["type"] == "websocket.close"
    await comm.disconnect(code=4404)
    closed = request_lines(caplog)[-1]
    assert (closed["event"], closed["server_code"], closed["closed_by"]) == (
        "socket.close",
        4404,
        "server",
    )


async def test_a_refused_handshake_is_logged(caplog) -> None:
    from channels.testing import WebsocketCommunicator

    from boggle_site.asgi import application

    caplog.set_level(logging.INFO, logger="web.request_log")
    comm = WebsocketCommunicator(
        application, "/ws/rooms/ABCD/", headers=[(b"origin", b"https://evil.example")]
    )
    connected, _ = await comm.connect(timeout=20)
    assert not connected
    await comm.disconnect(code=1006, timeout=20)  # Daphne's, once it answered 403
    [line] = request_lines(caplog)
    assert (line["event"], line["status"], line["path"]) == (
        "socket.refused",
        403,
        "/ws/rooms/ABCD/",
    )


# ---------------------------------------------------------------- the format


def test_a_json_line_is_one_line_whatever_the_message() -> None:
    formatter = JsonFormatter()
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "two\nlines \ud800", None, None)
    line = formatter.format(record)
    assert "\n" not in line
    assert json.loads(line)["message"] == "two\nlines \ud800"
    try:
        raise ValueError("boom")
    except ValueError:
        failed = logging.LogRecord("x", logging.ERROR, __file__, 1, "failed", None, sys.exc_info())
    parsed = json.loads(formatter.format(failed))
    assert parsed["exception"].startswith("Traceback") and "ValueError: boom" in parsed["exception"]


def test_a_path_cannot_forge_a_line() -> None:
    assert request_log.loggable("/a\nb\u202ec\ud800", 100) == "/a\\nb\\u202ec\\ud800"
    assert request_log.loggable("/" + "x" * 1000, 10) == "/" + "x" * 9


def test_the_log_format_is_json_in_production_and_text_in_the_embedded_default() -> None:
    assert env.log_format({}) == "text"
    assert env.log_format({"DATABASE_URL": "sqlite:///x.db"}) == "text"
    assert env.log_format({"REDIS_URL": "redis://127.0.0.1:6379/0"}) == "json"
    assert env.log_format({"DATABASE_URL": "postgres://x/y", "BOGGLE_LOG_FORMAT": "text"}) == "text"
    assert env.log_format({"BOGGLE_LOG_FORMAT": "JSON"}) == "json"
    with pytest.raises(ImproperlyConfigured):
        env.log_format({"BOGGLE_LOG_FORMAT": "xml"})


# ---------------------------------------------------------------- a real Daphne


def _get(port: int, path: str, source: str, headers: dict[str, str]) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=20, source_address=(source, 0)
    )
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    response.read()
    connection.close()
    return response


def _json_lines(log: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.splitlines() if line.startswith("{")]


def test_a_daphne_logs_json_lines_with_the_ids_it_sends_back(tmp_path: Path) -> None:
    """The site as production runs it (BOGGLE_LOG_FORMAT=json), nginx stood in for by a
    client on 127.0.0.2, the one trusted proxy; 127.0.0.1 is a client that reached the
    Daphne directly, and /metrics is its own."""
    server = SiteServer(
        tmp_path,
        extra_env={
            "BOGGLE_LOG_FORMAT": "json",
            "BOGGLE_TRUSTED_PROXIES": "127.0.0.2/32",
            "BOGGLE_METRICS_TOKEN": "t" * 40,
        },
    )
    with server.running():
        direct = _get(server.port, "/api/dictionaries", "127.0.0.1", {"X-Request-Id": "forged"})
        proxied = _get(
            server.port,
            f"/api/dictionaries?key={SECRET}",
            "127.0.0.2",
            {"X-Request-Id": "0f3c9a7e5b1d2c4a", "X-Forwarded-For": FORWARDED_CLIENT},
        )
        forwarded = {"X-Forwarded-For": FORWARDED_CLIENT}
        metrics_statuses = (
            _get(server.port, "/metrics", "127.0.0.1", {}).status,
            _get(server.port, "/metrics", "127.0.0.2", forwarded).status,
            _get(
                server.port,
                "/metrics",
                "127.0.0.2",
                {**forwarded, "Authorization": "Bearer " + "t" * 40},
            ).status,
        )
        probes = (
            _get(server.port, "/healthz", "127.0.0.1", {}).status,
            _get(server.port, "/readyz", "127.0.0.1", {}).status,
        )
        deadline = time.monotonic() + 20
        while "0f3c9a7e5b1d2c4a" not in server.log() and time.monotonic() < deadline:
            time.sleep(0.1)
        log = server.log()
    assert (direct.status, proxied.status) == (200, 200)
    direct_id = direct.getheader("X-Request-Id")
    assert direct_id != "forged" and GENERATED.fullmatch(direct_id or "")
    assert proxied.getheader("X-Request-Id") == "0f3c9a7e5b1d2c4a"
    assert metrics_statuses == (200, 404, 200)
    assert probes == (200, 200)
    lines = {
        line.get("request_id"): line for line in _json_lines(log) if line.get("event") == "http"
    }
    assert lines[direct_id]["client"] == "127.0.0.1"
    assert lines[direct_id]["logger"] == "web.request_log"
    assert lines["0f3c9a7e5b1d2c4a"]["client"] == FORWARDED_CLIENT
    assert lines["0f3c9a7e5b1d2c4a"]["path"] == "/api/dictionaries"
    # (Daphne's own access line, on its console here, has the query string: not ours.)
    assert SECRET not in json.dumps(_json_lines(log))
