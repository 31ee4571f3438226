"""A photo as stored: its picture, without what else the phone wrote into the file.

A phone's photo carries where it was taken (EXIF GPS, XMP), the phone's make and serial,
comments, and whole other pictures (EXIF thumbnails, MPF pictures appended after the first).
None of it is the board's business, and stored photos are kept for a while: only the
segments (JPEG), chunks (PNG) or chunks (WebP) that make up the picture are copied, byte
for byte, so the pixels are exactly the ones sent, never re-encoded (and never decoded
here: that is the reader's, in its bounded slots). The EXIF orientation is kept, alone in
a fresh EXIF block: the reader and the pages turn the picture upright by it.

Plain Python, Pillow (for the EXIF block) and numpy, no Django: ``photos.api`` calls it.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np
from PIL import Image

ORIENTATION = 0x0112
# Orientations that turn or mirror the picture (1 is as stored: no EXIF needed).
TURNING = range(2, 9)


class DamagedImage(ValueError):
    """The file's structure cannot be followed (a length past its end, no image data)."""


def without_metadata(data: bytes, image_format: str) -> bytes:
    """``data`` (a ``image_format`` file: "JPEG", "PNG" or "WEBP") with its picture and its
    EXIF orientation only; DamagedImage when its structure cannot be followed."""
    strip = {"JPEG": _jpeg, "PNG": _png, "WEBP": _webp}[image_format]
    try:
        return strip(data)
    except (IndexError, struct.error):
        raise DamagedImage("the file ends inside a segment") from None


def _orientation(tiff_or_exif: bytes) -> int | None:
    """The orientation of an EXIF block (with or without its "Exif\\0\\0"), if it turns."""
    try:
        exif = Image.Exif()
        exif.load(tiff_or_exif)
        value = exif.get(ORIENTATION)
    except Exception:  # a damaged EXIF block: Pillow's exif_transpose ignores it too
        return None
    return value if isinstance(value, int) and value in TURNING else None


def _exif_block(orientation: int) -> bytes:
    """An EXIF block holding the orientation alone, with its "Exif\\0\\0" header."""
    exif = Image.Exif()
    exif[ORIENTATION] = orientation
    return exif.tobytes()


# ------------------------------------------------------------------------------ JPEG

SOI, EOI, SOS = 0xD8, 0xD9, 0xDA
APP0, APP1, APP2, APP14, COM = 0xE0, 0xE1, 0xE2, 0xEE, 0xFE
# Application segments that are part of the picture: JFIF's header, the colour profile,
# Adobe's colour transform. Every other APPn (EXIF, XMP, MPF, maker data, IPTC) and
# comments go.
KEPT_APPLICATION = ((APP0, b"JFIF\0"), (APP2, b"ICC_PROFILE\0"), (APP14, b"Adobe"))


def _jpeg(data: bytes) -> bytes:
    if data[:2] != b"\xff\xd8":
        raise DamagedImage("no JPEG start")
    view = memoryview(data)
    kept: list[bytes | memoryview] = [data[:2]]
    orientation: int | None = None
    seen_exif = False
    position = 2
    markers: _Markers | None = None
    while position < len(data):
        if data[position] != 0xFF:
            raise DamagedImage("a segment does not start with a marker")
        while data[position + 1] == 0xFF:  # fill bytes before a marker
            position += 1
        marker = data[position + 1]
        if marker == EOI:
            kept.append(b"\xff\xd9")  # anything after (an appended picture) goes
            return _with_jpeg_exif(kept, orientation)
        if marker == 0x01 or 0xD0 <= marker <= 0xD7:  # no length
            kept.append(data[position : position + 2])
            position += 2
            continue
        (length,) = struct.unpack(">H", data[position + 2 : position + 4])
        end = position + 2 + length
        if length < 2 or end > len(data):
            raise DamagedImage("a segment runs past the end of the file")
        segment = data[position:end]  # a header segment: at most 64 KiB
        payload = segment[4:]
        if 0xE0 <= marker <= 0xEF or marker == COM:
            exif = marker == APP1 and payload.startswith(b"Exif\0\0")
            if exif and not seen_exif and markers is None:
                # The first EXIF block before the picture: the one readers (and
                # photos.api, which measured the photo by it) turn the picture by.
                seen_exif = True
                orientation = _orientation(payload)
            if any(marker == m and payload.startswith(p) for m, p in KEPT_APPLICATION):
                kept.append(segment)
            position = end
            continue
        kept.append(segment)
        position = end
        if marker == SOS:
            markers = markers or _Markers(data, end)
            position = markers.after(end)
            kept.append(view[end:position])  # the coded picture: never copied on its own
    if markers is None:
        raise DamagedImage("no image data")
    return _with_jpeg_exif(kept, orientation)  # cut short after its image data: kept as sent


class _Markers:
    """Where the markers after scans' coded data start: an 0xFF followed by no stuffed
    zero, no restart marker and no fill byte. Found with numpy once for the whole file
    (from the first scan on), a 15 MB photo in some tens of milliseconds, where a loop of
    ``find`` takes hundreds; each scan then looks its end up."""

    def __init__(self, data: bytes, position: int) -> None:
        coded = np.frombuffer(data, dtype=np.uint8, offset=position)
        candidates = np.flatnonzero(coded[:-1] == 0xFF)
        following = coded[candidates + 1]
        real = (following != 0x00) & ((following < 0xD0) | (following > 0xD7))
        self.positions = candidates[real & (following != 0xFF)] + position
        self.size = len(data)

    def after(self, position: int) -> int:
        """The first marker at or after ``position``, or the file's end."""
        index = int(np.searchsorted(self.positions, position))
        return int(self.positions[index]) if index < len(self.positions) else self.size


def _with_jpeg_exif(kept: list[bytes | memoryview], orientation: int | None) -> bytes:
    if orientation is not None:
        payload = _exif_block(orientation)
        segment = b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload
        # After JFIF's header when there is one (it must come first), else after the start.
        at = 2 if len(kept) > 1 and kept[1][:2] == b"\xff\xe0" else 1
        kept.insert(at, segment)
    return b"".join(kept)


# ------------------------------------------------------------------------------- PNG

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Chunks that make up the picture (PNG 3rd edition, APNG); text (XMP lives there), time,
# EXIF and unknown chunks (C2PA, a maker's) go.
PNG_PICTURE_CHUNKS = frozenset(
    {
        b"IHDR", b"PLTE", b"IDAT", b"IEND", b"tRNS", b"cHRM", b"gAMA", b"iCCP", b"sBIT",
        b"sRGB", b"cICP", b"mDCV", b"cLLI", b"bKGD", b"hIST", b"pHYs", b"sPLT", b"acTL",
        b"fcTL", b"fdAT",
    }
)  # fmt: skip


def _png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _png(data: bytes) -> bytes:
    if not data.startswith(PNG_SIGNATURE):
        raise DamagedImage("no PNG signature")
    kept: list[bytes] = [PNG_SIGNATURE]
    orientation: int | None = None
    pictured = False
    position = len(PNG_SIGNATURE)
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        end = position + 12 + length
        if end > len(data):
            raise DamagedImage("a chunk runs past the end of the file")
        if kind == b"IDAT":
            pictured = True
        if kind == b"eXIf" and orientation is None and not pictured:  # as Pillow reads it
            orientation = _orientation(data[position + 8 : end - 4])
        if kind in PNG_PICTURE_CHUNKS:
            kept.append(data[position:end])
        position = end
        if kind == b"IEND":
            if orientation is not None:  # eXIf before the image data, after the header
                tiff = _exif_block(orientation).removeprefix(b"Exif\0\0")
                kept.insert(2, _png_chunk(b"eXIf", tiff))
            return b"".join(kept)
    raise DamagedImage("no PNG end")


# ------------------------------------------------------------------------------ WebP

# Chunks that make up the picture; EXIF, XMP and unknown chunks go.
WEBP_PICTURE_CHUNKS = frozenset({b"VP8X", b"VP8 ", b"VP8L", b"ALPH", b"ANIM", b"ANMF", b"ICCP"})
VP8X_EXIF, VP8X_XMP = 0x08, 0x04


def _webp_chunk(kind: bytes, body: bytes) -> bytes:
    return kind + struct.pack("<I", len(body)) + body + (b"\0" if len(body) % 2 else b"")


def _webp(data: bytes) -> bytes:
    if data[:4] != b"RIFF" or data[8:12] != b"WEBP":
        raise DamagedImage("no WebP header")
    chunks: list[tuple[bytes, bytes]] = []
    orientation: int | None = None
    position = 12
    while position + 8 <= len(data):
        kind = data[position : position + 4]
        (length,) = struct.unpack("<I", data[position + 4 : position + 8])
        body = data[position + 8 : position + 8 + length]
        if len(body) != length:
            raise DamagedImage("a chunk runs past the end of the file")
        if kind == b"EXIF" and orientation is None:
            orientation = _orientation(body)
        if kind in WEBP_PICTURE_CHUNKS:
            chunks.append((kind, body))
        position += 8 + length + (length % 2)
    if not any(kind in (b"VP8 ", b"VP8L", b"ANMF") for kind, _ in chunks):
        raise DamagedImage("no image data")
    extended = chunks[0][0] == b"VP8X"
    if extended:
        flags = chunks[0][1][0] & ~(VP8X_EXIF | VP8X_XMP)
        if orientation is not None:
            flags |= VP8X_EXIF
        chunks[0] = (b"VP8X", bytes([flags]) + chunks[0][1][1:])
        if orientation is not None:  # after the image data, as the format places it
            chunks.append((b"EXIF", _exif_block(orientation).removeprefix(b"Exif\0\0")))
    body = b"WEBP" + b"".join(_webp_chunk(kind, content) for kind, content in chunks)
    return b"RIFF" + struct.pack("<I", len(body)) + body
