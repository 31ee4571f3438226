"""What bin/start prints: the address phones open, and a QR code of it that scans."""

from __future__ import annotations

import re

import cv2
import numpy as np
import pytest

from web import start_banner

LIGHT = {"█": (1, 1), "▀": (1, 0), "▄": (0, 1), " ": (0, 0)}  # colour=False: block = light
DARK = {" ": (0, 0), "▀": (1, 0), "▄": (0, 1), "█": (1, 1)}  # colour=True: block = dark


def decode(qr: str, colour: bool) -> str:
    """Read the drawn QR code back with OpenCV, as a phone's camera would."""
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in qr.splitlines()]
    pixels = []
    for line in lines:
        top, bottom = [], []
        for char in line:
            upper, lower = (DARK if colour else LIGHT)[char]
            # 255 = white paper: a light module, or (colour) a cell without the dark block.
            top.append(0 if upper == colour else 255)
            bottom.append(0 if lower == colour else 255)
        pixels += [top, bottom]
    image = np.array(pixels, dtype=np.uint8)
    bordered = cv2.copyMakeBorder(image, 4, 4, 4, 4, cv2.BORDER_CONSTANT, value=255)
    scaled = cv2.resize(bordered, None, fx=10, fy=10, interpolation=cv2.INTER_NEAREST)
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(scaled)
    return text


@pytest.mark.parametrize("colour", [False, True])
def test_banner_gives_the_lan_address_and_a_qr_code_of_it(colour: bool) -> None:
    text = start_banner.banner("0.0.0.0", "8000", lan_host="192.168.1.20", colour=colour)
    assert "http://192.168.1.20:8000/" in text
    assert "http://127.0.0.1:8000/" in text  # for the laptop's own browser
    qr_lines = [line for line in text.splitlines() if set(line) & set("▀▄█")]
    assert decode("\n".join(qr_lines), colour) == "http://192.168.1.20:8000/"


def test_local_only_says_phones_cannot_reach_it() -> None:
    text = start_banner.banner("127.0.0.1", "8000")
    assert "this machine only" in text and "█" not in text


def test_a_specific_address_is_the_one_given() -> None:
    text = start_banner.banner("10.0.0.5", "9000")
    assert "http://10.0.0.5:9000/" in text
