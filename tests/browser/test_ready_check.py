"""The ready check (issue 32): with the room's "Ready check before each round" on, every
player's page shows "Ready?" over the face-down board once the round's board is in; the
countdown starts when every online player is ready, or when the host starts it anyway
("Start now"). The table screen says whom the room waits for.

Screenshots (BOGGLE_SCREENSHOT_DIR, as every one): ready-check-*.png.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import (
    TABLE_SCREEN,
    TOUCH_PHONE,
    OpenRoom,
    join_room,
    overflowing,
    screenshot,
    small_targets,
    wait_until_playing,
    watch_errors,
)
from tests.browser.test_accessibility import serious_violations

pytestmark = pytest.mark.browser

CONCEALED = re.compile(r"\bconcealed\b")
# Solving the board and the round's events, on a busy machine.
ROUND_WAIT_MS = 30_000


def shot(page: Page, name: str) -> None:
    screenshot(page, f"ready-check-{name}")


def player_row(page: Page, nickname: str):
    return page.locator("#players .player").filter(has_text=nickname)


def turn_ready_check_on(host: Page, player: Page) -> None:
    """The host ticks the setting; the player's summary of the settings says it."""
    host.get_by_label("Ready check before each round").check()
    expect(host.locator("#settings-status")).to_have_text("Saved ✓")
    expect(player.locator("#settings-summary")).to_contain_text("before each round")


def ready_panel(page: Page):
    return page.locator("#ready-panel")


def see_ready_check(page: Page) -> None:
    """The page shows "Ready?" over the board it has drawn (dice face down), no countdown."""
    expect(page.get_by_role("heading", name="Ready?")).to_be_visible(timeout=ROUND_WAIT_MS)
    expect(page.locator("#play-board .die")).to_have_count(16)
    expect(page.locator("#play-board .board")).to_have_class(CONCEALED)
    expect(page.locator("#timer")).to_have_attribute("data-phase", "preparing")
    expect(page.locator("#countdown")).to_be_hidden()
    expect(page.locator("#entry")).to_be_disabled()


def test_the_round_starts_when_everyone_is_ready(site, host_and_guest: OpenRoom) -> None:
    """Ann (host, laptop) and Bob (phone) see "Ready?"; Ann is ready by keyboard and her page
    waits for Bob, whose page and the table screen show Ann ready; Bob is ready: the
    countdown starts on both, then the round."""
    room = host_and_guest()
    ann, bob, code = room.host, room.guest, room.code
    table = room.new_context(viewport=TABLE_SCREEN).new_page()
    errors = [room.host_errors, room.guest_errors, watch_errors(table)]
    turn_ready_check_on(ann, bob)
    table.goto(f"{site.url}/r/{code}/table/")
    expect(table.locator("#table-connection")).to_have_attribute("data-status", "open")

    ann.locator("#start-round").click()
    see_ready_check(ann)
    see_ready_check(bob)
    # The timer says how many are ready.
    expect(ann.locator("#timer-label")).to_have_text("Ready")
    expect(ann.locator("#timer-value")).to_have_text("0/2")
    # Only the host may start without waiting.
    expect(ann.get_by_role("button", name="Start now")).to_be_visible()
    expect(bob.get_by_role("button", name="Start now")).to_be_hidden()
    expect(player_row(bob, "Ann").locator(".badge.not-ready")).to_have_text("not ready")
    countdown = table.locator("#table-countdown")
    expect(countdown).to_contain_text("Ready?")
    expect(countdown).to_contain_text("Waiting for: Ann and Bob")
    # The phone's panel fits the screen: nothing past its sides, big enough to tap.
    assert overflowing(bob) == []
    assert small_targets(bob) == []
    panel = ready_panel(bob).bounding_box()
    assert panel is not None and panel["y"] >= 0 and panel["y"] + panel["height"] <= 640, panel
    shot(bob, "1-phone")
    shot(ann, "2-laptop-host")
    assert serious_violations(bob) == []
    assert serious_violations(ann) == []

    # Ann answers by keyboard: the button has the focus when the panel shows.
    ready = ann.get_by_role("button", name="I'm ready")
    expect(ready).to_be_focused()
    ann.keyboard.press("Enter")
    expect(ready).to_be_hidden()
    expect(ready_panel(ann)).to_contain_text("You're ready")
    expect(ann.locator("#ready-status")).to_have_text("Waiting for Bob…")
    expect(ann.get_by_role("button", name="Start now")).to_be_visible()

    # Bob's page and the table screen show Ann ready; the round still waits for Bob.
    expect(bob.locator("#ready-status")).to_have_text("Ready: Ann.")
    expect(player_row(bob, "Ann").locator(".badge.ready")).to_have_text("✓ ready")
    expect(player_row(bob, "Bob").locator(".badge.not-ready")).to_be_visible()
    expect(countdown).to_contain_text("Waiting for: Bob")
    expect(countdown).to_contain_text("Ready: Ann.")
    expect(bob.locator("#timer")).to_have_attribute("data-phase", "preparing")
    expect(bob.locator("#timer-value")).to_have_text("1/2")
    expect(table.locator("#table-timer-value")).to_have_text("1/2")
    expect(bob.get_by_role("button", name="I'm ready")).to_be_visible()
    shot(bob, "3-phone-ann-ready")
    shot(ann, "4-laptop-waiting-for-bob")
    shot(table, "5-table-waiting-for-bob")

    bob.get_by_role("button", name="I'm ready").tap()
    for page in (ann, bob):
        wait_until_playing(page, timeout=ROUND_WAIT_MS)
        expect(ready_panel(page)).to_be_hidden()
        expect(page.locator("#play-board .board")).not_to_have_class(CONCEALED)
    expect(table.locator("#table-timer")).to_have_attribute("data-phase", "playing")
    expect(player_row(bob, "Ann").locator(".badge.ready")).to_have_count(0)
    assert errors == [[], [], []]


def test_the_host_starts_without_waiting(host_and_guest: OpenRoom) -> None:
    """Bob (phone) is ready and waits for Ann and Cleo; Cleo never says she is: Ann's
    "Start now" starts the round on every page."""
    room = host_and_guest()
    ann, bob = room.host, room.guest
    cleo = room.new_context(**TOUCH_PHONE).new_page()
    pages = (ann, bob, cleo)
    errors = [room.host_errors, room.guest_errors, watch_errors(cleo)]
    join_room(cleo, room.link, "Cleo")
    turn_ready_check_on(ann, bob)

    ann.locator("#start-round").click()
    for page in pages:
        see_ready_check(page)
    bob.get_by_role("button", name="I'm ready").tap()
    expect(ready_panel(bob)).to_contain_text("You're ready")
    expect(bob.locator("#ready-status")).to_have_text("Waiting for Ann and Cleo…")
    expect(cleo.locator("#ready-status")).to_have_text("Ready: Bob.")
    shot(bob, "6-phone-waiting")

    ann.get_by_role("button", name="Start now").click()
    for page in pages:
        wait_until_playing(page, timeout=ROUND_WAIT_MS)
        expect(ready_panel(page)).to_be_hidden()
    assert errors == [[], [], []]
