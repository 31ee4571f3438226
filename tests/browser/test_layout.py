"""Every page fits a 360x640 phone with no sideways scrolling and 44 px touch targets,
and fits a laptop too. With BOGGLE_SCREENSHOT_DIR set (docs/screenshots) it also saves a
screenshot of each page at both sizes."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import (
    DESKTOP,
    PHONE,
    board_faces,
    create_room,
    drag_word,
    join_room,
    my_word,
    overflowing,
    screenshot,
    small_targets,
    tap_word,
    type_word,
    wait_until_playing,
    watch_errors,
    words_on,
)

pytestmark = pytest.mark.browser


def check_fits(page, name: str, phone: bool) -> None:
    assert overflowing(page) == [], f"{name}: wider than the screen"
    if phone:
        assert small_targets(page) == [], f"{name}: touch targets under 44 px"


def test_every_page_fits_a_phone_and_a_laptop(site, browser) -> None:
    """Home, join form, lobby, round and results at 360x640 (phone) and 1280x860."""
    host_context = browser.new_context(viewport=DESKTOP)
    phone_context = browser.new_context(
        viewport=PHONE, has_touch=True, is_mobile=True, device_scale_factor=2
    )
    try:
        host, phone = host_context.new_page(), phone_context.new_page()
        errors = [watch_errors(host), watch_errors(phone)]

        phone.goto(site.url + "/")
        check_fits(phone, "home (phone)", True)
        screenshot(phone, "home-phone")
        host.goto(site.url + "/")
        check_fits(host, "home (laptop)", False)
        screenshot(host, "home-desktop")

        code = create_room(host, site.url, "Ann")
        phone.goto(f"{site.url}/r/{code}/")
        expect(phone.locator("#join-panel")).to_be_visible()
        check_fits(phone, "join form (phone)", True)
        screenshot(phone, "join-phone")
        join_room(phone, f"{site.url}/r/{code}/", "Bob")
        expect(host.locator("#players .player")).to_have_count(2)
        check_fits(phone, "lobby (phone)", True)
        check_fits(host, "lobby (laptop)", False)
        screenshot(phone, "lobby-phone")
        screenshot(host, "lobby-desktop")

        host.locator("#start-round").click()
        wait_until_playing(host)
        wait_until_playing(phone)
        words = [w for w in words_on(board_faces(host)) if len(w.path) >= 3]
        for word in words[:4]:
            type_word(host, word.word)
            expect(my_word(host, word.word)).to_be_visible()
        type_word(host, "zzyzx")
        drag_word(phone, words[0].path, touch=True)
        expect(my_word(phone, words[0].word)).to_be_visible()
        tap_word(phone, words[4].path)
        expect(my_word(phone, words[4].word)).to_be_visible()
        # A word being spelled: the path lights up, numbered.
        for cell in words[5].path[:3]:
            phone.locator(f'#play-board .die[data-cell="{cell}"]').tap()
        expect(phone.locator("#play-board .die.on")).to_have_count(3)
        check_fits(phone, "round (phone)", True)
        check_fits(host, "round (laptop)", False)
        screenshot(phone, "round-phone")
        screenshot(host, "round-desktop")

        host.locator("#end-round").click()
        host.locator("#end-round").click()
        expect(phone.locator("#results-panel")).to_be_visible()
        expect(host.locator("#results-panel")).to_be_visible()
        host.locator(f'.player-words .chip-button[data-word="{words[1].word}"]').click()
        phone.locator(f'.player-words .chip-button[data-word="{words[0].word}"]').first.click()
        check_fits(phone, "results (phone)", True)
        check_fits(host, "results (laptop)", False)
        phone.evaluate("window.scrollTo(0, 0)")
        screenshot(phone, "results-phone")
        # Further down: the board stays in view above the word lists.
        phone.locator("#players-words-title").evaluate(
            "h => window.scrollTo(0, h.getBoundingClientRect().top + scrollY - 200)"
        )
        screenshot(phone, "results-words-phone")
        screenshot(host, "results-desktop")
        assert errors == [[], []]
    finally:
        host_context.close()
        phone_context.close()


def test_missing_room_page(site, browser) -> None:
    """An unknown code gets a helpful 404 page that fits a phone."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    try:
        page = context.new_page()
        response = page.goto(f"{site.url}/r/nosuchroom/")
        assert response.status == 404
        expect(page.get_by_role("heading", name="No such room")).to_be_visible()
        check_fits(page, "missing room", True)
    finally:
        context.close()
