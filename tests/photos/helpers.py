"""Helpers for the board-photo tests: the labelled photos they read, pictures made on the
spot, a fake reader, and the photo API's calls."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from asgiref.sync import sync_to_async
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from PIL import Image

from tests.photo_data import require_photo
from vision.recognize import BoardReading

BOARDS_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "boggle-boards"
# A 4x4 photo that the shipped models read whole ("ygkh auox mrlz isio" when written).
PHOTO = BOARDS_DIR / "004d2c027e43dd194554d6527b4ba67a.jpg"
PHOTO_BOARD = "ygkh auox mrlz isio"
# A 4x4 board on a patterned tablecloth, shot from a low angle: the shipped detector counts
# the dice's sides too (21 dice, no board); inside these corners (the outer edges of the
# corner dice, from the photo's labelled boxes, clockwise from the board's top left) the
# reader reads all 16 dice.
LOW_ANGLE_PHOTO = BOARDS_DIR / "40b2eb81f34e110d019dd2eb1058e964.jpg"
LOW_ANGLE_CORNERS = [[179.9, 179.0], [287.1, 182.0], [273.6, 237.0], [157.4, 230.5]]
LOW_ANGLE_BOARD = "oter keqa onoa eixy"


def photo_bytes(path: Path = PHOTO) -> bytes:
    require_photo(path)  # skips without it; fails under CI=true
    return path.read_bytes()


def png_bytes(size=(200, 200), mode="RGB") -> bytes:
    buffer = io.BytesIO()
    Image.new(mode, size).save(buffer, format="PNG")
    return buffer.getvalue()


def turned_by_exif(data: bytes, pad: tuple[int, int] = (0, 0)) -> bytes:
    """The photo widened by ``pad`` (left, bottom: grey, so that it is not square), stored
    turned a quarter anticlockwise with EXIF orientation 6: a viewer (and the reader) turns
    it back, so it shows as the widened photo, ``pad[0]`` pixels to the right."""
    with Image.open(io.BytesIO(data)) as image:
        upright = Image.new("RGB", (image.width + pad[0], image.height + pad[1]), (128, 128, 128))
        upright.paste(image.convert("RGB"), (pad[0], 0))
    stored = upright.transpose(Image.Transpose.ROTATE_90)
    exif = Image.Exif()
    exif[0x0112] = 6  # "rotate 90 clockwise to view"
    buffer = io.BytesIO()
    stored.save(buffer, format="JPEG", quality=92, exif=exif.tobytes())
    return buffer.getvalue()


async def upload(client: Client, code: str, data: bytes | None, name="board.jpg", **headers):
    body = {} if data is None else {"photo": SimpleUploadedFile(name, data, "image/jpeg")}
    return await sync_to_async(client.post)(f"/api/rooms/{code}/photos", body, **headers)


async def post_corners(client: Client, code: str, photo_id: int, body: Any, **headers):
    """POST ``…/photos/<id>/corners`` with ``body`` as JSON (a str is sent as it is)."""
    text = body if isinstance(body, str) else json.dumps(body)
    return await sync_to_async(client.post)(
        f"/api/rooms/{code}/photos/{photo_id}/corners",
        text,
        content_type="application/json",
        **headers,
    )


class FakeReader:
    """Stands for the models: returns ``reading`` (or raises it), and remembers how it was
    asked (``calls``: the size, corners, set memory and dice sets of each reading)."""

    def __init__(self) -> None:
        self.reading: BoardReading | Exception = BoardReading(
            rows=4,
            cols=4,
            letters=[list("cats"), ["qu", "i", "e", "x"], list("dogz"), list("went")],
            confidence=[[0.99] * 4, [0.99, 0.5, 0.99, 0.99], [0.99] * 4, [0.99] * 4],
            centers=[[[float(c), float(r)] for c in range(4)] for r in range(4)],
            corners=[[10.0, 10.0], [190.0, 10.0], [190.0, 190.0], [10.0, 190.0]],
        )
        self.calls: list[dict[str, Any]] = []

    def read(self, source, size=None, corners=None, memory=None, dice_sets=()):
        assert isinstance(source, bytes)
        self.calls.append(
            {"size": size, "corners": corners, "memory": memory, "dice_sets": list(dice_sets)}
        )
        if isinstance(self.reading, Exception):
            raise self.reading
        return self.reading

    def warm_up(self) -> None:
        pass
