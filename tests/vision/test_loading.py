"""Decoding photos: formats, damage, size limits and EXIF orientation."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from vision.errors import (
    CorruptImageError,
    ImageReadError,
    ImageTooLargeError,
    ImageTooSmallError,
    NotAnImageError,
)
from vision.loading import load_image


def _gradient(height: int, width: int) -> np.ndarray:
    ys, xs = np.mgrid[0:height, 0:width]
    return np.stack([xs * 255 // width, ys * 255 // height, np.full_like(xs, 128)], -1).astype(
        np.uint8
    )


def test_jpeg_and_png_decode_to_rgb(encode) -> None:
    """Both formats give an RGB uint8 array of the picture's size."""
    image = _gradient(60, 80)
    for fmt in ("JPEG", "PNG"):
        decoded = load_image(encode(image, fmt))
        assert decoded.shape == (60, 80, 3)
        assert decoded.dtype == np.uint8


def test_grayscale_and_alpha_become_rgb(encode) -> None:
    """Gray and RGBA pictures are converted to three channels."""
    gray = np.full((64, 64), 200, np.uint8)
    assert load_image(encode(gray, "PNG")).shape == (64, 64, 3)
    rgba = np.dstack([_gradient(64, 64), np.full((64, 64), 255, np.uint8)])
    assert load_image(encode(rgba, "PNG")).shape == (64, 64, 3)


def test_non_image_bytes_are_refused() -> None:
    """Text is not an image."""
    with pytest.raises(NotAnImageError, match="not an image"):
        load_image(b"<html>definitely not a photo</html>")


def test_corrupt_jpeg_is_refused(encode) -> None:
    """A JPEG cut short is reported as damaged, not as a crash."""
    data = encode(
        _gradient(200, 200)
        + np.random.default_rng(0).integers(0, 50, (200, 200, 3)).astype(np.uint8)
    )
    with pytest.raises(CorruptImageError):
        load_image(data[: len(data) // 2])


def test_tiny_image_is_refused(encode) -> None:
    """A picture a few pixels wide cannot hold a readable board."""
    with pytest.raises(ImageTooSmallError, match="20x20"):
        load_image(encode(_gradient(20, 20), "PNG"))


def test_pixel_limit_is_checked_before_decoding(encode) -> None:
    """Over the pixel limit the image is refused with its size in the message."""
    with pytest.raises(ImageTooLargeError, match="100x80"):
        load_image(encode(_gradient(80, 100), "PNG"), max_pixels=5000)


def test_missing_file_is_a_read_error(tmp_path) -> None:
    """A path that does not exist gives a clear error."""
    with pytest.raises(ImageReadError, match="cannot read"):
        load_image(tmp_path / "nope.jpg")


def test_exif_orientation_is_applied(encode) -> None:
    """A portrait photo stored landscape with EXIF orientation 6 comes out portrait.

    Orientation 6 means "turn 90 degrees clockwise to view": the stored top-left corner
    (marked red) ends up top-right.
    """
    stored = np.zeros((60, 100, 3), np.uint8)
    stored[:10, :10] = (255, 0, 0)
    exif = Image.Exif()
    exif[0x0112] = 6
    decoded = load_image(encode(stored, "JPEG", exif=exif.tobytes(), quality=95))
    assert decoded.shape == (100, 60, 3)
    assert decoded[:10, -10:, 0].mean() > 200  # red now top right
    assert decoded[:10, :10, 0].mean() < 50
