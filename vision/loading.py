"""Decode a photo safely: format and size limits first, EXIF orientation applied, RGB out.

Only JPEG, PNG and WebP reach Pillow, recognised from the file's first bytes: Pillow can
open dozens of formats and hands some (EPS, PDF) to external programs such as Ghostscript.
The pixel limit is checked from the header before any pixel is decoded, so a small file
that claims a huge picture (a decompression bomb) costs nothing.
"""

from __future__ import annotations

import io
import math
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
# Formats decoded at full size before shrinking (PNG, WebP: no reduced-scale decoding like
# JPEG's) get a lower limit: at 3 bytes a pixel, 12 MP decode to 36 MB. A real photo of
# more pixels saved this way is larger than any upload limit, so more can only be a bomb
# (a few KB of one colour that decode to hundreds of MB).
MAX_FULL_DECODE_PIXELS = 12_000_000
# A progressive JPEG cannot be decoded at a reduced scale in less memory: libjpeg keeps
# every DCT coefficient of the whole picture (2 bytes each, 64 per 8x8 block of each
# component) until the last scan, whatever the output size: 150 MB for 50 MP (300 MB with
# full-resolution colour). About the budget of a full decode of MAX_FULL_DECODE_PIXELS:
# a progressive JPEG of 12 MP (usual colour subsampling: 36 MB) still reads. Phone cameras
# write baseline JPEGs, which draft mode decodes a few rows at a time.
MAX_COEFFICIENT_BYTES = 40_000_000
# 40 MB: far above any JPEG of MAX_PIXELS at camera quality.
MAX_FILE_BYTES = 40_000_000
# Smallest side we accept: a 4x4 board needs at least ~10 pixels per die to be read.
MIN_SIDE = 48
# Large JPEGs are decoded at a reduced scale down to this side (pixels): still at least
# 50 pixels a die for a 6x6 board filling a third of the photo, and 5-10x faster.
WORK_SIDE = 1600

# Pillow's own decompression-bomb guard, for any Pillow use in the process: a warning over
# MAX_PIXELS, an error over twice that. load_photo refuses over MAX_PIXELS itself.
Image.MAX_IMAGE_PIXELS = MAX_PIXELS

# Formats we decode (what phone cameras and browsers send), as sniff_format names them.
# HEIC/HEIF is recognised but refused: Pillow needs the pillow-heif plugin to decode it,
# and the project does not install it.
DECODED_FORMATS = ("JPEG", "PNG", "WEBP")
_HEIF_BRANDS = {b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1", b"avif"}
# Other image formats named in the refusal, by their first bytes.
_OTHER_SIGNATURES = (
    (b"GIF87a", "GIF"),
    (b"GIF89a", "GIF"),
    (b"BM", "BMP"),
    (b"II*\x00", "TIFF"),
    (b"MM\x00*", "TIFF"),
    (b"%!PS", "EPS"),
    (b"\xc5\xd0\xd3\xc6", "EPS"),  # DOS EPS binary header
    (b"8BPS", "PSD"),
    (b"\x00\x00\x01\x00", "ICO"),
    (b"\x00\x00\x00\x0cjP  ", "JPEG 2000"),
    (b"\xff\x4f\xff\x51", "JPEG 2000"),
)

ImageSource = str | os.PathLike[str] | bytes

# Modes Image.reduce works on; others are converted to RGB before shrinking.
_REDUCIBLE_MODES = {"L", "LA", "RGB", "RGBA", "I", "F", "CMYK", "YCbCr", "PA"}


def check_pixels(width: int, height: int, image_format: str, max_pixels: int = MAX_PIXELS) -> None:
    """Raise ImageTooLargeError (with a message for the user) when an image of this size
    and format (as ``check_format`` names it) has too many pixels to decode."""
    limit = max_pixels if image_format == "JPEG" else min(max_pixels, MAX_FULL_DECODE_PIXELS)
    if width * height > limit:
        advice = "" if image_format == "JPEG" else "; send it as a JPEG (a phone's usual format)"
        raise ImageTooLargeError(
            f"the image is {width}x{height} pixels ({width * height / 1e6:.1f} MP); "
            f"the limit for {image_format} is {limit / 1e6:.0f} MP{advice}"
        )


def coefficient_bytes(image: Image.Image) -> int:
    """What libjpeg holds for the whole picture while decoding ``image`` (an opened, not yet
    loaded JPEG): its coefficient buffer when it is progressive, else 0 (a baseline JPEG is
    decoded a row of blocks at a time)."""
    if image.format != "JPEG" or not image.info.get("progressive"):
        return 0
    layers = getattr(image, "layer", None) or []
    if not layers:
        return 64 * 2 * 3 * math.ceil(image.width / 8) * math.ceil(image.height / 8)
    most_h = max(h for _, h, _, _ in layers)
    most_v = max(v for _, _, v, _ in layers)
    total = 0
    for _, h, v, _ in layers:
        columns = math.ceil(math.ceil(image.width * h / most_h) / 8)
        rows = math.ceil(math.ceil(image.height * v / most_v) / 8)
        total += columns * rows * 64 * 2
    return total


def check_coefficients(image: Image.Image) -> None:
    """Raise ImageTooLargeError when decoding ``image`` would hold more than
    MAX_COEFFICIENT_BYTES for the whole picture (a large progressive JPEG)."""
    needed = coefficient_bytes(image)
    if needed > MAX_COEFFICIENT_BYTES:
        width, height = image.size
        raise ImageTooLargeError(
            f"the image is a progressive JPEG of {width}x{height} pixels "
            f"({width * height / 1e6:.1f} MP), too large to decode in that form; "
            "send the camera's own JPEG, or this one smaller"
        )


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


class UnsupportedImageError(NotAnImageError):
    """The bytes are an image, but in a format we do not decode (GIF, EPS, HEIC, ...)."""


def sniff_format(data: bytes) -> str | None:
    """The image format named by the file's first bytes ("JPEG", "PNG", "WEBP", "HEIF",
    "GIF", "EPS", ...), or None when they match no format we know. Never the file name."""
    if data.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WEBP"
    if data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS:
        return "HEIF"
    for signature, name in _OTHER_SIGNATURES:
        if data.startswith(signature):
            return name
    return None


def check_format(data: bytes) -> str:
    """The format of ``data`` if we decode it; else a ``NotAnImageError`` (unknown bytes) or
    an ``UnsupportedImageError`` (a known image format we refuse), with advice."""
    image_format = sniff_format(data)
    if image_format in DECODED_FORMATS:
        return image_format
    if image_format is None:
        raise NotAnImageError("the file is not an image (JPEG, PNG, WebP, ...)")
    if image_format == "HEIF":
        raise UnsupportedImageError(
            "HEIC/HEIF photos are not accepted yet; send a JPEG, PNG or WebP photo "
            "(on an iPhone: Settings > Camera > Formats > Most Compatible)"
        )
    raise UnsupportedImageError(
        f"{image_format} images are not accepted; send a JPEG, PNG or WebP photo"
    )


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

    def from_full(self, points: np.ndarray) -> np.ndarray:
        """Map (..., 2) pixel coordinates of the full photo to ``pixels``."""
        factor = np.array(self.scale)
        return (np.asarray(points, np.float64) + 0.5) / factor - 0.5


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
    times faster for a 12-megapixel photo. A PNG or WebP at least twice ``work_side`` is
    shrunk by a whole factor (never below ``work_side``) as soon as it is decoded, so the
    full-size pixels are not kept. ``Photo.scale`` says how to map back.
    """
    data = source if isinstance(source, bytes) else read_bytes(source)
    if len(data) > MAX_FILE_BYTES:
        raise ImageTooLargeError(
            f"the file is {len(data) / 1e6:.1f} MB; the limit is {MAX_FILE_BYTES / 1e6:.0f} MB"
        )
    image_format = check_format(data)
    try:
        with warnings.catch_warnings():
            # Our own limit applies below; Pillow's bomb warning would only be noise.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            # Only the sniffed format's plugin may open it: no other decoder is tried.
            image = Image.open(io.BytesIO(data), formats=[image_format])
    except UnidentifiedImageError:
        raise NotAnImageError("the file is not an image (JPEG, PNG, WebP, ...)") from None
    except Image.DecompressionBombError:
        raise ImageTooLargeError(f"the image has too many pixels (limit {max_pixels:,})") from None
    except OSError as error:
        raise CorruptImageError(f"the image cannot be decoded: {error}") from None
    with image:
        width, height = image.size
        check_pixels(width, height, image_format, max_pixels)
        check_coefficients(image)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", Image.DecompressionBombWarning)
                if work_side and max(width, height) > work_side and image.format == "JPEG":
                    factor = work_side / max(width, height)
                    image.draft("RGB", (int(width * factor) + 1, int(height * factor) + 1))
                decoded_size = image.size
                image.load()
                decoded: Image.Image = image
                if work_side and max(decoded_size) >= 2 * work_side:
                    # PNG and WebP cannot decode at a reduced scale like JPEG's draft:
                    # shrink first and let the full-size pixels go, so that no full-size
                    # copy (turned, converted) is made.
                    if decoded.mode not in _REDUCIBLE_MODES:
                        decoded = decoded.convert("RGB")
                    decoded = decoded.reduce(max(decoded_size) // work_side)
                    image.close()
                upright = ImageOps.exif_transpose(decoded)
                rgb = upright if upright.mode == "RGB" else upright.convert("RGB")
                # EXIF orientations 5 to 8 turn the picture a quarter: width and height swap.
                swapped = rgb.size != decoded.size
        except (OSError, SyntaxError, ValueError, Image.DecompressionBombError) as error:
            raise CorruptImageError(
                f"the image is damaged and cannot be decoded: {error}"
            ) from None
    array = np.asarray(rgb, dtype=np.uint8)
    full_width, full_height = (height, width) if swapped else (width, height)
    if min(full_width, full_height) < min_side:
        raise ImageTooSmallError(
            f"the image is {full_width}x{full_height} pixels; "
            f"a board photo needs at least {min_side} pixels a side"
        )
    scale = (full_width / array.shape[1], full_height / array.shape[0])
    return Photo(array, scale)
