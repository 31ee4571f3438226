"""Decode a photo safely: size limits first, EXIF orientation applied, RGB out.

The pixel limit is checked from the header before any pixel is decoded, so a small file
that claims a huge picture (a decompression bomb) costs nothing.
"""

from __future__ import annotations

import io
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from vision.errors import (
    CorruptImageError,
    ImageReadError,
    ImageTooLargeError,
    ImageTooSmallError,
    NotAnImageError,
)

# 50 megapixels: every phone camera's full resolution fits, a decompression bomb does not.
MAX_PIXELS = 50_000_000
# 40 MB: far above any JPEG of MAX_PIXELS at camera quality.
MAX_FILE_BYTES = 40_000_000
# Smallest side we accept: a 4x4 board needs at least ~10 pixels per die to be read.
MIN_SIDE = 48

ImageSource = str | os.PathLike[str] | bytes


def read_bytes(path: str | os.PathLike[str], max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """Read a file, refusing files over ``max_bytes``."""
    try:
        size = Path(path).stat().st_size
        if size > max_bytes:
            raise ImageTooLargeError(
                f"the file is {size / 1e6:.1f} MB; the limit is {max_bytes / 1e6:.0f} MB"
            )
        with open(path, "rb") as handle:
            return handle.read()
    except ImageTooLargeError:
        raise
    except OSError as error:
        raise ImageReadError(f"cannot read {os.fspath(path)}: {error.strerror or error}") from None


@dataclass(frozen=True)
class Photo:
    """Decoded pixels and the size of the full photo they stand for.

    ``pixels`` may be smaller than the photo (see ``work_side``); ``scale`` maps a pixel
    coordinate of ``pixels`` to the full photo's: ``full = (x + 0.5) * scale - 0.5``.
    """

    pixels: np.ndarray
    scale: tuple[float, float]

    def to_full(self, points: np.ndarray) -> np.ndarray:
        """Map (..., 2) pixel coordinates of ``pixels`` to the full photo."""
        factor = np.array(self.scale)
        return (np.asarray(points, np.float64) + 0.5) * factor - 0.5


def load_image(
    source: ImageSource,
    max_pixels: int = MAX_PIXELS,
    min_side: int = MIN_SIDE,
) -> np.ndarray:
    """Decode ``source`` (a path or the file's bytes) to an RGB ``uint8`` array (H, W, 3).

    The EXIF orientation tag is applied, so the array is the photo as a viewer shows it.
    Raises an ``ImageError`` subclass with a message for the user when the input is not an
    image, is damaged, or is over ``max_pixels`` or under ``min_side`` pixels a side.
    """
    return load_photo(source, max_pixels, min_side).pixels


def load_photo(
    source: ImageSource,
    max_pixels: int = MAX_PIXELS,
    min_side: int = MIN_SIDE,
    work_side: int | None = None,
) -> Photo:
    """Like ``load_image``, but a JPEG larger than ``work_side`` on its longer side may be
    decoded at a reduced scale (1/2, 1/4 or 1/8, never below ``work_side``): four to ten
    times faster for a 12-megapixel photo. ``Photo.scale`` says how to map back.
    """
    data = source if isinstance(source, bytes) else read_bytes(source)
    if len(data) > MAX_FILE_BYTES:
        raise ImageTooLargeError(
            f"the file is {len(data) / 1e6:.1f} MB; the limit is {MAX_FILE_BYTES / 1e6:.0f} MB"
        )
    try:
        with warnings.catch_warnings():
            # Our own limit applies below; Pillow's bomb warning would only be noise.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
    except UnidentifiedImageError:
        raise NotAnImageError("the file is not an image (JPEG, PNG, WebP, ...)") from None
    except Image.DecompressionBombError:
        raise ImageTooLargeError(f"the image has too many pixels (limit {max_pixels:,})") from None
    except OSError as error:
        raise CorruptImageError(f"the image cannot be decoded: {error}") from None
    with image:
        width, height = image.size
        if width * height > max_pixels:
            raise ImageTooLargeError(
                f"the image is {width}x{height} pixels ({width * height / 1e6:.1f} MP); "
                f"the limit is {max_pixels / 1e6:.0f} MP"
            )
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", Image.DecompressionBombWarning)
                if work_side and max(width, height) > work_side and image.format == "JPEG":
                    factor = work_side / max(width, height)
                    image.draft("RGB", (int(width * factor) + 1, int(height * factor) + 1))
                decoded_size = image.size
                image.load()
                upright = ImageOps.exif_transpose(image)
                rgb = upright.convert("RGB")
        except (OSError, SyntaxError, ValueError, Image.DecompressionBombError) as error:
            raise CorruptImageError(
                f"the image is damaged and cannot be decoded: {error}"
            ) from None
    array = np.asarray(rgb, dtype=np.uint8)
    # EXIF orientations 5 to 8 turn the picture a quarter: width and height swap.
    swapped = (array.shape[1], array.shape[0]) != tuple(decoded_size)
    full_width, full_height = (height, width) if swapped else (width, height)
    if min(full_width, full_height) < min_side:
        raise ImageTooSmallError(
            f"the image is {full_width}x{full_height} pixels; "
            f"a board photo needs at least {min_side} pixels a side"
        )
    scale = (full_width / array.shape[1], full_height / array.shape[0])
    return Photo(array, scale)
