"""The table screen's page (``/r/<code>/table/``) and "Play this board again" (``POST
/api/rooms`` with ``board``, games.replays)."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from games.models import Player, Room

pytestmark = pytest.mark.django_db


def create(body: dict, client: Client | None = None):
    return (client or Client()).post(
        "/api/rooms", json.dumps(body), content_type="application/json"
    )


def test_the_table_page_shows_the_room_and_joins_nobody():
    data = create({"nickname": "Ann"}).json()
    code = data["room"]["code"]
    players = Player.objects.count()
    response = Client().get(f"/r/{code}/table/")
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="table"' in page and f'data-code="{code}"' in page
    assert "js/table/main.js" in page and "css/table.css" in page
    assert f"/r/{code}/" in page  # the join link, for the QR code
    embedded = json.loads(
        page.split('id="room-state" type="application/json">')[1].split("</script>")[0]
    )
    assert embedded["you"] is None and [p["nickname"] for p in embedded["players"]] == ["Ann"]
    assert Player.objects.count() == players
    assert response["Cache-Control"].startswith("max-age=0")


def test_the_table_page_of_a_room_that_is_gone_is_404():
    response = Client().get("/r/nosuchroom/table/")
    assert response.status_code == 404


def test_the_room_page_links_to_the_table_screen():
    client = Client()
    code = create({"nickname": "Ann"}, client).json()["room"]["code"]
    page = client.get(f"/r/{code}/").content.decode()
    assert f'href="/r/{code}/table/"' in page


def test_a_room_created_with_a_board_plays_it_next():
    response = create(
        {"nickname": "Ann", "board": "CATS qiex dogz went", "settings": {"round_seconds": 60}}
    )
    assert response.status_code == 201, response.content
    room = response.json()["room"]
    assert room["settings"]["next_board"] == "cats qiex dogz went"
    assert room["settings"]["board_size"] == "4x4"
    assert room["settings"]["round_seconds"] == 60
    assert Room.objects.get(code=room["code"]).next_board == "cats qiex dogz went"


def test_the_boards_size_becomes_the_rooms():
    board = "abcde fghij klmno pqrst uvwxy"
    response = create({"nickname": "Ann", "board": board})
    assert response.status_code == 201, response.content
    settings = response.json()["room"]["settings"]
    assert settings["board_size"] == "5x5" and settings["dice_set"] == "big"
    assert settings["next_board"] == board
    assert settings["min_length"] == 4


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"board": "cats qiex dogz went", "settings": {"board_size": "5x5"}}, "4x4"),
        ({"board": "abc def"}, "bad board"),
        ({"board": "abc def ghi"}, "3x3"),
        ({"board": 17}, "board is text"),
        ({"board": ""}, "board is text"),
        ({"board": "a" * 201}, "200"),
        ({"board": "cats qiex dogz went", "settings": "fast"}, "settings"),
    ],
)
def test_a_bad_board_is_refused_and_makes_no_room(body, words):
    rooms = Room.objects.count()
    response = create({"nickname": "Ann", **body})
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "invalid" and words in error["message"], error
    assert Room.objects.count() == rooms


def test_a_bad_nickname_with_a_board_makes_no_room():
    rooms = Room.objects.count()
    response = create({"nickname": "", "board": "cats qiex dogz went"})
    assert response.status_code == 400
    assert Room.objects.count() == rooms


def test_creating_without_a_board_is_as_before():
    room = create({"nickname": "Ann", "board": None}).json()["room"]
    assert room["settings"]["next_board"] is None
    room = create({"nickname": "Ann"}).json()["room"]
    assert room["settings"]["next_board"] is None and room["settings"]["board_size"] == "4x4"
