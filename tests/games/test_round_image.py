"""A round's picture: a PNG drawn on the server (games.round_image), served at
``/api/rooms/<code>/rounds/<n>.png`` once the round has ended."""

from __future__ import annotations

import io

import pytest
from django.test import Client
from PIL import Image, ImageFont

from games import round_image, state
from tests.fake_clock import FakeClock
from tests.games.test_history import create_room, join, play, running_round
from web import throttle

pytestmark = pytest.mark.django_db


def test_the_picture_of_an_ended_round() -> None:
    """A valid PNG of the expected size, cacheable, with an ETag a repeat request meets."""
    room, ann = create_room("Ann")
    bob = join(room, "Bob")
    play(ann, {ann: ["cats", "dog"], bob: ["quiet"]})
    response = Client().get(f"/api/rooms/{room.code}/rounds/1.png")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    assert "max-age=" in response["Cache-Control"] and "public" in response["Cache-Control"]
    image = Image.open(io.BytesIO(response.content))
    image.verify()
    assert image.format == "PNG"
    assert image.size == (round_image.WIDTH, round_image.HEIGHT) == (1080, 1350)
    again = Client().get(
        f"/api/rooms/{room.code}/rounds/1.png", HTTP_IF_NONE_MATCH=response["ETag"]
    )
    assert again.status_code == 304 and not again.content


def test_a_running_round_has_no_picture() -> None:
    room, ann = create_room("Ann")
    running_round(ann)
    response = Client().get(f"/api/rooms/{room.code}/rounds/1.png")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "wrong_round_state"


def test_the_picture_shows_the_board_and_the_ranking() -> None:
    """Drawn, not blank: the board's tray (the site's blue) and dark text on the cards."""
    room, ann = create_room("Ann")
    play(ann, {ann: ["cats"]})
    results = state.results(room.rounds.get())
    png = round_image.render_png(results, "example.org/r/x/rounds/1/")
    image = Image.open(io.BytesIO(png)).convert("RGB")
    tray = image.getpixel((round_image.WIDTH // 2, 188))  # the tray, above the dice
    assert tray == (0x1D, 0x3F, 0x7A)
    colours = image.getcolors(maxcolors=100_000)
    assert colours is not None and len(colours) > 20  # letters, anti-aliased


def test_without_system_fonts_pillow_s_own_font_is_used(monkeypatch) -> None:
    """No DejaVu on the machine: the picture still draws, with Pillow's scalable default."""
    monkeypatch.setattr(round_image, "FONT_DIRS", ())
    round_image.font.cache_clear()
    try:
        fallback = round_image.font(30)
        assert isinstance(fallback, ImageFont.FreeTypeFont)  # scalable, not the old bitmap
        assert "DejaVu" not in str(getattr(fallback, "path", ""))
        room, ann = create_room("Ann")
        play(ann, {ann: ["cats"]})
        data = round_image.render_png(state.results(room.rounds.get()), "example.org")
        assert Image.open(io.BytesIO(data)).size == (1080, 1350)
    finally:
        round_image.font.cache_clear()


def test_long_names_and_many_players_fit() -> None:
    """A nickname too wide is cut with an ellipsis; players past the sixth are counted."""
    room, ann = create_room("A" * 24)
    for n in range(8):
        join(room, f"Player {n} with long name")
    play(ann, {ann: ["cats"]})
    results = state.results(room.rounds.get())
    data = round_image.render_png(results, "example.org")
    assert Image.open(io.BytesIO(data)).size == (1080, 1350)
    draw = round_image.ImageDraw.Draw(Image.new("RGB", (10, 10)))
    cut = round_image.fit(draw, "W" * 60, 30, 200)
    assert cut.endswith("…") and draw.textlength(cut, font=round_image.font(30)) <= 200


def test_drawing_pictures_is_limited_per_address(monkeypatch) -> None:
    """30 drawings at once from one address, then 429 with Retry-After; a 304 answered from
    the ETag is not a drawing and is not counted."""
    monkeypatch.setattr(throttle, "clock", FakeClock())  # no refill while the test runs
    throttle.reset()
    room, ann = create_room("Ann")
    play(ann, {ann: ["cats"]})
    url = f"/api/rooms/{room.code}/rounds/1.png"
    client = Client(REMOTE_ADDR="203.0.113.9")
    first = client.get(url)
    assert first.status_code == 200
    for _ in range(10):
        assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    for _ in range(29):
        assert client.get(url).status_code == 200
    refused = client.get(url)
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limited"
    assert int(refused["Retry-After"]) >= 1
    assert Client(REMOTE_ADDR="203.0.113.10").get(url).status_code == 200


def test_the_line_under_the_board_tells_a_co_op_or_teams_round() -> None:
    board = {"word_count": 87, "max_points": 120}
    assert round_image.summary_line({**board, "team": None, "teams": None}) == (
        "The board had 87 words worth 120 points."
    )
    team = {"found": 45, "total": 87, "goal": 50, "reached": True}
    assert round_image.summary_line({**board, "team": team}) == (
        "Team: 45 of 87 words, goal 50% reached."
    )
    missed = {**team, "found": 20, "reached": False}
    assert round_image.summary_line({**board, "team": missed}).endswith("goal 50% missed.")
    teams = [
        {"team": 2, "rank": 1, "round_points": 7},
        {"team": 1, "rank": 2, "round_points": 3},
    ]
    assert round_image.summary_line({**board, "team": None, "teams": teams}) == (
        "Team 2 won the round with 7 points."
    )
    tied = [{**teams[0], "team": 1}, {**teams[0], "team": 3}]
    assert round_image.summary_line({**board, "team": None, "teams": tied}) == (
        "Teams 1, 3 tied with 7 points."
    )
