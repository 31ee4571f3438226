"""Hints in solo practice (games.hints), in Chromium on a phone: the Hint button by "Words
left" shows a word's first letters, says them in the live region, and the results take
the hints' points off; the daily board offers none."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import (
    board_faces,
    overflowing,
    phone_context,
    play_alone,
    screenshot,
    watch_errors,
    words_on,
)

pytestmark = pytest.mark.browser

MINUS = "\u2212"  # the page's minus sign, not a hyphen
HINT = re.compile(r"A word of (\d+) letters: ([A-Z]+)…")


def test_practice_hint_on_a_phone_shows_letters_and_costs_points(site, browser) -> None:
    """Practice alone; press Hint with the keyboard: "A word of N letters: XY…", a prefix of
    a word on the board, announced politely; a second hint on the same word shows a letter
    more (or moves on to a new word after all but its last letter). The results say
    "Hints: 2 (minus 2 pts).", and the page fits the phone."""
    context = phone_context(browser)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        code = play_alone(page, site.url, "Pat")
        button = page.get_by_role("button", name=f"Hint ({MINUS}1 pt)")
        expect(button).to_be_visible()
        button.focus()
        page.keyboard.press("Enter")
        text = page.locator("#hint-text")
        expect(text).to_have_text(HINT)
        match = HINT.search(text.inner_text())
        assert match is not None
        length, letters = int(match.group(1)), match.group(2)
        assert len(letters) == 2
        found = words_on(board_faces(page))
        assert any(
            len(word.word) == length and word.word.upper().startswith(letters) for word in found
        ), (length, letters)
        expect(page.locator("#live")).to_contain_text(f"A word of {length} letters: {letters}")
        box = button.bounding_box()
        assert box is not None and box["height"] >= 43.5, box
        page.keyboard.press("Enter")  # the focus stayed on the button
        expect(text).to_contain_text(f"Hints used: 2 ({MINUS}2 pts)")
        screenshot(page, "hint-phone")
        assert overflowing(page) == []

        site.end_round_now(code)
        expect(page.locator("#results-panel")).to_be_visible(timeout=15_000)
        expect(page.locator("#results-panel")).to_contain_text(f"Hints: 2 ({MINUS}2 pts).")
        assert errors == []
    finally:
        context.close()


def test_the_daily_board_has_no_hint_button(site, browser) -> None:
    context = phone_context(browser)
    try:
        page = context.new_page()
        # A name of its own: another test's "Daisy" owns hers on today's leaderboard.
        play_alone(page, site.url, "Hazel", daily=True)
        expect(page.locator("#words-left-chip")).to_be_visible()
        expect(page.locator("#hint-button")).to_be_hidden()
    finally:
        context.close()
