"""The pages meet their own Content Security Policy (web.csp): the browser refuses
nothing on the start page, the join form, the lobby, a round and its results."""

from __future__ import annotations

import urllib.request

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import DESKTOP, start_solo_round, watch_errors

pytestmark = pytest.mark.browser


def test_pages_meet_the_content_security_policy(site, browser) -> None:
    with urllib.request.urlopen(site.url + "/") as response:
        assert "script-src 'self'" in response.headers["Content-Security-Policy"]
    host_context = browser.new_context(viewport=DESKTOP)
    guest_context = browser.new_context(viewport=DESKTOP)
    try:
        host, guest = host_context.new_page(), guest_context.new_page()
        errors = watch_errors(host)
        guest_errors = watch_errors(guest)
        host.goto(site.url + "/")
        expect(host.get_by_role("button", name="Create room")).to_be_visible()
        # Lobby (players' avatars), a round over the websocket, then the results' bars.
        code, _ = start_solo_round(host, site.url, "Ann")
        guest.goto(f"{site.url}/r/{code}/")
        expect(guest.locator("#join-panel")).to_be_visible()
        site.end_round_now(code)
        expect(host.locator("#results-panel")).to_be_visible()
        expect(host.locator(".share-bar").first).to_be_attached()
        # The refused-style case must be exercised, or this test proves nothing for it.
        assert host.locator(".avatar[style]").count() > 0

        refused = [e for e in errors + guest_errors if "Content Security Policy" in e]
        assert refused == []
        assert errors == [] and guest_errors == []
    finally:
        host_context.close()
        guest_context.close()
