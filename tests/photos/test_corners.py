"""Corners by hand (POST /api/rooms/<code>/photos/<id>/corners): every value checked at the
edge, who may ask and when, the reading queued like an upload's (same events, same bounds),
and the real reader reading the dice inside the corners, EXIF-turned photos included; the
picture the page shows under the corners (GET …/image)."""

from __future__ import annotations

import io

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from PIL import Image

from photos import api as photos_api
from photos.models import BoardPhoto
from tests.games.ws_helpers import (
    ask,
    create_room,
    receive,
    receive_until,
    tear_down,
    two_players,
)
from tests.photos.helpers import (
    LOW_ANGLE_BOARD,
    LOW_ANGLE_CORNERS,
    LOW_ANGLE_PHOTO,
    PHOTO,
    PHOTO_BOARD,
    photo_bytes,
    png_bytes,
    post_corners,
    turned_by_exif,
    upload,
)
from vision.errors import CornersError, DiceCountError

pytestmark = pytest.mark.django_db(transaction=True)

# Inside the 200x200 picture of png_bytes(), clockwise from the top left.
SQUARE = [[20, 20], [180, 20], [180, 180], [20, 180]]


@pytest.fixture(autouse=True)
async def _close_sockets():
    yield
    await tear_down()


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    """Photos go to a temporary MEDIA_ROOT and are read inline (no thread) in tests."""
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PHOTOS_READ_IN_THREAD = False


async def read_photo(player, data: bytes = b"", event: str = "board.read") -> int:
    """Upload a photo (a plain PNG by default) and wait for its reading; its id."""
    response = await upload(player.client, player.code, data or png_bytes(), name="b.png")
    assert response.status_code == 202, response.content
    photo_id = response.json()["photo"]["id"]
    await receive_until(player.comm, event, photo_id=photo_id)
    return photo_id


async def outcome_of(comm, photo_id: int) -> dict:
    """The photo's board.read or board.unreadable event."""
    while True:
        message = await receive(comm, timeout=60)
        kind = message["type"]
        if kind in ("board.read", "board.unreadable") and message["photo_id"] == photo_id:
            return message


# ------------------------------------------------------------------ checked at the edge


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"corners": SQUARE}, "size is the board's side"),
        ({"corners": SQUARE, "size": 3}, "size is the board's side"),
        ({"corners": SQUARE, "size": "4"}, "size is the board's side"),
        ({"corners": SQUARE, "size": "4x4"}, "size is the board's side"),
        ({"corners": SQUARE, "size": True}, "size is the board's side"),
        ({"corners": SQUARE, "size": 4.0}, "size is the board's side"),
        ({"size": 4}, "four [x, y] points"),
        ({"corners": "20,20 180,20 180,180 20,180", "size": 4}, "four [x, y] points"),
        ({"corners": SQUARE[:3], "size": 4}, "four [x, y] points"),
        ({"corners": [*SQUARE, [50, 50]], "size": 4}, "four [x, y] points"),
        ({"corners": [[20, 20, 0], *SQUARE[1:]], "size": 4}, "four [x, y] points"),
        ({"corners": [{"x": 20, "y": 20}, *SQUARE[1:]], "size": 4}, "four [x, y] points"),
        ({"corners": [["20", 20], *SQUARE[1:]], "size": 4}, "four [x, y] points"),
        ({"corners": [[True, 20], *SQUARE[1:]], "size": 4}, "four [x, y] points"),
        ({"corners": [[None, 20], *SQUARE[1:]], "size": 4}, "four [x, y] points"),
        ({"corners": [[-1, 20], *SQUARE[1:]], "size": 4}, "inside the photo"),
        ({"corners": [[20, 20], [201, 20], *SQUARE[2:]], "size": 4}, "inside the photo"),
        ({"corners": [*SQUARE[:2], [180, 200.5], SQUARE[3]], "size": 4}, "inside the photo"),
    ],
)
async def test_malformed_corners_or_size_are_400_invalid(fake_reader, body, needle):
    ann, _ = await two_players()
    photo_id = await read_photo(ann)
    response = await post_corners(ann.client, ann.code, photo_id, body)
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "invalid"
    assert needle in response.json()["error"]["message"]
    assert fake_reader.calls == [
        {"size": None, "corners": None, "memory": None, "dice_sets": []}
    ]  # nothing read again


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e400"])
async def test_numbers_that_are_not_finite_are_400_invalid(fake_reader, number):
    """Python's JSON reads NaN and Infinity (and 1e400 as infinity): refused all the same."""
    ann, _ = await two_players()
    photo_id = await read_photo(ann)
    body = f'{{"size": 4, "corners": [[{number}, 20], [180, 20], [180, 180], [20, 180]]}}'
    response = await post_corners(ann.client, ann.code, photo_id, body)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"


@pytest.mark.parametrize("number", ["1" + "0" * 400, "-" + "9" * 400, "1" + "0" * 309])
async def test_integers_too_large_for_a_number_are_400_invalid(fake_reader, number):
    """Python's JSON reads any integer whole: one past a float's range was an OverflowError
    (500); refused at the edge like any corner outside the photo, and nothing read again."""
    ann, _ = await two_players()
    photo_id = await read_photo(ann)
    body = f'{{"size": 4, "corners": [[20, {number}], [180, 20], [180, 180], [20, 180]]}}'
    response = await post_corners(ann.client, ann.code, photo_id, body)
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "invalid"
    assert "inside the photo" in response.json()["error"]["message"]
    assert len(fake_reader.calls) == 1  # the upload's reading only


@pytest.mark.parametrize(
    ("corners", "needle"),
    [
        ([[20, 20], [20, 180], [180, 180], [180, 20]], "clockwise"),  # anticlockwise
        ([[180, 20], [180, 180], [20, 180], [20, 20]], None),  # clockwise from another corner
        ([[20, 20], [180, 180], [180, 20], [20, 180]], "without crossing"),  # a bow tie
        ([[20, 20], [100, 20], [180, 20], [20, 180]], "clockwise"),  # three in a line
        ([[20, 20], [60, 20], [60, 60], [20, 60]], "too little"),  # 40 px for 4 dice
    ],
)
async def test_corners_that_frame_no_board_are_400_bad_corners(fake_reader, corners, needle):
    ann, _ = await two_players()
    photo_id = await read_photo(ann)
    response = await post_corners(ann.client, ann.code, photo_id, {"corners": corners, "size": 4})
    if needle is None:  # any corner may come first: the board is then read turned
        assert response.status_code == 202, response.content
        return
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "bad_corners"
    assert needle in response.json()["error"]["message"]


async def test_the_body_must_be_a_json_object(fake_reader):
    ann, _ = await two_players()
    photo_id = await read_photo(ann)
    for body, code in (("{not json", "invalid"), ("[1, 2]", "invalid")):
        response = await post_corners(ann.client, ann.code, photo_id, body)
        assert (response.status_code, response.json()["error"]["code"]) == (400, code)
    response = await sync_to_async(ann.client.post)(
        f"/api/rooms/{ann.code}/photos/{photo_id}/corners",
        {"corners": "x", "size": "4"},  # a form, as another site's page could send
    )
    assert response.status_code == 415
    assert response.json()["error"]["code"] == "unsupported_media_type"


async def test_errors_are_in_the_requests_language(fake_reader):
    ann, _ = await two_players()
    photo_id = await read_photo(ann)
    body = {"corners": SQUARE, "size": 7}
    response = await post_corners(ann.client, ann.code, photo_id, body, HTTP_ACCEPT_LANGUAGE="fr")
    assert response.json()["error"]["code"] == "invalid"
    assert "size is" not in response.json()["error"]["message"]


# ------------------------------------------------------------------ who and when


async def test_any_player_may_place_the_corners_and_the_room_hears_the_reading(fake_reader):
    ann, bob = await two_players()
    photo_id = await read_photo(ann)
    response = await post_corners(bob.client, bob.code, photo_id, {"corners": SQUARE, "size": 5})
    assert response.status_code == 202, response.content
    photo = response.json()["photo"]
    assert photo["id"] == photo_id and photo["status"] == "uploaded"
    assert photo["corners"] == SQUARE and photo["size"] == 5
    assert (photo["width"], photo["height"]) == (200, 200)
    assert photo["result"] is None
    reading = await receive_until(ann.comm, "board.reading", photo_id=photo_id)
    assert reading["reader_progress"] is None  # the (fake) reader is ready
    read = await receive_until(ann.comm, "board.read", photo_id=photo_id)
    assert read["board"] == "cats qiex dogz went"
    assert fake_reader.calls[-1] == {"size": 5, "corners": SQUARE, "memory": None, "dice_sets": []}
    state = (await ask(bob.comm, "sync"))["state"]
    assert state["photo"]["status"] == "read" and state["photo"]["corners"] == SQUARE


async def test_corners_that_the_reader_refuses_are_board_unreadable(fake_reader):
    """The edge checks the corners in the photo's pixels; the reader checks them again in
    the pixels it reads (a smaller copy of a large photo), and may still refuse them."""
    ann, _ = await two_players()
    photo_id = await read_photo(ann)
    fake_reader.reading = CornersError("the corners enclose too little of the photo")
    response = await post_corners(ann.client, ann.code, photo_id, {"corners": SQUARE, "size": 4})
    assert response.status_code == 202
    event = await receive_until(ann.comm, "board.unreadable", photo_id=photo_id)
    assert event["code"] == "corners"


async def test_a_failed_photo_may_be_read_again_with_corners(fake_reader):
    fake_reader.reading = DiceCountError(21, (16, 25, 36))
    ann, _ = await two_players()
    photo_id = await read_photo(ann, event="board.unreadable")
    fake_reader.reading = type(fake_reader)().reading
    response = await post_corners(ann.client, ann.code, photo_id, {"corners": SQUARE, "size": 4})
    assert response.status_code == 202
    await receive_until(ann.comm, "board.read", photo_id=photo_id)
    detail = await sync_to_async(ann.client.get)(f"/api/rooms/{ann.code}/photos/{photo_id}")
    assert detail.json()["photo"]["status"] == "read"
    assert detail.json()["photo"]["error"] is None


async def test_who_and_which_photo(fake_reader):
    ann, _ = await two_players()
    photo_id = await read_photo(ann)
    body = {"corners": SQUARE, "size": 4}
    assert (await post_corners(Client(), ann.code, photo_id, body)).status_code == 403
    other = await create_room("Cid")
    response = await post_corners(other.client, ann.code, photo_id, body)
    assert response.status_code == 403  # a player of another room
    response = await post_corners(other.client, other.code, photo_id, body)
    assert (response.status_code, response.json()["error"]["code"]) == (404, "photo_not_found")
    response = await post_corners(ann.client, ann.code, 999_999, body)
    assert (response.status_code, response.json()["error"]["code"]) == (404, "photo_not_found")
    response = await post_corners(ann.client, "zzzzzzzz", photo_id, body)
    assert (response.status_code, response.json()["error"]["code"]) == (404, "room_not_found")


async def test_a_photo_being_read_is_409_photo_busy(fake_reader, monkeypatch):
    monkeypatch.setattr(photos_api, "enqueue_read", lambda photo_id: None)  # stays waiting
    ann, _ = await two_players()
    response = await upload(ann.client, ann.code, png_bytes(), name="b.png")
    photo_id = response.json()["photo"]["id"]
    response = await post_corners(ann.client, ann.code, photo_id, {"corners": SQUARE, "size": 4})
    assert (response.status_code, response.json()["error"]["code"]) == (409, "photo_busy")


async def test_an_older_or_used_photo_is_409_photo_outdated(fake_reader):
    ann, _ = await two_players()
    first = await read_photo(ann)
    second = await read_photo(ann)
    body = {"corners": SQUARE, "size": 4}
    response = await post_corners(ann.client, ann.code, first, body)
    assert (response.status_code, response.json()["error"]["code"]) == (409, "photo_outdated")
    assert (await ask(ann.comm, "set_board", board="abcd efgh ijkl mnop"))["type"] == "ok"
    response = await post_corners(ann.client, ann.code, second, body)
    assert (response.status_code, response.json()["error"]["code"]) == (409, "photo_outdated")


async def test_readings_by_hand_share_the_uploads_bounds(fake_reader, monkeypatch):
    """Two photos of one address waiting (in other rooms): placing corners is refused like
    a third upload (429), as is the site's fourth waiting photo."""
    ann, _ = await two_players()
    photo_id = await read_photo(ann)
    monkeypatch.setattr(photos_api, "enqueue_read", lambda photo_id: None)
    for nickname in ("Cid", "Dan"):
        other = await create_room(nickname)
        assert (await upload(other.client, other.code, png_bytes())).status_code == 202
    response = await post_corners(ann.client, ann.code, photo_id, {"corners": SQUARE, "size": 4})
    assert (response.status_code, response.json()["error"]["code"]) == (429, "rate_limited")
    response = await post_corners(
        ann.client, ann.code, photo_id, {"corners": SQUARE, "size": 4}, REMOTE_ADDR="10.0.0.7"
    )
    assert response.status_code == 202  # another phone is not held up by those
    photo = await sync_to_async(BoardPhoto.objects.get)(pk=photo_id)
    assert photo.status == "uploaded" and photo.client_address == "10.0.0.7"


# ------------------------------------------------------------------ the real reader


async def test_no_board_found_then_the_dice_inside_corners_placed_by_hand():
    """A low-angle photo whose dice's sides confuse the detector: inside the corners a
    player places, the reader reads the board, and the host can play it."""
    data = photo_bytes(LOW_ANGLE_PHOTO)
    ann, bob = await two_players()
    response = await upload(bob.client, bob.code, data)
    photo_id = response.json()["photo"]["id"]
    # The shipped detector finds no board here (board.unreadable, "dice_count"); a better
    # one may: corners placed by hand serve then too (the host disagrees with the grid).
    await outcome_of(ann.comm, photo_id)
    response = await post_corners(
        bob.client, bob.code, photo_id, {"corners": LOW_ANGLE_CORNERS, "size": 4}
    )
    assert response.status_code == 202, response.content
    read = await receive_until(ann.comm, "board.read", timeout=60, photo_id=photo_id)
    assert read["board"] == LOW_ANGLE_BOARD
    assert (read["rows"], read["cols"]) == (4, 4)
    for given, used in zip(LOW_ANGLE_CORNERS, read["corners"], strict=True):
        assert used == pytest.approx(given, abs=1.0)  # the grid read is the one placed
    assert (await ask(ann.comm, "set_board", board=read["board"]))["type"] == "ok"


async def test_an_exif_turned_photo_is_read_in_its_upright_pixels():
    """A phone's portrait photo, stored sideways with an EXIF orientation: its size, the
    corners of its reading and the corners placed by hand are all in the upright photo's
    pixels, as the page shows it (GET …/image)."""
    data = turned_by_exif(photo_bytes(PHOTO), pad=(100, 60))  # upright: 516x476
    ann, _ = await two_players()
    response = await upload(ann.client, ann.code, data)
    assert response.status_code == 202, response.content
    photo = response.json()["photo"]
    assert (photo["width"], photo["height"]) == (516, 476)
    photo_id = photo["id"]
    read = await receive_until(ann.comm, "board.read", timeout=60, photo_id=photo_id)
    assert read["board"] == PHOTO_BOARD
    # The grid read, as an upright viewer sees it: the plain photo's, 100 px to the right.
    plain = [[94.0, 146.9], [258.3, 110.4], [331.3, 225.7], [150.7, 279.5]]
    for (x, y), corner in zip(plain, read["corners"], strict=True):
        assert corner == pytest.approx([x + 100, y], abs=6)

    corners = [[x + 100, y] for x, y in plain]
    response = await post_corners(ann.client, ann.code, photo_id, {"corners": corners, "size": 4})
    assert response.status_code == 202, response.content
    again = await receive_until(ann.comm, "board.read", timeout=60, photo_id=photo_id)
    assert again["board"] == PHOTO_BOARD
    # In the stored (sideways) pixels, y = 476 would be beyond the 416-pixel-high picture
    # seen upright; in upright pixels it is inside: accepted.
    corners[2][1] = 470.0
    response = await post_corners(ann.client, ann.code, photo_id, {"corners": corners, "size": 4})
    assert response.status_code == 202, response.content

    image = await sync_to_async(ann.client.get)(f"/api/rooms/{ann.code}/photos/{photo_id}/image")
    assert image.status_code == 200 and image["Content-Type"] == "image/jpeg"
    assert "private" in image["Cache-Control"]
    with Image.open(io.BytesIO(image.content)) as shown:
        assert shown.size == (516, 476)  # upright
        assert shown.getexif().get(0x0112) in (None, 1)  # nothing left to turn it again


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP"])
@pytest.mark.parametrize(
    ("orientation", "size"), [(1, (300, 200)), (6, (200, 300)), (8, (200, 300))]
)
async def test_the_photos_size_is_after_its_exif_orientation(fake_reader, fmt, orientation, size):
    """Read from the header at upload (never by decoding the picture), for every format."""
    exif = Image.Exif()
    exif[0x0112] = orientation
    buffer = io.BytesIO()
    Image.new("RGB", (300, 200), (200, 30, 30)).save(buffer, format=fmt, exif=exif.tobytes())
    ann, _ = await two_players()
    response = await upload(ann.client, ann.code, buffer.getvalue(), name="b.img")
    assert response.status_code == 202, response.content
    photo = response.json()["photo"]
    assert (photo["width"], photo["height"]) == size
    await receive_until(ann.comm, "board.read", photo_id=photo["id"])
    image = await sync_to_async(ann.client.get)(f"/api/rooms/{ann.code}/photos/{photo['id']}/image")
    with Image.open(io.BytesIO(image.content)) as shown:
        assert shown.size == size  # the page shows it the same way up


async def test_the_image_is_shrunk_for_the_page_and_for_players_only(fake_reader):
    ann, _ = await two_players()
    big = io.BytesIO()
    Image.new("RGB", (4000, 3000), (90, 120, 30)).save(big, format="JPEG")
    photo_id = await read_photo(ann, big.getvalue())
    url = f"/api/rooms/{ann.code}/photos/{photo_id}/image"
    image = await sync_to_async(ann.client.get)(url)
    with Image.open(io.BytesIO(image.content)) as shown:
        assert shown.size == (photos_api.PREVIEW_SIDE, photos_api.PREVIEW_SIDE * 3 // 4)
    assert (await sync_to_async(Client().get)(url)).status_code == 403
    gone = await sync_to_async(ann.client.get)(f"/api/rooms/{ann.code}/photos/999999/image")
    assert gone.status_code == 404


async def test_previews_are_limited_per_address(fake_reader, monkeypatch):
    """A page asks once per photo; a script asking in a loop gets 429 after the burst, and
    costs no more decoding (the host's own machine, loopback, is never limited)."""
    from tests.fake_clock import FakeClock
    from web import throttle

    monkeypatch.setattr(throttle, "clock", FakeClock())
    throttle.reset()
    ann, _ = await two_players()
    photo_id = await read_photo(ann)
    url = f"/api/rooms/{ann.code}/photos/{photo_id}/image"
    decoded = []
    real_preview = photos_api.preview_jpeg
    monkeypatch.setattr(
        photos_api, "preview_jpeg", lambda handle: decoded.append(1) or real_preview(handle)
    )
    answers = [
        (await sync_to_async(ann.client.get)(url, REMOTE_ADDR="203.0.113.5")).status_code
        for _ in range(photos_api.PREVIEW.burst + 2)
    ]
    assert answers == [200] * photos_api.PREVIEW.burst + [429, 429]
    assert len(decoded) == photos_api.PREVIEW.burst
    assert (await sync_to_async(ann.client.get)(url)).status_code == 200  # loopback
