"""Stored photos keep no metadata (issue 48, item 8): a phone's photo carries where it was
taken (EXIF GPS, XMP), its maker, comments and embedded pictures; the server stores the
picture only, byte for byte the same pixels, with its EXIF orientation (the reader and the
pages turn it upright by it) and nothing else."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from PIL import Image
from PIL.PngImagePlugin import PngInfo

from photos import metadata
from photos.models import BoardPhoto
from tests.games.ws_helpers import create_room, tear_down
from tests.photos.helpers import upload

pytestmark = pytest.mark.django_db(transaction=True)

ORIENTATION, MAKE, GPS = 0x0112, 0x010F, 0x8825
XMP = (
    b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><exif:GPSLatitude>52,22.5N</exif:GPSLatitude></x:xmpmeta>'
)
SECRET = b"taken at 12 Secret Lane"


@pytest.fixture(autouse=True)
async def _close_sockets():
    yield
    await tear_down()


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PHOTOS_READ_IN_THREAD = False


def phone_exif(orientation: int = 6) -> bytes:
    exif = Image.Exif()
    exif[ORIENTATION] = orientation
    exif[MAKE] = "PhoneMaker"
    exif[GPS] = {1: "N", 2: (52.0, 22.0, 30.5), 3: "E", 4: (4.0, 53.0, 12.0)}
    return exif.tobytes()


def picture() -> Image.Image:
    """120 x 80, not square and not plain, so that pixels and turns can be told apart."""
    image = Image.new("RGB", (120, 80), (200, 10, 10))
    image.paste((10, 200, 10), (0, 0, 30, 20))
    return image


def phone_photo(image_format: str, orientation: int = 6) -> bytes:
    buffer = io.BytesIO()
    options: dict = {"exif": phone_exif(orientation)}
    if image_format == "JPEG":
        options |= {"comment": SECRET, "xmp": XMP, "quality": 95}
    elif image_format == "PNG":
        info = PngInfo()
        info.add_itxt("XML:com.adobe.xmp", XMP.decode())
        info.add_text("Comment", SECRET.decode())
        options["pnginfo"] = info
    else:
        options |= {"xmp": XMP, "lossless": True}
    picture().save(buffer, format=image_format, **options)
    data = buffer.getvalue()
    if image_format == "JPEG":  # a second picture after the first, as phones append (MPF)
        data += phone_photo_thumbnail()
    return data


def phone_photo_thumbnail() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (64, 64)).save(buffer, format="JPEG", exif=phone_exif(), comment=SECRET)
    return buffer.getvalue()


def pixels(data: bytes) -> bytes:
    with Image.open(io.BytesIO(data)) as image:
        return image.convert("RGB").tobytes()


async def stored_bytes(photo_id: int) -> bytes:
    photo = await sync_to_async(BoardPhoto.objects.get)(pk=photo_id)
    return Path(photo.image.path).read_bytes()


@pytest.mark.parametrize(
    ("image_format", "extension"), [("JPEG", "jpg"), ("PNG", "png"), ("WEBP", "webp")]
)
async def test_a_stored_photo_keeps_its_pixels_and_orientation_only(
    fake_reader, image_format, extension
):
    sent = phone_photo(image_format)
    with Image.open(io.BytesIO(sent)) as image:  # what the phone sent does hold them
        assert dict(image.getexif().get_ifd(GPS)) and image.getexif()[MAKE] == "PhoneMaker"
    ann = await create_room("Ann")
    response = await upload(ann.client, ann.code, sent, name=f"board.{extension}")
    assert response.status_code == 202, response.content
    assert (response.json()["photo"]["width"], response.json()["photo"]["height"]) == (80, 120)

    stored = await stored_bytes(response.json()["photo"]["id"])
    with Image.open(io.BytesIO(stored)) as image:
        assert image.format == image_format
        exif = image.getexif()
        assert dict(exif) == {ORIENTATION: 6}  # turned upright as before, nothing else
        assert dict(exif.get_ifd(GPS)) == {}
        assert "xmp" not in image.info and "XML:com.adobe.xmp" not in image.info
        assert "comment" not in image.info and "Comment" not in image.info
    for trace in (b"GPSLatitude", b"PhoneMaker", SECRET, b"xmpmeta"):
        assert trace not in stored
    assert pixels(stored) == pixels(sent)  # the same picture, not re-encoded


async def test_a_solve_page_photo_is_stored_without_its_position_too(fake_reader):
    sent = phone_photo("JPEG", orientation=1)
    response = await sync_to_async(Client().post)(
        "/api/solve/photos", {"photo": SimpleUploadedFile("b.jpg", sent, "image/jpeg")}
    )
    assert response.status_code == 202
    stored = await stored_bytes(response.json()["photo"]["id"])
    with Image.open(io.BytesIO(stored)) as image:
        assert dict(image.getexif()) == {}  # orientation 1 is no turn: no EXIF at all
    assert b"GPSLatitude" not in stored and SECRET not in stored
    assert pixels(stored) == pixels(sent)


@pytest.mark.parametrize(
    "damaged",
    [
        b"\xff\xd8\xff\xe1\xff\xff" + b"Exif",  # a segment longer than the file
        b"\xff\xd8\xff\xe1\x00",  # cut inside a segment's length
        b"\xff\xd8",  # no segment, no end
    ],
)
def test_a_jpeg_whose_segments_cannot_be_followed_is_refused(damaged):
    with pytest.raises(metadata.DamagedImage):
        metadata.without_metadata(damaged, "JPEG")
