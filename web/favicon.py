"""``/favicon.ico``: browsers and crawlers ask for it whatever the pages link to. It is
built once per process from the app icon in static (an ICO may hold a PNG as it is), so
there is no binary to keep in step with the SVG and PNG icons."""

from __future__ import annotations

import functools
import struct

from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

SOURCE = "img/icon-192.png"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
ONE_DAY = 24 * 3600


@functools.cache
def favicon_bytes() -> bytes:
    """An ICO file with one image, the static PNG icon (ICONDIR, ICONDIRENTRY, PNG)."""
    path = finders.find(SOURCE)
    assert isinstance(path, str), f"static file {SOURCE} is missing"
    with open(path, "rb") as source:
        png = source.read()
    assert png.startswith(PNG_SIGNATURE), f"{SOURCE} is not a PNG"
    width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk
    # In an ICO entry a size of 0 means 256 pixels; larger images do not fit the format.
    assert width <= 256 and height <= 256, f"{SOURCE} is larger than 256 px"
    header = struct.pack("<HHH", 0, 1, 1)  # reserved, type 1 (icon), one image
    entry = struct.pack("<BBBBHHII", width % 256, height % 256, 0, 0, 1, 32, len(png), 6 + 16)
    return header + entry + png


@require_safe
@cache_control(public=True, max_age=ONE_DAY)
def favicon(request: HttpRequest) -> HttpResponse:
    return HttpResponse(favicon_bytes(), content_type="image/x-icon")
