"""The table screen (/r/<code>/table/) on a 1280x800 screen, and "Play this board again".

Screenshots go to /tmp/table-screens/ (for a person to look at), whatever
BOGGLE_SCREENSHOT_DIR says.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import (
    PHONE,
    TABLE_SCREEN,
    board_faces,
    create_room,
    my_word,
    overflowing,
    screenshot,
    start_solo_round,
    type_word,
    wait_until_playing,
    watch_errors,
    words_on,
)

pytestmark = pytest.mark.browser


def shot(page: Page, name: str) -> None:
    screenshot(page, f"table-{name}")


def table_faces(page: Page) -> list[list[str]]:
    size = page.locator("#table-board .board").get_attribute("data-size")
    assert size is not None, "the board has no data-size"
    rows, cols = (int(n) for n in size.split("x"))
    faces = page.locator("#table-board .die").evaluate_all("dice => dice.map(d => d.dataset.face)")
    return [faces[r * cols : (r + 1) * cols] for r in range(rows)]


def test_the_table_screen_follows_a_round_started_from_the_room_page(site, browser) -> None:
    context = browser.new_context(viewport=TABLE_SCREEN)
    try:
        ann = context.new_page()
        ann_errors = watch_errors(ann)
        code = create_room(ann, site.url, "Ann")

        # The lobby links to the table screen, which opens in its own tab and joins nobody.
        link = ann.locator("#table-link")
        expect(link).to_be_visible()
        shot(ann, "0-room-lobby")
        with context.expect_page() as opened:
            link.click()
        table = opened.value
        table_errors = watch_errors(table)
        table.wait_for_url(f"**/r/{code}/table/")
        expect(table.locator("#table-lobby")).to_be_visible()
        expect(table.locator("#table-connection")).to_have_attribute("data-status", "open")
        expect(table.locator("#table-lobby-title")).to_have_text(code)
        expect(table.locator("#table-qr svg")).to_be_visible()
        expect(table.locator("#table-players li")).to_have_text(["Annhost"])
        qr = table.locator("#table-qr").bounding_box()
        assert qr is not None and qr["width"] >= 400, qr  # readable from across the table
        shot(table, "1-lobby")
        expect(ann.locator("#players .player")).to_have_count(1)  # not a player

        ann.bring_to_front()
        ann.locator("#start-round").click()
        expect(table.locator("#table-round")).to_be_visible()
        expect(table.locator("#table-timer")).to_have_attribute("data-phase", "countdown")
        expect(table.locator("#table-countdown")).to_be_visible()
        shot(table, "2-countdown")
        wait_until_playing(ann)
        faces = board_faces(ann)
        expect(table.locator("#table-timer")).to_have_attribute("data-phase", "playing")
        assert table_faces(table) == faces
        board = table.locator("#table-board .board").bounding_box()
        assert board is not None and board["width"] >= 600, board  # the board, big
        # The table's timer counts down the round (its sync is the room page's method; no
        # comparison of two clocks here: a busy machine makes that a race).
        theirs = table.locator("#table-timer-value").text_content()
        assert 0 < seconds(theirs) <= 180, theirs

        word = next(w.word for w in words_on(faces) if len(w.word) >= 3)
        type_word(ann, word)
        expect(my_word(ann, word)).to_be_visible()
        expect(table.locator(".table-count")).to_have_text(["Ann1"])
        shot(table, "3-round")

        site.end_round_now(code)
        expect(table.locator("#table-results")).to_be_visible(timeout=15_000)
        expect(table.locator("#table-results-title")).to_have_text("Round 1 results")
        row = table.locator(".table-ranking tbody tr")
        expect(row).to_have_count(1)
        expect(row.locator(".nickname")).to_have_text("Ann")
        expect(row.locator(".words")).to_have_text("1")
        words = table.locator(".table-player-words[data-player] .table-word")
        expect(words).to_have_count(1)
        expect(words.first).to_have_attribute("data-word", word)
        expect(table.locator(".table-results-board .die")).to_have_count(16)
        shot(table, "4-results")
        assert table_errors == [] and ann_errors == []
    finally:
        context.close()


def seconds(text: str | None) -> int:
    minutes, _, secs = (text or "0:00").partition(":")
    return int(minutes) * 60 + int(secs or 0)


def test_play_this_board_again_opens_a_new_room_on_the_same_board(site, browser) -> None:
    context = browser.new_context(viewport=TABLE_SCREEN)
    try:
        ann = context.new_page()
        errors = watch_errors(ann)
        old_code, _ = start_solo_round(ann, site.url, "Ann")
        faces = board_faces(ann)
        old_board = ann.request.get(f"{site.url}/api/rooms/{old_code}").json()["room"]["round"][
            "board"
        ]
        site.end_round_now(old_code)
        expect(ann.locator("#results-panel")).to_be_visible(timeout=15_000)
        button = ann.get_by_role("button", name="Play this board again")
        expect(button).to_be_visible()
        shot(ann, "5-results-replay")
        button.click()
        ann.wait_for_url(lambda url: "/r/" in url and old_code not in url)
        expect(ann.locator("#lobby-panel")).to_be_visible()
        new_code = ann.url.rstrip("/").rsplit("/", 1)[1]
        room = ann.request.get(f"{site.url}/api/rooms/{new_code}").json()["room"]
        assert room["settings"]["next_board"] == old_board
        assert room["you"] == room["host_id"]  # Ann hosts the new room
        assert [p["nickname"] for p in room["players"]] == ["Ann"]

        # Its first round plays that board.
        ann.locator("#start-round").click()
        wait_until_playing(ann)
        assert board_faces(ann) == faces
        assert errors == []
    finally:
        context.close()


def test_the_table_screen_fits_a_narrow_window(site, browser) -> None:
    """Meant for a big screen, it still reads on a phone: nothing reaches past the sides."""
    host = browser.new_context(viewport=TABLE_SCREEN)
    phone = browser.new_context(viewport=PHONE)
    try:
        code = create_room(host.new_page(), site.url, "Ann")
        table = phone.new_page()
        errors = watch_errors(table)
        table.goto(f"{site.url}/r/{code}/table/")
        expect(table.locator("#table-lobby")).to_be_visible()
        expect(table.locator("#table-connection")).to_have_attribute("data-status", "open")
        assert overflowing(table) == []
        shot(table, "6-phone-lobby")
        assert errors == []
    finally:
        host.close()
        phone.close()
