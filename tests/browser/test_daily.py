"""The daily board and solo practice, from the start page, in Chromium on a phone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import (
    DESKTOP,
    PHONE,
    board_faces,
    my_word,
    overflowing,
    phone_context,
    play_alone,
    room_code,
    screenshot,
    small_targets,
    type_word,
    wait_until_playing,
    watch_errors,
    words_on,
)

pytestmark = pytest.mark.browser


def test_play_the_daily_board_and_see_the_score_on_the_leaderboard(site, browser) -> None:
    """From the start page: play today's board (the round starts at once, no lobby), enter
    a word, the round ends; the results say the rank, and the start page lists the score."""
    context = phone_context(browser)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        page.goto(site.url + "/")
        card = page.locator("#daily-card")
        expect(card.locator("#daily-date")).not_to_have_text("")
        expect(card.locator("#daily-empty")).to_be_visible()
        screenshot(page, "daily-home-phone", full_page=True)
        assert overflowing(page) == []
        assert small_targets(page) == []

        page.get_by_label("Nickname on the leaderboard").fill("Daisy")
        page.get_by_role("button", name="Play today's board").click()
        page.wait_for_url("**/r/*/")
        code = room_code(page)
        expect(page.locator("#lobby-panel")).to_be_hidden()
        expect(page.locator("#share-card")).to_be_hidden()  # solo: nothing to share
        wait_until_playing(page)
        expect(page.locator("#play-board .board")).to_have_attribute("data-size", "4x4")
        found = words_on(board_faces(page))
        assert len(found) >= 60  # the daily board's floor
        best = found[0]
        type_word(page, best.word)
        expect(my_word(page, best.word)).to_be_visible()
        screenshot(page, "daily-round-phone")

        site.end_round_now(code)
        expect(page.locator("#results-panel")).to_be_visible(timeout=15_000)
        result = page.locator("#daily-result")
        expect(result).to_contain_text(re.compile(r"#1 on today's leaderboard"))
        expect(result).to_contain_text(f"{best.points} point")
        screenshot(page, "daily-results-phone", full_page=True)
        assert overflowing(page) == []

        result.get_by_role("link", name="Back to the start page").click()
        page.wait_for_url(re.compile(r"/#daily-card$"))
        row = page.locator("#daily-leaderboard tbody tr", has_text="Daisy")
        expect(row).to_have_class("mine")
        expect(row.locator(".num")).to_have_text(str(best.points))
        expect(page.locator("#daily-mine")).to_contain_text("You are #1 today")
        expect(page.get_by_role("button", name="Play again (practice)")).to_be_visible()
        screenshot(page, "daily-home-played-phone", full_page=True)

        # Another device cannot join that room.
        other = browser.new_context(viewport=PHONE).new_page()
        other.goto(f"{site.url}/r/{code}/")
        other.get_by_label("Your nickname").fill("Eve")
        other.locator("#join-form button[type=submit]").click()
        expect(other.locator("#join-form-error")).to_contain_text("played alone")
        other.context.close()

        page.get_by_role("link", name=re.compile("Full leaderboard")).click()
        expect(page.locator(".daily-leaderboard tr.mine")).to_contain_text("Daisy")
        screenshot(page, "daily-leaderboard-phone", full_page=True)
        assert overflowing(page) == []
        assert errors == []
    finally:
        context.close()


def test_a_daily_game_without_points_is_not_listed(site, browser) -> None:
    """A daily game that ends with no word scores nothing: the results say it is not on
    the leaderboard (it holds no nickname), and the start page does not list it."""
    context = phone_context(browser)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        code = play_alone(page, site.url, "Zero", daily=True)
        site.end_round_now(code)
        expect(page.locator("#results-panel")).to_be_visible(timeout=15_000)
        expect(page.locator("#daily-result")).to_contain_text("no points this time")
        page.goto(site.url + "/")
        expect(page.locator("#daily-date")).not_to_have_text("")
        expect(page.locator("#daily-leaderboard")).not_to_contain_text("Zero")
        expect(page.locator("#daily-mine")).to_be_hidden()
        assert errors == []
    finally:
        context.close()


def test_practice_alone_on_5x5_starts_a_5x5_round(site, browser) -> None:
    """Practice alone: pick 5x5 and Start; the round starts at once on a 5x5 board."""
    context = phone_context(browser)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        page.goto(site.url + "/")
        page.get_by_label("Your nickname").fill("Pat")
        page.locator("#practice-size").get_by_role("radio", name="5×5 big").check()  # noqa: RUF001
        page.get_by_role("button", name="Start practice").click()
        page.wait_for_url("**/r/*/")
        expect(page.locator("#lobby-panel")).to_be_hidden()
        wait_until_playing(page)
        expect(page.locator("#play-board .board")).to_have_attribute("data-size", "5x5")
        assert len(board_faces(page)) == 5
        assert errors == []
    finally:
        context.close()


def test_the_home_page_fits_a_laptop(site, browser) -> None:
    context = browser.new_context(viewport=DESKTOP)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        page.goto(site.url + "/")
        expect(page.locator("#daily-date")).not_to_have_text("")
        expect(page.locator("#practice-form")).to_be_visible()
        screenshot(page, "daily-home-laptop", full_page=True)
        page.emulate_media(color_scheme="dark")
        screenshot(page, "daily-home-laptop-dark", full_page=True)
        assert overflowing(page) == []
        assert errors == []
    finally:
        context.close()


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "laptop"])
def test_a_daily_game_ends_with_the_leaderboard_and_practice_not_a_round_2(
    site, browser, viewport
) -> None:
    """The daily board is one round: its results offer today's leaderboard and practice
    alone (a new room, same 4x4 and 3 minutes), never "Start round 2" (a random board that
    is not the daily one) nor "End game"."""
    context = browser.new_context(viewport=viewport)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        code = play_alone(page, site.url, "Olga", daily=True)
        site.end_round_now(code)
        expect(page.locator("#results-panel")).to_be_visible(timeout=15_000)
        result = page.locator("#daily-result")
        expect(result).to_contain_text("no points this time")
        expect(page.locator("#next-round")).to_be_hidden()
        expect(page.locator("#next-wait")).to_be_hidden()
        expect(page.get_by_role("button", name=re.compile("Start round"))).to_have_count(0)
        expect(page.locator("#end-game-button")).to_have_count(0)
        expect(result.get_by_role("link", name="Today's leaderboard")).to_be_visible()
        screenshot(page, f"daily-results-onwards-{viewport['width']}")
        assert overflowing(page) == []

        result.get_by_role("button", name="Practice alone").click()
        page.wait_for_url(re.compile(r"/r/(?!" + code + r")\w+/$"))
        wait_until_playing(page)
        expect(page.locator("#play-board .board")).to_have_attribute("data-size", "4x4")
        expect(page.locator("#daily-result")).to_have_count(0)
        assert errors == []
    finally:
        context.close()
