"""A phone player taps "Words left" during a round and sees how many common words of each
length are still to find; the results show each word's points and the unfound rare words
apart. With BOGGLE_SCREENSHOT_DIR set (docs/screenshots) it saves words-left-phone.png."""

from __future__ import annotations

import re
from collections import Counter

import pytest
import wordfreq
from playwright.sync_api import expect

from tests.browser.helpers import (
    board_faces,
    create_room,
    my_word,
    overflowing,
    phone_context,
    screenshot,
    type_word,
    wait_until_playing,
    watch_errors,
    words_on,
)

pytestmark = pytest.mark.browser

# docs/api.md's example board.
BOARD = "aeol iejm pdls orkf"
COMMON_ZIPF = 3.0  # games.common_words.COMMON_ZIPF, restated: the test is the oracle


def is_common(word: str) -> bool:
    return wordfreq.zipf_frequency(word, "en") >= COMMON_ZIPF


def test_words_left_on_a_phone_and_points_in_the_results(site, browser) -> None:
    context = phone_context(browser, device_scale_factor=2)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        code = create_room(page, site.url, "Ann")
        # A board with common and rare words: a roll has both nearly always, but CI once
        # rolled one without a common word, and the chip then has nothing to count.
        site.set_next_board(code, BOARD)
        page.locator("#start-round").click()
        wait_until_playing(page)
        found = words_on(board_faces(page))
        common = [w.word for w in found if is_common(w.word)]
        assert common and len(common) < len(found), "the board has common and rare words"
        mine = common[0]
        type_word(page, mine)
        expect(my_word(page, mine)).to_be_visible()

        chip = page.locator("#words-left-chip")
        commons = Counter(len(word) for word in common)
        expect(chip).to_have_text(re.compile(rf"Words left: {len(common) - 1}\b"))
        chip.tap()
        expect(chip).to_have_attribute("aria-expanded", "true")
        for length, count in commons.items():
            left = count - (length == len(mine))
            expect(page.locator(f'#words-left-panel li[data-length="{length}"]')).to_have_text(
                f"{length} letters: {left} left"
            )
        rare = len(found) - len(common)
        expect(page.locator("#words-left-panel .hint")).to_contain_text(f"and {rare} rare word")
        assert overflowing(page) == []
        page.locator("#words-left-chip").scroll_into_view_if_needed()
        screenshot(page, "words-left-phone")

        site.end_round_now(code)
        expect(page.locator("#results-panel")).to_be_visible()
        group = page.locator(f'.all-words .word-group[data-length="{len(mine)}"]')
        expect(group.locator(f'.chip-button[data-word="{mine}"] .chip-note')).to_contain_text(
            re.compile(r"^\+\d+ · ")
        )
        rare_words = page.locator(".all-words details.rare-words")
        expect(rare_words.locator("summary")).to_have_text(f"and {rare} rare words")
        rare_words.locator("summary").tap()
        expect(rare_words.locator(".chip-note").first).to_have_text(re.compile(r"^\+\d+$"))
        assert overflowing(page) == []
        page.locator(".all-words").scroll_into_view_if_needed()
        screenshot(page, "results-points-phone")
        assert errors == []
    finally:
        context.close()
