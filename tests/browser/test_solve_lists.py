"""The Solve page's referee of a paper game ("Check our lists") in real browsers: two players'
lists checked against a board (a word both wrote cancelled, refused words with their reason
in the page's language, the words everyone missed lighting their paths), a second board
with the same players and the running totals, and the evening's link opened in a fresh
browser showing the same totals (axe's check of the results: test_solve.py)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import (
    DESKTOP,
    PHONE,
    overflowing,
    player_words,
    screenshot,
    small_targets,
    watch_errors,
)
from tests.browser.solve_helpers import (
    faces_of,
    fill_lists,
    lit_path,
    press,
    solution,
    solve_context,
    type_board,
)

pytestmark = pytest.mark.browser

FIRST_BOARD = "aeol iejm pdls orkq"
SECOND_BOARD = "qiet sarn lode pmbc"
# What each player wrote on each board, as people paste it (lines, spaces, commas). On the
# first board "pedro" is on both lists (cancelled), Ann wrote "idea" twice and "zzz" (not
# on the board), "dle" is on the board but no word, Bob's "ad" is too short.
LISTS = [
    {"Ann": "pedro\nrodeo\nidea\nzzz\nidea\ndle", "Bob": "pedro, jeep drop\nad"},
    {"Ann": "squared quiet", "Bob": "square"},
]
# Points: Ann 2 (rodeo) + 1 (idea), Bob 1 + 1; then Ann 5 + 2, Bob 3.
POINTS = {"Ann": [3, 7], "Bob": [2, 3]}
# A refused word's reason in each language (room/format.js, translated).
NOT_ON_BOARD = {"en": "not on the board", "nl": "niet op het bord", "fr": "pas sur la grille"}
TOO_SHORT = {"en": "too short", "nl": "te kort", "fr": "trop court"}
TOTAL = {"en": "Total", "nl": "Totaal", "fr": "Total"}


def totals(page: Page) -> list[list[str]]:
    """The totals table's rows: rank, name, points on each board, total."""
    return page.locator("#evening-table tbody tr").evaluate_all(
        "rows => rows.map(r => [...r.cells].map(c => c.textContent.replace('★', '').trim()))"
    )


@pytest.mark.parametrize(
    ("language", "viewport"),
    [("en", DESKTOP), ("nl", PHONE), ("fr", PHONE)],
    ids=["en-laptop", "nl-phone", "fr-phone"],
)
def test_a_paper_evening_checked_and_shared(site, browser, language, viewport) -> None:
    context = solve_context(
        browser, viewport, language, permissions=["clipboard-read", "clipboard-write"]
    )
    name = f"solve-lists-{language}-{'phone' if viewport == PHONE else 'laptop'}"
    try:
        page = context.new_page()
        errors = watch_errors(page)
        page.goto(f"{site.url}/solve/")
        press(page, page.locator("#tab-lists"))
        expect(page.locator("#lists-panel")).to_be_visible()
        expect(page.locator("#words-panel")).to_be_hidden()
        expect(page.locator("#paper-players .paper-player")).to_have_count(2)

        type_board(page, faces_of(FIRST_BOARD))
        fill_lists(page, LISTS[0])
        expect(page.locator("#paper-players .paper-count").first).to_contain_text("6")
        if viewport == PHONE:
            assert overflowing(page) == []
            assert small_targets(page) == []
        screenshot(page, f"{name}-form", full_page=True)
        press(page, page.locator("#check-lists"))
        expect(page.locator("#paper-results")).to_be_visible()
        expect(page.locator("#paper-results-title")).to_be_focused()
        expect(page.locator("#pane-card")).to_be_visible()

        # Scores, ranked; a word on both lists cancelled; refused words with their reason.
        rows = page.locator("#paper-results .scoreboard tbody tr")
        expect(rows).to_have_count(2)
        expect(rows.nth(0).locator(".nickname")).to_have_text("Ann")
        expect(rows.nth(0).locator("td.num").first).to_have_text(str(POINTS["Ann"][0]))
        expect(rows.nth(1).locator("td.num").first).to_have_text(str(POINTS["Bob"][0]))
        ann, bob = player_words(page, "Ann"), player_words(page, "Bob")
        for section in (ann, bob):
            expect(
                section.locator("li.chip.cancelled .chip-button[data-word='pedro']")
            ).to_be_visible()
        expect(ann.locator("li.chip.rejected[data-word='zzz'] .chip-note")).to_have_text(
            NOT_ON_BOARD[language]
        )
        expect(ann.locator("li.chip.rejected[data-word='idea']")).to_be_visible()  # twice
        expect(ann.locator("li.chip.rejected[data-word='dle']")).to_be_visible()
        expect(bob.locator("li.chip.rejected[data-word='ad'] .chip-note")).to_have_text(
            TOO_SHORT[language]
        )

        # The words both missed light their paths.
        words = solution(FIRST_BOARD)
        missed = page.locator(".paper-missed .chips > li .chip-button").first
        word = missed.get_attribute("data-word") or ""
        assert word in words and word not in LISTS[0]["Ann"] + LISTS[0]["Bob"]
        press(page, missed)
        assert lit_path(page) == list(words[word].path)
        expect(page.locator("#evening-card")).to_be_visible()
        if viewport == PHONE:
            assert overflowing(page) == []
        screenshot(page, f"{name}-checked", full_page=True)

        # The next board: the same players, empty lists; the totals add up.
        press(page, page.locator("#next-board"))
        expect(page.locator("#entry-card")).to_be_visible()
        names = page.locator("#paper-players .paper-name")
        assert names.evaluate_all("n => n.map(i => i.value)") == ["Ann", "Bob"]
        assert page.locator(".paper-words").evaluate_all("t => t.map(x => x.value)") == ["", ""]
        type_board(page, faces_of(SECOND_BOARD))
        fill_lists(page, LISTS[1])
        press(page, page.locator("#check-lists"))
        expect(page.locator("#paper-results-title")).to_contain_text("2")
        expected = [
            ["1st" if language == "en" else rows_rank(page, 0), "Ann", "3", "7", "10"],
            ["2nd" if language == "en" else rows_rank(page, 1), "Bob", "2", "3", "5"],
        ]
        expect(page.locator("#evening-table tbody tr")).to_have_count(2)
        assert totals(page) == expected
        expect(page.locator("#evening-table thead")).to_contain_text(TOTAL[language])
        if viewport == PHONE:
            assert overflowing(page) == []
        page.locator("#evening-card").scroll_into_view_if_needed()
        screenshot(page, f"{name}-totals")
        assert "#paper=" in page.url  # a reload keeps the evening

        # The evening's link, opened in another browser: checked again, the same totals.
        press(page, page.locator("#share-evening"))
        expect(page.locator("#evening-status")).not_to_be_empty()
        link = page.evaluate("() => navigator.clipboard.readText()")
        assert link.startswith(f"{site.url}/solve/#paper=")
        other = solve_context(browser, viewport, language)
        try:
            fresh = other.new_page()
            fresh_errors = watch_errors(fresh)
            fresh.goto(link)
            expect(fresh.locator("#lists-panel")).to_be_visible()
            expect(fresh.locator("#evening-table tbody tr")).to_have_count(2)
            assert totals(fresh) == expected
            expect(fresh.locator("#paper-results-title")).to_contain_text("2")
            assert fresh_errors == []
        finally:
            other.close()
        assert errors == []
    finally:
        context.close()


def rows_rank(page: Page, index: int) -> str:
    """The rank as the page writes it in its language (1er, 1e, …)."""
    cell = page.locator("#evening-table tbody tr").nth(index).locator("td.rank")
    return (cell.text_content() or "").replace("★", "").strip()


def test_the_rule_and_a_refused_list(site, browser) -> None:
    """ "Words two players wrote cancel" off: the shared word counts for both, the evening is
    checked again; two players of one name are refused in the page before any request."""
    context = solve_context(browser, DESKTOP)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        page.goto(f"{site.url}/solve/aeol/iejm/pdls/orkq/")
        page.locator("#tab-lists").click()
        fill_lists(page, {"Ann": "pedro", "ann": "pedro"})
        page.locator("#check-lists").click()
        expect(page.locator("#paper-error")).to_be_visible()
        fill_lists(page, {"Ann": "pedro", "Bob": "pedro"})
        page.locator("#check-lists").click()
        rows = page.locator("#paper-results .scoreboard tbody tr")
        expect(rows.nth(0).locator("td.num").first).to_have_text("0")
        page.locator("#edit-lists").click()
        page.locator("#paper-cancel").uncheck()
        expect(rows.nth(0).locator("td.num").first).to_have_text("2")
        expect(rows.nth(1).locator("td.num").first).to_have_text("2")
        assert errors == []
    finally:
        context.close()
