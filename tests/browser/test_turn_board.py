"""Turning the board on the phone, as players turn a real tray: a quarter turn clockwise per
tap, the letters upright, words still entered by dragging, tapping or typing on the turned
board, the turn kept through a reload and forgotten by the next round."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import (
    DESKTOP,
    PHONE,
    board_faces,
    drag_word,
    my_word,
    overflowing,
    phone_context,
    small_targets,
    start_solo_round,
    tap_word,
    type_word,
    wait_until_playing,
    watch_errors,
    words_on,
)

pytestmark = pytest.mark.browser


def shown_cells(page) -> list[int]:
    """The board's cells in the order the page draws them (row by row as shown)."""
    return page.locator("#play-board .die").evaluate_all(
        "dice => dice.map(d => Number(d.dataset.cell))"
    )


def turned(size: int, turns: int) -> list[int]:
    """The cells of a ``size`` x ``size`` board row by row once turned ``turns`` quarter
    turns clockwise (a real tray turned so: its left column becomes its top row)."""
    grid = [[row * size + col for col in range(size)] for row in range(size)]
    for _ in range(turns % 4):
        grid = [list(row) for row in zip(*grid[::-1], strict=True)]
    return [cell for row in grid for cell in row]


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "laptop"])
def test_a_turned_board_still_spells_words(site, browser, viewport) -> None:
    phone = viewport == PHONE
    context = phone_context(browser) if phone else browser.new_context(viewport=viewport)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        start_solo_round(page, site.url, "Ann")
        faces = board_faces(page)
        size = len(faces)
        found = words_on(faces)
        assert shown_cells(page) == turned(size, 0)
        page.locator("#turn-board").click()
        assert shown_cells(page) == turned(size, 1)
        # The rolled board's letters have not changed: only where each die is drawn.
        assert board_faces(page) == faces
        # A screen reader hears the rows as drawn.
        label = page.locator("#play-board .board").get_attribute("aria-label") or ""
        drawn = page.locator("#play-board .die .face").all_text_contents()
        assert f"row 1: {' '.join(drawn[:size])};" in label, label
        # Entered on the turned board: a finger or the mouse along the dice, then a tap.
        drag_word(page, found[1].path, touch=phone)
        expect(my_word(page, found[1].word)).to_be_visible()
        if phone:
            tap_word(page, found[2].path)
        else:
            type_word(page, found[2].word)
        expect(my_word(page, found[2].word)).to_be_visible()
        # The path of a typed word is lit where its dice are drawn.
        page.locator("#entry").fill(found[3].word)
        lit = page.locator("#play-board .die.on").evaluate_all(
            "dice => dice.map(d => Number(d.dataset.cell))"
        )
        assert sorted(lit) == sorted(found[3].path)
        page.locator("#entry").fill("")
        assert overflowing(page) == []
        if phone:
            assert small_targets(page) == []
        # Kept through a reload; four turns bring it back as rolled.
        page.reload()
        wait_until_playing(page)
        assert shown_cells(page) == turned(size, 1)
        for turns in (2, 3, 0):
            page.locator("#turn-board").click()
            assert shown_cells(page) == turned(size, turns)
        assert errors == []
    finally:
        context.close()


def test_the_next_round_starts_as_rolled(site, browser) -> None:
    context = phone_context(browser)
    try:
        page = context.new_page()
        start_solo_round(page, site.url, "Bea")
        page.locator("#turn-board").click()
        page.locator("#turn-board").click()
        size = len(board_faces(page))
        assert shown_cells(page) == turned(size, 2)
        page.locator("#end-round").click()
        page.locator("#end-round").click()  # confirm
        expect(page.locator("#results-panel")).to_be_visible()
        page.locator("#next-round").click()
        expect(page.locator("#round-title")).to_have_text("Round 2", timeout=20_000)
        wait_until_playing(page)
        assert shown_cells(page) == turned(size, 0)
    finally:
        context.close()


@pytest.mark.parametrize(
    ("language", "label"), [("nl", "Bord draaien"), ("fr", "Tourner la grille")]
)
def test_the_turn_button_speaks_the_page_language(site, browser, language, label) -> None:
    """In Dutch and French the button says what it does, and the round's bar still fits a
    360 px phone beside it."""
    context = phone_context(browser)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        start_solo_round(page, site.url, "Noor")
        context.add_cookies([{"name": "django_language", "value": language, "url": site.url}])
        page.reload()
        wait_until_playing(page)
        button = page.locator("#turn-board")
        expect(button).to_have_attribute("aria-label", label)
        button.click()
        size = len(board_faces(page))
        assert shown_cells(page) == turned(size, 1)
        assert overflowing(page) == []
        assert small_targets(page) == []
        assert errors == []
    finally:
        context.close()
