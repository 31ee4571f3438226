"""After a round, the results can be shared as text: the phone's share sheet where there is
one, else the clipboard (static/js/room/share-results.js)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import PHONE, start_solo_round, watch_errors

pytestmark = pytest.mark.browser

# A share sheet that keeps what it was given, as a phone's would send it on.
FAKE_SHARE_SHEET = (
    "window.shared = []; navigator.share = async (data) => { window.shared.push(data); };"
)


def test_the_results_are_shared_as_a_text_summary(site, browser) -> None:
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    context.add_init_script(FAKE_SHARE_SHEET)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        code, found = start_solo_round(page, site.url, "Sasha")
        site.end_round_now(code)
        expect(page.locator("#results-panel")).to_be_visible(timeout=10_000)
        page.get_by_role("button", name="Share the results").click()
        page.wait_for_function("window.shared.length === 1")
        text = page.evaluate("window.shared[0].text")
        first = found[0].word.upper()
        assert text.splitlines()[0].startswith("Boggle, round 1 (4x4): ")
        assert f"1. Sasha: {found[0].points} pts (1 word, best {first})" in text
        assert "The board had" in text
        assert errors == []
    finally:
        context.close()


def test_without_a_share_sheet_the_results_are_copied(site, browser) -> None:
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    context.add_init_script("delete Navigator.prototype.share;")
    try:
        page = context.new_page()
        code, _ = start_solo_round(page, site.url, "Kim")
        site.end_round_now(code)
        expect(page.locator("#results-panel")).to_be_visible(timeout=10_000)
        page.get_by_role("button", name="Share the results").click()
        expect(page.locator(".share-results-status")).to_have_text("Results copied ✓")
        assert "1. Kim: " in page.evaluate("navigator.clipboard.readText()")
    finally:
        context.close()
