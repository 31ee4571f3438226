"""The shrinking clock and a word theme in real browsers (static/js/room/settings.js,
word-theme.js, format.js, play.js, results.js, table/main.js).

Ann hosts on a 360 px phone, Bob plays on another, a table screen watches. Ann picks
3-minute rounds that shrink by 30 s down to 1 min, and palindromes only (after a look at a
letter theme and a theme list); Bob's lobby summary says so, and the next round's length.
On a typed board rich in palindromes the round shows its theme (the table screen too) and
the next round's length, a palindrome counts and another word is "not a palindrome"; the
results and the second round follow the clock (2:30, then "Next round: 2:00"). The lobby
with the new controls passes axe-core.

Screenshots (BOGGLE_SCREENSHOT_DIR): clock-theme-letter.png, clock-theme-list.png,
clock-theme-lobby-host.png, clock-theme-lobby-guest.png, clock-theme-round.png,
clock-theme-results.png.
"""

from __future__ import annotations

import re
import sqlite3
from datetime import UTC, datetime

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import (
    SHARP_PHONE,
    TABLE_SCREEN,
    OpenRoom,
    my_word,
    overflowing,
    screenshot,
    small_targets,
    type_board,
    type_word,
    wait_until_playing,
    watch_errors,
)
from tests.browser.test_accessibility import serious_violations

pytestmark = pytest.mark.browser

# A classic roll rich in palindromes: rotor, toot, stats, otto, sis, sos, tot, tat...
TYPED = "irstssotrtaoeerh"
ROUND_WAIT_MS = 30_000
# A theme list staff made (the admin's ThemeList), for the host's menu.
ANIMALS = "animals-browser-test"


def add_theme_list(site) -> None:
    """As staff would in the admin: a theme list the rooms may choose."""
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    with sqlite3.connect(site.db_path, timeout=10) as db:
        db.execute(
            "INSERT OR IGNORE INTO dictionaries_themelist "
            "(name, title, language, words, enabled, created_at, updated_at) "
            "VALUES (?, 'Animals', 'en', 'cat\ndog', 1, ?, ?)",
            (ANIMALS, now, now),
        )


def saved(page: Page) -> None:
    expect(page.locator("#settings-status")).to_have_text("Saved ✓")


def choose_clock_and_theme(host: Page, guest: Page) -> None:
    form = host.locator("#settings-form")
    floor = form.get_by_label("Down to")
    expect(floor).to_be_hidden()  # no shrinking yet
    form.get_by_label("Round length").select_option(label="3 min")
    saved(host)
    # Thirty seconds less, written with a minus sign (U+2212) as the menu writes it.
    form.get_by_label("Shrinking clock").select_option(label="\u221230 s")
    expect(floor).to_be_visible()
    saved(host)
    floor.select_option(label="1 min")
    saved(host)
    expect(form.locator("#setting-next-round")).to_have_text(
        "Each round 30 s shorter, down to 1 min. Next round: 3:00"
    )

    letter = form.get_by_label("Letter")
    expect(letter).to_be_hidden()
    form.get_by_label("Word theme").select_option(label="With a letter")
    expect(letter).to_be_visible()
    expect(letter).to_have_value("E")  # a letter rule starts with one
    saved(host)
    expect(guest.locator("#settings-summary")).to_contain_text("words containing E")
    form.locator(".word-theme").scroll_into_view_if_needed()
    screenshot(host, "clock-theme-letter")
    form.get_by_label("Word theme").select_option(label="From a theme list")
    expect(letter).to_be_hidden()
    expect(form.get_by_label("Theme list")).to_have_value(ANIMALS)
    saved(host)
    expect(guest.locator("#settings-summary")).to_contain_text("words from the theme list Animals")
    screenshot(host, "clock-theme-list")
    form.get_by_label("Word theme").select_option(label="Palindromes only")
    expect(form.get_by_label("Theme list")).to_be_hidden()
    saved(host)

    summary = guest.locator("#settings-summary")
    expect(summary).to_contain_text("palindromes only")
    expect(summary).to_contain_text("Each round 30 s shorter, down to 1 min")
    expect(summary).to_contain_text(re.compile(r"Next round\s*3:00"))


def test_a_shrinking_clock_and_palindromes_on_a_phone(site, host_and_guest: OpenRoom) -> None:
    add_theme_list(site)
    room = host_and_guest(host_device=SHARP_PHONE)
    ann, bob, code = room.host, room.guest, room.code
    table = room.new_context(viewport=TABLE_SCREEN).new_page()
    errors = [room.host_errors, room.guest_errors, watch_errors(table)]
    table.goto(f"{site.url}/r/{code}/table/")

    choose_clock_and_theme(ann, bob)
    ann.locator("#settings-card").scroll_into_view_if_needed()
    assert overflowing(ann) == []
    assert small_targets(ann) == []
    assert serious_violations(ann) == []
    ann.locator(".shrink-clock").scroll_into_view_if_needed()
    screenshot(ann, "clock-theme-lobby-host")
    bob.locator("#settings-summary").scroll_into_view_if_needed()
    screenshot(bob, "clock-theme-lobby-guest")
    assert serious_violations(bob) == []

    type_board(ann, TYPED)
    ann.locator("#start-round").click()
    for page in (ann, bob):
        wait_until_playing(page, timeout=ROUND_WAIT_MS)
        expect(page.locator("#round-theme")).to_have_text("Theme: palindromes only")
        expect(page.locator("#round-next")).to_have_text("Next round: 2:30")
        expect(page.locator("#timer-value")).to_have_text(re.compile(r"^(3:00|2:5\d)$"))
    expect(table.locator("#table-round-rules")).to_contain_text("Theme: palindromes only")

    type_word(bob, "rotor")
    expect(my_word(bob, "rotor")).to_be_visible()
    type_word(bob, "roster")
    expect(bob.locator("#verdict")).to_contain_text("ROSTER: not a palindrome")
    expect(my_word(bob, "roster", "bad")).to_contain_text("not a palindrome")
    assert overflowing(bob) == []
    bob.evaluate("() => window.scrollTo(0, 0)")
    screenshot(bob, "clock-theme-round")
    bob.wait_for_timeout(300)  # the verdict's pop and colours settle before axe looks
    assert serious_violations(bob) == []

    site.end_round_now(code)
    for page in (ann, bob):
        expect(page.locator("#results-title")).to_have_text(
            "Round 1 results", timeout=ROUND_WAIT_MS
        )
        expect(page.locator("#next-length")).to_have_text("Next round: 2:30")
    refused = bob.locator('#results-body li.chip.rejected[data-word="roster"]')
    expect(refused).to_contain_text("not a palindrome")
    bob.evaluate("() => window.scrollTo(0, 0)")
    screenshot(bob, "clock-theme-results")

    # The second round is 30 s shorter, and says the next one is shorter still.
    ann.locator("#next-round").click()
    wait_until_playing(bob, timeout=ROUND_WAIT_MS)
    expect(bob.locator("#round-next")).to_have_text("Next round: 2:00")
    expect(bob.locator("#timer-value")).to_have_text(re.compile(r"^(2:30|2:[0-2]\d)$"))
    for page_errors in errors:
        assert page_errors == []
