"""JPEGs far larger than the working size are read within a bounded memory
(vision.loading): a baseline one is decoded at a reduced scale (draft mode), a progressive
one, which libjpeg holds whole as coefficients whatever the output size, is refused over
MAX_COEFFICIENT_BYTES (scripts: bench/vision.py measures; the numbers are in docs/photos.md)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image, ImageFile

from vision import loading
from vision.errors import ImageTooLargeError


def jpeg(width: int, height: int, **options: object) -> bytes:
    rng = np.random.default_rng(0)
    blocks = rng.integers(0, 255, (height // 8, width // 8, 3), dtype=np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(blocks).resize((width, height)).save(buffer, "JPEG", quality=85, **options)
    return buffer.getvalue()


def test_a_large_baseline_jpeg_is_decoded_at_a_reduced_scale() -> None:
    """1600x1200 for a working side of 400: decoded at 1/4 (400x300), never whole."""
    photo = loading.load_photo(jpeg(1600, 1200), work_side=400)
    assert photo.pixels.shape == (300, 400, 3)
    assert photo.scale == (4.0, 4.0)


def test_a_progressive_jpeg_under_the_budget_is_decoded_at_a_reduced_scale() -> None:
    photo = loading.load_photo(jpeg(1600, 1200, progressive=True), work_side=400)
    assert photo.pixels.shape == (300, 400, 3)


def test_coefficient_memory_follows_the_components_sampling() -> None:
    """Progressive: 64 two-byte coefficients per 8x8 block of each component (colour at
    half resolution by default, full with subsampling=0); baseline: none held whole."""
    with Image.open(io.BytesIO(jpeg(1600, 1200, progressive=True))) as image:
        assert loading.coefficient_bytes(image) == (200 * 150 + 2 * 100 * 75) * 128
    with Image.open(io.BytesIO(jpeg(1600, 1200, progressive=True, subsampling=0))) as image:
        assert loading.coefficient_bytes(image) == 3 * 200 * 150 * 128
    with Image.open(io.BytesIO(jpeg(1600, 1200))) as image:
        assert loading.coefficient_bytes(image) == 0


def test_a_progressive_jpeg_over_the_budget_is_refused_before_decoding(monkeypatch) -> None:
    """Scaled down: a budget below this 1600x1200 picture's coefficients stands for 50 MP
    against the real one (150 to 300 MB). Refused from the header: nothing is decoded."""
    data = jpeg(1600, 1200, progressive=True)
    monkeypatch.setattr(loading, "MAX_COEFFICIENT_BYTES", 1_000_000)
    decoded = []
    monkeypatch.setattr(ImageFile.ImageFile, "load", lambda image: decoded.append(image))
    with pytest.raises(ImageTooLargeError, match="progressive JPEG of 1600x1200"):
        loading.load_photo(data, work_side=400)
    assert decoded == []


def test_the_budget_lets_a_twelve_megapixel_progressive_photo_through() -> None:
    """4000x3000 with the usual colour subsampling needs 36 MB: under the budget."""
    blocks = (500 * 375 + 2 * 250 * 188) * 128
    assert blocks <= loading.MAX_COEFFICIENT_BYTES
