"""Which file formats reach Pillow's decoders (by magic bytes), Pillow's own bomb limit,
and large lossless photos shrunk right after decoding."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from vision.errors import ImageTooLargeError, NotAnImageError
from vision.loading import (
    MAX_FULL_DECODE_PIXELS,
    MAX_PIXELS,
    UnsupportedImageError,
    check_pixels,
    load_photo,
    sniff_format,
)

# A minimal Encapsulated PostScript file: Pillow would hand it to Ghostscript to decode.
EPS = b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 100 100\nshowpage\n%%EOF\n"
# The start of an iPhone photo: an ISO-BMFF "ftyp" box with the "heic" brand.
HEIC = b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + b"\x00" * 64


def _encoded(fmt: str, size: tuple[int, int] = (64, 64), mode: str = "RGB") -> bytes:
    buffer = io.BytesIO()
    Image.new(mode, size, "white" if mode == "RGB" else 255).save(buffer, format=fmt)
    return buffer.getvalue()


def test_the_format_comes_from_the_magic_bytes() -> None:
    assert sniff_format(_encoded("JPEG")) == "JPEG"
    assert sniff_format(_encoded("PNG")) == "PNG"
    assert sniff_format(_encoded("WEBP")) == "WEBP"
    assert sniff_format(HEIC) == "HEIF"
    assert sniff_format(_encoded("GIF")) == "GIF"
    assert sniff_format(EPS) == "EPS"
    assert sniff_format(b"<html>hello</html>") is None
    assert sniff_format(b"") is None


@pytest.mark.parametrize("data", [EPS, b"\xc5\xd0\xd3\xc6" + b"\x00" * 60], ids=["eps", "dos-eps"])
def test_postscript_never_reaches_a_decoder(data: bytes, monkeypatch) -> None:
    """EPS would run Ghostscript: refused from its first bytes, before Pillow opens it."""
    monkeypatch.setattr(Image, "open", lambda *a, **k: pytest.fail("Pillow was asked to open"))
    with pytest.raises(UnsupportedImageError, match="JPEG, PNG or WebP"):
        load_photo(data)


@pytest.mark.parametrize("fmt", ["GIF", "BMP", "TIFF"])
def test_other_image_formats_are_unsupported(fmt: str) -> None:
    with pytest.raises(UnsupportedImageError, match=f"{fmt} images are not accepted"):
        load_photo(_encoded(fmt))


def test_heic_is_refused_with_advice() -> None:
    """pillow-heif is not installed, so HEIC cannot be decoded: say what to send instead."""
    with pytest.raises(UnsupportedImageError, match=r"HEIC.*JPEG"):
        load_photo(HEIC)


def test_unsupported_is_still_a_not_an_image_error() -> None:
    """Callers that catch NotAnImageError keep working."""
    assert issubclass(UnsupportedImageError, NotAnImageError)


def test_png_bytes_under_any_name_decode() -> None:
    """Only the content counts: PNG bytes decode whatever they are called."""
    assert load_photo(_encoded("PNG", (80, 60))).pixels.shape == (60, 80, 3)


def test_pillow_bomb_limit_is_ours() -> None:
    """Any other Pillow use in the process refuses what we refuse (errors at 2x)."""
    assert Image.MAX_IMAGE_PIXELS == MAX_PIXELS


def test_a_large_lossless_photo_is_shrunk_toward_the_work_side() -> None:
    """A 4000x3000 PNG asked for at work side 1000 comes back 1000x750, not 12 MP."""
    data = _encoded("PNG", (4000, 3000), mode="L")
    photo = load_photo(data, work_side=1000)
    assert photo.pixels.shape == (750, 1000, 3)
    assert photo.scale == (4.0, 4.0)
    assert np.allclose(photo.to_full(np.array([[999.0, 749.0]])), [[3997.5, 2997.5]])
    full = load_photo(data)  # no work side: every pixel
    assert full.pixels.shape == (3000, 4000, 3)


def test_formats_decoded_at_full_size_have_a_lower_pixel_limit() -> None:
    """JPEG decodes at a reduced scale and may have up to MAX_PIXELS; a PNG or WebP over
    MAX_FULL_DECODE_PIXELS is refused before decoding, with advice."""
    side = int((MAX_FULL_DECODE_PIXELS * 1.1) ** 0.5)
    check_pixels(side, side, "JPEG")
    for image_format in ("PNG", "WEBP"):
        with pytest.raises(ImageTooLargeError, match=f"limit for {image_format} is 12 MP"):
            check_pixels(side, side, image_format)
    bomb = _encoded("PNG", (side, side), mode="1")  # a few kB
    with pytest.raises(ImageTooLargeError, match="send it as a JPEG"):
        load_photo(bomb, work_side=1000)


def test_a_palette_png_is_shrunk_and_an_exif_turn_still_maps_back() -> None:
    """Modes Pillow cannot reduce are converted first; the EXIF orientation applies to the
    shrunk picture and the scale maps to the upright full photo."""
    image = Image.new("P", (4000, 2000), 3)
    exif = image.getexif()
    exif[0x0112] = 6  # turn 90 degrees clockwise to view
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", exif=exif.tobytes())
    photo = load_photo(buffer.getvalue(), work_side=1000)
    assert photo.pixels.shape == (1000, 500, 3)  # upright: taller than wide
    assert photo.scale == (4.0, 4.0)
