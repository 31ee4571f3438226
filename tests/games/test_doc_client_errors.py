"""docs/api.md's errors: the HTTP error shape and status codes, a browser's session and
the Origin rule (``DocClient``, tests/games/doc_client.py), an unknown socket path, and
every error code the server sends documented.
"""

from __future__ import annotations

import json

import pytest
from channels.testing import WebsocketCommunicator

from boggle_site.asgi import application
from tests.games.doc_client import WAIT, DocClient, close_all

pytestmark = pytest.mark.django_db(transaction=True)


async def test_doc_http_errors_and_browser_session() -> None:
    """The error shape and status codes; a browser's session cookie and the Origin rule."""
    browser = DocClient("Dee")
    status, error = await browser.call("POST", "/api/rooms", {"nickname": ""})
    assert status == 400 and set(error["error"]) == {"code", "message"}
    assert error["error"]["code"] == "invalid"
    status, error = await browser.call("GET", "/api/rooms/zzzzzzzz")
    assert status == 404 and error["error"]["code"] == "room_not_found"
    await browser.create_room()
    status, error = await DocClient("dee").call(
        "POST", f"/api/rooms/{browser.code}/join", {"nickname": "DEE"}
    )
    assert status == 409 and error["error"]["code"] == "nickname_taken"
    status, error = await browser.call("GET", f"/api/rooms/{browser.code}/rounds/1")
    assert status == 404 and error["error"]["code"] == "round_not_found"
    status, listed = await browser.call("GET", "/api/dictionaries")
    assert (
        status == 200
        and {"name": "english", "title": listed["dictionaries"][0]["title"]}
        in listed["dictionaries"]
    )

    cookie = browser.http.cookies["sessionid"].value
    # As a browser sends them: the page's origin is the address the socket goes to.
    session = [
        (b"cookie", f"sessionid={cookie}".encode()),
        (b"host", b"localhost"),
        (b"origin", b"http://localhost"),
    ]
    try:
        first = await browser.connect(headers=session, with_token=False)
        assert first["type"] == "state" and first["state"]["you"] == browser.player_id
        await browser.disconnect()
        foreign = WebsocketCommunicator(
            application,
            f"/ws/rooms/{browser.code}/",
            headers=[
                (b"origin", b"http://evil.example"),
                (b"authorization", f"Bearer {browser.token}".encode()),
            ],
        )
        connected, _ = await foreign.connect(timeout=WAIT)
        assert not connected
    finally:
        await close_all(browser)


async def test_unknown_websocket_path_is_answered_as_documented() -> None:
    socket = WebsocketCommunicator(application, "/ws/elsewhere/")
    connected, _ = await socket.connect(timeout=WAIT)
    assert connected
    error = json.loads(await socket.receive_from(WAIT))
    assert (error["type"], error["code"]) == ("error", "room_not_found")
    close = await socket.receive_output(WAIT)
    assert (close["type"], close["code"]) == ("websocket.close", 4404)


def test_every_error_code_the_server_sends_is_documented() -> None:
    """Every error code in the apps' code (error classes, literal error bodies, the body
    limit's raw answers) appears in docs/api.md as `code`."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    patterns = [
        r'\bcode = "([a-z_]+)"',  # ClientError subclasses and their kin
        r'"code":\s*"([a-z_]+)"',  # error bodies written out
        r'(?:send_error\(send, \d+|raw_error\(b"[^"]*"), "([a-z_]+)"',  # web.body_limit
    ]
    codes: set[str] = set()
    for folder in ("games", "photos", "boggle_site", "dictionaries", "daily", "definitions"):
        for source in (root / folder).glob("*.py"):
            text = source.read_text()
            for pattern in patterns:
                codes.update(re.findall(pattern, text))
    codes.discard("error")  # ClientError's placeholder, never sent
    # The scan finds codes of every kind (so it can fail).
    assert {"invalid", "photo_not_found", "too_many_connections", "too_large"} <= codes
    document = (root / "docs" / "api.md").read_text()
    missing = sorted(code for code in codes if f"`{code}`" not in document)
    assert missing == []
