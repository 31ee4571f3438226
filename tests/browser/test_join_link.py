"""On a games night the host's laptop opens the site on 127.0.0.1, and phones at the table
scan the QR code: it must lead them to the laptop's address on the Wi-Fi, where they play.

The laptop and the phone are machines of a simulated Wi-Fi (``netlab``): each has only
loopback and its Wi-Fi interface, the site runs on the laptop as ``bin/start`` runs it
(every address, the embedded default) and finds the laptop's address itself, and each
browser runs on its own machine. Nothing reaches this machine's real network.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest
from playwright.sync_api import Browser, expect, sync_playwright

from netlab import Host, SimulatedWifi
from solver import dictionaries
from tests.browser.helpers import (
    CHROMIUM_ARGS,
    DESKTOP,
    PHONE,
    board_faces,
    create_room,
    join_room,
    my_word,
    type_word,
    wait_until_playing,
    watch_errors,
    words_on,
)
from tests.servers import SiteServer
from web import network

pytestmark = pytest.mark.browser


@pytest.fixture
def laptop_site(wifi: SimulatedWifi, tmp_path: Path) -> Iterator[tuple[SiteServer, Host]]:
    """The embedded default as bin/start serves it (every address), on the laptop."""
    dictionaries.build("english")  # compiled here once, not by the server mid-round
    laptop = wifi.add_host("laptop")
    with SiteServer(tmp_path, bind="0.0.0.0", host=laptop).running() as server:
        yield server, laptop


def browser_on(playwright, host: Host, chromium_path: str, directory: Path) -> Browser:
    """Chromium running on ``host`` (its own network namespace)."""
    executable = host.wrapper(chromium_path, directory)
    return playwright.chromium.launch(executable_path=str(executable), args=CHROMIUM_ARGS)


def read_qr(png: bytes) -> str:
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)
    assert image is not None, "the screenshot is no PNG"
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(image)
    return text


def test_qr_code_seen_on_loopback_leads_phones_to_the_laptop(
    wifi: SimulatedWifi, laptop_site: tuple[SiteServer, Host], chromium_path: str, tmp_path: Path
) -> None:
    server, laptop = laptop_site
    phone_host = wifi.add_host("phone")
    with sync_playwright() as playwright:
        laptop_browser = browser_on(playwright, laptop, chromium_path, tmp_path)
        phone_browser = browser_on(playwright, phone_host, chromium_path, tmp_path)
        try:
            host_page = laptop_browser.new_context(viewport=DESKTOP).new_page()
            errors = watch_errors(host_page)
            # The laptop's own browser, on loopback: the address the host sees in the bar.
            code = create_room(host_page, server.url_on_its_machine, "Host")
            expected = f"http://{laptop.address}:{server.port}/r/{code}/"

            scanned = read_qr(host_page.locator("#qr-big svg").screenshot())
            assert scanned == expected
            expect(host_page.locator("#join-link")).to_have_value(expected)
            assert not network.is_loopback(network.split_host(scanned.split("/")[2])[0])

            # The phone opens what it scanned, over the Wi-Fi, websockets included.
            phone = phone_browser.new_context(
                viewport=PHONE, has_touch=True, is_mobile=True
            ).new_page()
            phone_errors = watch_errors(phone)
            join_room(phone, scanned, "Phone")
            expect(phone.locator("#connection")).to_have_attribute("data-status", "open")
            expect(host_page.locator("#players")).to_contain_text("Phone")

            # And plays: the host starts a round, the phone's word is judged by the laptop.
            host_page.locator("#start-round").click()
            wait_until_playing(phone)
            word = words_on(board_faces(phone))[0].word
            type_word(phone, word)
            expect(my_word(phone, word)).to_be_visible()
            assert not errors and not phone_errors, (errors, phone_errors)
        finally:
            laptop_browser.close()
            phone_browser.close()
