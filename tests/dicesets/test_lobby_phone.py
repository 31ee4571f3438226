"""The dice set in the lobby on a phone: the host starts "Grandma's French set", turns
learning off and goes back to the usual dice from the settings card, then turns learning on
again, which gives the room a set of its own; another player sees each change at once.
Nothing overflows a 360 px screen."""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import browser, chromium_path, site  # noqa: F401 (fixtures)
from tests.browser.helpers import PHONE, create_room, join_room, overflowing, watch_errors

pytestmark = pytest.mark.browser

# Where these tests' screenshots go, to be looked at (never into the repository).
SHOT_DIR = os.environ.get("BOGGLE_UI_SHOTS", "")


def shot(page, name: str) -> None:
    if SHOT_DIR:
        page.screenshot(path=f"{SHOT_DIR}/{name}.png", animations="disabled")
        page.locator("#settings-card").screenshot(
            path=f"{SHOT_DIR}/{name}-settings.png", animations="disabled"
        )


def phone(browser):  # noqa: F811 (the fixture's name)
    return browser.new_context(
        viewport=PHONE, has_touch=True, is_mobile=True, device_scale_factor=2
    )


def test_host_starts_and_chooses_a_dice_set_on_a_phone(site, browser) -> None:  # noqa: F811
    host_context, guest_context = phone(browser), phone(browser)
    try:
        page = host_context.new_page()
        errors = watch_errors(page)
        code = create_room(page, site.url, "Ann")
        box = page.locator("#photo-set-settings")
        select = box.get_by_label("Dice set in the photos")
        learn = box.get_by_label("Help the reader learn this set")
        expect(select).to_be_visible()
        expect(select.locator("option:checked")).to_have_text("The usual dice")
        expect(learn).to_be_checked()  # the embedded default learns, and says so
        # ... into a set of the room's own, never the usual dice (issue 48)
        expect(box).to_contain_text("will start this room's own set")
        shot(page, "dicesets-lobby-phone")

        guest = guest_context.new_page()
        guest_errors = watch_errors(guest)
        join_room(guest, f"{site.url}/r/{code}/", "Bob")
        summary = guest.locator("#settings-summary")
        expect(summary).to_contain_text("The usual dice")

        select.select_option(label="Start a new set…")
        name = box.get_by_label("Name of the new set")
        expect(name).to_be_visible()
        expect(name).to_be_focused()
        shot(page, "dicesets-new-set-phone")
        name.fill("Grandma's French set")
        box.get_by_role("button", name="Start").click()
        expect(select.locator("option:checked")).to_have_text("Grandma's French set")
        expect(name).to_be_hidden()
        expect(page.locator("#settings-status")).to_have_text("Saved ✓")
        expect(summary).to_contain_text("Grandma's French set")
        expect(summary).to_contain_text("from confirmed photos")
        shot(page, "dicesets-chosen-phone")

        learn.uncheck()
        learning = summary.locator("dd.photo-set-line").last
        expect(learning).to_have_text("off")
        # Another setting redraws the summary: the dice set's lines stay in it.
        page.get_by_label("Round length").select_option(label="1 min")
        expect(summary).to_contain_text("1 min")
        expect(learning).to_have_text("off")
        select.select_option(label="The usual dice")
        expect(summary).to_contain_text("The usual dice")
        expect(select.locator("option")).to_have_count(3)  # usual, Grandma's, start new
        page.reload()
        expect(select.locator("option:checked")).to_have_text("The usual dice")
        expect(learn).not_to_be_checked()
        # Learning turned on again on the usual dice: the room gets a set of its own.
        learn.check()
        expect(select.locator("option:checked")).to_have_text(f"Dice of room {code}")
        expect(box).to_contain_text("Nothing learnt yet")
        expect(summary).to_contain_text(f"Dice of room {code}")

        for viewer in (page, guest):
            assert overflowing(viewer) == []
        shot(guest, "dicesets-guest-phone")
        assert errors == [] and guest_errors == []
    finally:
        host_context.close()
        guest_context.close()


def test_a_refused_name_says_why(site, browser) -> None:  # noqa: F811
    context = phone(browser)
    try:
        page = context.new_page()
        create_room(page, site.url, "Ann")
        box = page.locator("#photo-set-settings")
        box.get_by_label("Dice set in the photos").select_option(label="Start a new set…")
        box.get_by_label("Name of the new set").fill("!!!")
        box.get_by_role("button", name="Start").click()
        expect(page.locator("#settings-status")).to_contain_text("a letter or a digit")
    finally:
        context.close()
