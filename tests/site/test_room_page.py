"""The room page (games.views.room_page): the shell the room's ES modules draw into."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def embedded_state(response) -> dict:
    """The room state the page embeds for its script (``json_script``)."""
    match = re.search(
        r'<script id="room-state" type="application/json">(.*?)</script>',
        response.content.decode(),
        re.S,
    )
    assert match, "no embedded room state"
    return json.loads(match.group(1))


def test_room_page_embeds_the_state_for_its_player() -> None:
    """The browser that created the room is its host: the page knows who it is."""
    host = Client()
    created = host.post(
        "/api/rooms", json.dumps({"nickname": "Ann"}), content_type="application/json"
    )
    code = created.json()["room"]["code"]

    response = host.get(f"/r/{code}/")

    assert response.status_code == 200
    assert "games/room.html" in [t.name for t in response.templates]
    state = embedded_state(response)
    assert state["code"] == code
    assert state["you"] == created.json()["player"]["id"] == state["host_id"]
    assert "js/room/main.js" in response.content.decode()
    assert response["Cache-Control"].startswith("max-age=0")


def test_room_page_for_a_new_browser_shows_no_player() -> None:
    """Anyone with the link sees the room (to join it); the code is case-insensitive."""
    created = Client().post(
        "/api/rooms", json.dumps({"nickname": "Ann"}), content_type="application/json"
    )
    code = created.json()["room"]["code"]

    response = Client().get(f"/r/{code.upper()}/")

    assert response.status_code == 200
    state = embedded_state(response)
    assert state["you"] is None
    assert [p["nickname"] for p in state["players"]] == ["Ann"]


def test_unknown_room_is_a_404_page(client: Client) -> None:
    response = client.get("/r/nosuchroom/")

    assert response.status_code == 404
    assert "games/room_missing.html" in [t.name for t in response.templates]
    assert "nosuchroom" in response.content.decode()
