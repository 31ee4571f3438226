"""The camera view's previews (photos.preview_api, docs/api.md "The camera's preview"): the
reader's detector says where the board is in a small picture, or why it sees none, within
tight bounds (bytes, pixels, a rate per address, two at once per process), and only where
the process reads photos itself."""

from __future__ import annotations

import asyncio
import io
from typing import Any

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from PIL import Image

from boggle_site import asgi
from photos import preview_api, reading
from tests.photos.helpers import PHOTO, photo_bytes, png_bytes
from vision.errors import DiceTooSmallError, GridNotFoundError
from web import throttle
from web.body_limit import Caller, limit_for

pytestmark = pytest.mark.django_db

URL = "/api/photos/preview"
# The grid the reader reads in PHOTO (docs/api.md's board.read example): its outer corners.
PHOTO_CORNERS = [[94.0, 146.9], [258.3, 110.4], [331.3, 225.7], [150.7, 279.5]]


@pytest.fixture(autouse=True)
def _fresh_limits(settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True  # the embedded default: this process reads
    throttle.reset()
    yield
    throttle.reset()


class NoBoardReader:
    """Stands for the models: the detector finds no board (``error``), and counts its looks."""

    def __init__(self, error: Exception | None = None) -> None:
        self.error = error or GridNotFoundError("no grid found")
        self.looks = 0

    def find_grid(self, pixels: np.ndarray, sides: tuple[int, ...] = ()) -> Any:
        self.looks += 1
        raise self.error


@pytest.fixture
def no_board(monkeypatch) -> NoBoardReader:
    fake = NoBoardReader()
    monkeypatch.setattr(reading, "_reader", fake)
    return fake


@pytest.fixture
def real_reader():
    """The shipped models (loaded once in this process: a few seconds)."""
    return reading.get_reader()


def send(data: bytes, name: str = "preview.jpg", kind: str = "image/jpeg", **extra):
    return Client().post(URL, {"photo": SimpleUploadedFile(name, data, kind)}, **extra)


def jpeg(image: Image.Image, quality: int = 70) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=quality)
    return buffer.getvalue()


def camera_picture() -> bytes:
    """PHOTO as a camera view sends it: 640x480, the board where the photo has it (the
    photo's 416x416 pixels pasted at (112, 32) on a grey table), JPEG of quality 70."""
    frame = Image.new("RGB", (640, 480), (120, 116, 110))
    with Image.open(io.BytesIO(photo_bytes(PHOTO))) as photo:
        frame.paste(photo.convert("RGB"), (112, 32))
    return jpeg(frame)


def test_the_board_of_a_photo_is_found_with_its_corners(real_reader) -> None:
    response = send(camera_picture())
    assert response.status_code == 200, response.content
    answer = response.json()
    assert answer["found"] is True, answer
    assert (answer["rows"], answer["cols"]) == (4, 4)
    assert (answer["width"], answer["height"]) == (640, 480)
    # The reading's own grid, where the picture has the photo.
    for (x, y), corner in zip(PHOTO_CORNERS, answer["corners"], strict=True):
        assert corner == pytest.approx([x + 112, y + 32], abs=8)


def test_a_blank_picture_shows_no_board_and_says_why(real_reader) -> None:
    response = send(jpeg(Image.new("RGB", (640, 480), (200, 200, 200))))
    assert response.status_code == 200, response.content
    answer = response.json()
    assert answer["found"] is False
    assert answer["code"] == "no_grid"
    assert "fill the frame with the board" in answer["message"]
    assert (answer["width"], answer["height"]) == (640, 480)


def test_the_readers_reasons_come_with_their_codes(monkeypatch) -> None:
    monkeypatch.setattr(reading, "_reader", NoBoardReader(DiceTooSmallError(9.4)))
    answer = send(png_bytes((320, 240))).json()
    assert answer["found"] is False and answer["code"] == "dice_too_small"
    assert "move closer" in answer["message"]


def test_what_is_not_an_image_is_refused(no_board) -> None:
    response = send(b"hello, this is no picture at all", "preview.txt", "text/plain")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"
    gif = send(b"GIF89a" + bytes(200), "preview.gif", "image/gif")
    assert gif.status_code == 415
    assert gif.json()["error"]["code"] == "unsupported_image"
    missing = Client().post(URL, {})
    assert missing.status_code == 400 and missing.json()["error"]["code"] == "invalid"
    assert no_board.looks == 0


def test_too_large_previews_are_refused(no_board) -> None:
    noise = np.random.default_rng(7).integers(0, 256, (600, 800, 3), dtype=np.uint8)
    heavy = jpeg(Image.fromarray(noise), quality=95)
    assert len(heavy) > preview_api.MAX_PREVIEW_BYTES
    response = send(heavy)
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "too_large"
    # A small file of too many pixels: refused from its header, before any decoding.
    wide = send(png_bytes((2000, 1500)), "preview.png", "image/png")
    assert wide.status_code == 413
    assert wide.json()["error"]["code"] == "too_large"
    assert "1,228,800" in wide.json()["error"]["message"]
    assert no_board.looks == 0


def test_a_large_body_is_refused_from_its_headers_before_it_is_read() -> None:
    """web.body_limit (photos.apps declares the path, for anyone): the preview's 300 kB and
    its multipart wrapping, no more."""
    assert (
        preview_api.MAX_PREVIEW_BYTES
        < limit_for(URL, Caller())
        < preview_api.MAX_PREVIEW_BYTES + 100 * 1024
    )
    asked: list[bool] = []

    async def receive() -> dict[str, Any]:
        asked.append(True)
        return {"type": "http.request", "body": b"0" * 1024, "more_body": True}

    sent: list[Any] = []

    async def send_message(message: Any) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "POST",
        "path": URL,
        "headers": [
            (b"host", b"127.0.0.1"),
            (b"content-type", b"multipart/form-data; boundary=x"),
            (b"content-length", b"1000000"),
        ],
        "client": ("127.0.0.1", 5000),
    }
    asyncio.run(asgi.router(scope, receive, send_message))
    assert sent[0]["status"] == 413 and asked == []


def test_an_address_is_limited_after_its_burst(no_board, monkeypatch) -> None:
    monkeypatch.setattr(throttle, "clock", lambda: 1000.0)  # no token comes back meanwhile
    picture = png_bytes((320, 240))
    address = {"REMOTE_ADDR": "10.0.0.5"}  # a string in the test client's request; nothing is sent
    statuses = [send(picture, **address).status_code for _ in range(5)]
    assert statuses == [200, 200, 200, 200, 429]
    refused = send(picture, **address)
    assert refused.json()["error"]["code"] == "rate_limited"
    assert int(refused["Retry-After"]) >= 1
    assert no_board.looks == 4
    # Another address is not held up by that one.
    assert send(picture, REMOTE_ADDR="10.0.0.6").status_code == 200


def test_a_busy_process_refuses_more_previews_at_once(no_board, monkeypatch) -> None:
    monkeypatch.setattr(preview_api, "_in_flight", preview_api.PREVIEWS_AT_ONCE)
    response = send(png_bytes((320, 240)))
    assert response.status_code == 429
    assert response.json()["error"]["code"] == "rate_limited"
    assert no_board.looks == 0


def test_only_post(no_board) -> None:
    for method in ("get", "put", "delete"):
        response = getattr(Client(), method)(URL)
        assert response.status_code == 405, method


def test_while_the_reader_loads_the_answer_says_so(monkeypatch) -> None:
    asked: list[bool] = []
    monkeypatch.setattr(reading, "_reader", None)
    monkeypatch.setattr(preview_api, "_ask_for_the_reader", lambda: asked.append(True))
    answer = send(png_bytes((320, 240))).json()
    assert answer["found"] is False and answer["code"] == "reader_loading"
    assert isinstance(answer["reader_progress"], int)
    assert asked == [True]  # the camera's picture is coming: the reader is loaded for it


def test_where_workers_read_the_photos_previews_are_unavailable(settings, no_board) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = False  # Celery workers read the photos
    answer = send(png_bytes((320, 240))).json()
    assert answer["found"] is False and answer["code"] == "unavailable"
    assert no_board.looks == 0
