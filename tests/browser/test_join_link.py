"""On a games night the host's laptop opens the site on 127.0.0.1, and phones at the table
scan the QR code: it must lead them to the laptop's network address, where they can play."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest
from playwright.sync_api import expect

from boggle_site import network
from tests.browser.helpers import DESKTOP, PHONE, create_room, join_room, watch_errors
from tests.servers import SiteServer

pytestmark = pytest.mark.browser


@pytest.fixture
def lan_site(chromium_path: str, tmp_path: Path) -> Iterator[tuple[SiteServer, str]]:
    """The embedded default as bin/start serves it: every address of this machine."""
    address = network.best_lan_address()
    if address is None:
        pytest.skip("this machine has no network address besides loopback")
    server = SiteServer(tmp_path, bind="0.0.0.0")
    server.migrate()
    server.start()
    try:
        yield server, address
    finally:
        server.stop()


def read_qr(png: bytes) -> str:
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(image)
    return text


def test_qr_code_seen_on_loopback_leads_phones_to_the_laptop(browser, lan_site) -> None:
    server, address = lan_site
    laptop = browser.new_context(viewport=DESKTOP)
    phone = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    try:
        host_page = laptop.new_page()
        errors = watch_errors(host_page)
        code = create_room(host_page, server.url, "Host")  # http://127.0.0.1:<port>
        expected = f"http://{address}:{server.port}/r/{code}/"

        scanned = read_qr(host_page.locator("#qr-big svg").screenshot())
        assert scanned == expected
        expect(host_page.locator("#join-link")).to_have_value(expected)
        assert not network.is_loopback(network.split_host(scanned.split("/")[2])[0])

        # The phone opens what it scanned: the laptop's address, websockets included.
        phone_page = phone.new_page()
        errors += watch_errors(phone_page)
        join_room(phone_page, scanned, "Phone")
        expect(phone_page.locator("#connection")).to_have_attribute("data-status", "open")
        expect(host_page.locator("#players")).to_contain_text("Phone")
        assert not errors, errors
    finally:
        laptop.close()
        phone.close()
