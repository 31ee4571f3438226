"""A locked room in real browsers: the host locks it, a newcomer's phone waits for the
host's yes, and joins the moment the host lets it in."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import (
    create_room,
    overflowing,
    phone_context,
    screenshot,
    small_targets,
    watch_errors,
)

pytestmark = pytest.mark.browser


def test_a_newcomer_waits_until_the_host_lets_them_in(site, browser) -> None:
    """Ann (host, phone) locks the room; Dan's phone asks to join and sees the waiting
    screen; Ann sees Dan at the top of her lobby with "Let in" and "Refuse", lets him in,
    and Dan's phone goes to the lobby as a player. Both fit a 360 px screen."""
    ann_context, dan_context = phone_context(browser), phone_context(browser)
    try:
        ann, dan = ann_context.new_page(), dan_context.new_page()
        ann_errors, dan_errors = watch_errors(ann), watch_errors(dan)
        code = create_room(ann, site.url, "Ann")

        lock = ann.locator("#lock-room")
        expect(lock).to_have_attribute("aria-pressed", "false")
        lock.click()
        expect(lock).to_have_attribute("aria-pressed", "true")
        expect(lock).to_contain_text("Room locked")

        dan.goto(f"{site.url}/r/{code}/")
        expect(dan.locator("#join-locked")).to_be_visible()
        dan.get_by_label("Your nickname").fill("Dan")
        screenshot(dan, "locked-join-form")
        dan.get_by_role("button", name="Ask to join").click()
        expect(dan.locator("#waiting-panel")).to_be_visible()
        expect(dan.locator("#waiting-title")).to_have_text("Waiting for the host to let you in")
        expect(dan.locator("#waiting-nickname")).to_have_text("Dan")
        expect(dan.locator("#game")).to_be_hidden()

        request = ann.locator("#waiting-requests")
        expect(request).to_be_visible()
        expect(request.locator(".waiting-person")).to_have_count(1)
        expect(request.locator(".waiting-person .nickname")).to_have_text("Dan")
        expect(request.get_by_role("button", name="Refuse Dan")).to_be_visible()
        # Ann is still down at the players list: the request stays in view there.
        expect(request).to_be_in_viewport()
        screenshot(ann, "locked-host-scrolled")
        ann.evaluate("window.scrollTo(0, 0)")
        for page, name in ((ann, "locked-host-lobby"), (dan, "locked-newcomer-waiting")):
            assert overflowing(page) == [], name
            assert small_targets(page) == [], name
            screenshot(page, name)

        # A reload of the waiting page keeps waiting (the browser's session knows it).
        dan.reload()
        expect(dan.locator("#waiting-panel")).to_be_visible()

        request.get_by_role("button", name="Let in: Dan").click()
        expect(dan.locator("#lobby-panel")).to_be_visible()
        expect(dan.locator("#waiting-panel")).to_be_hidden()
        expect(request).to_be_hidden()
        for page in (ann, dan):
            expect(page.locator("#players .player")).to_have_count(2)
            expect(
                page.locator("#players .player", has_text="Dan").locator(".presence")
            ).to_have_text("online")
        expect(dan.locator("#room-lock")).to_contain_text("Locked")
        screenshot(dan, "locked-newcomer-let-in")
        assert ann_errors == [] and dan_errors == []
    finally:
        ann_context.close()
        dan_context.close()
