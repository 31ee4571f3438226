"""A round's start on every screen (issue 28): the board comes into view on a phone that
was reading far down the results with a meaning open, its letters show only when the
clock starts (phones and the table screen), the table screen names every tied winner,
and sharing a round's picture never takes the room page away.

Screenshots go to /tmp/round-start/ for a person to look at.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import (
    DESKTOP,
    OpenRoom,
    board_faces,
    create_room,
    drag_word,
    my_word,
    phone_context,
    play_best_word,
    screenshot,
    start_solo_round,
    type_word,
    wait_until_playing,
    watch_errors,
    words_on,
)

pytestmark = pytest.mark.browser

TABLE_SCREEN = {"width": 1920, "height": 1080}
# No share sheet, as on most laptops.
NO_SHARE_SHEET = "delete Navigator.prototype.share; delete Navigator.prototype.canShare;"


def shot(page: Page, name: str) -> None:
    """A screenshot of a step (BOGGLE_SCREENSHOT_DIR, as every one)."""
    screenshot(page, f"round-start-{name}")


def board_in_view(page: Page, selector: str = "#play-board .board") -> bool:
    """Whether the whole board is inside the viewport as the page is scrolled now."""
    return page.locator(selector).evaluate(
        "el => { const r = el.getBoundingClientRect();"
        " return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight; }"
    )


def shown_letters(page: Page, board: str) -> list[str]:
    """What the page shows or keeps of the dice's letters: their text and data-face."""
    return page.locator(f"{board} .die").evaluate_all(
        "dice => dice.flatMap(d => [d.textContent.trim(), d.dataset.face]).filter(Boolean)"
    )


def end_round(site, pages: list[Page], code: str, number: int) -> None:
    site.end_round_now(code)
    for page in pages:
        expect(page.locator("#results-title")).to_have_text(f"Round {number} results")


def test_a_phone_far_down_the_results_gets_the_board_when_the_next_round_starts(
    site, host_and_guest: OpenRoom
) -> None:
    """Bob reads the game stats at the bottom of the results with a word's meaning open;
    the host starts round 2: the meaning closes, the board is on Bob's screen, and his
    first drag counts."""
    room = host_and_guest()
    ann, bob, code = room.host, room.guest, room.code
    ann_errors, bob_errors = room.host_errors, room.guest_errors
    word = play_best_word(ann, bob).word
    end_round(site, [ann, bob], code, 1)

    # Far down the page (the game stats), with a meaning open over it.
    expect(bob.locator("#history-card .stats-table")).to_be_visible()
    bob.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    assert bob.evaluate("window.scrollY") > 1000
    bob.locator(f'#results-body .chip-button[data-word="{word}"]').first.click()
    bob.locator(".meaning-button:visible").first.click()
    expect(bob.locator("dialog.definition-dialog")).to_be_visible()
    bob.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    shot(bob, "1-phone-reading-the-results")

    ann.get_by_role("button", name="Start round 2").click()
    # (The timer still says "playing" from round 1, ended early: wait for round 2 first.)
    expect(bob.locator("#round-title")).to_have_text("Round 2")
    expect(bob.locator("#timer")).to_have_attribute("data-phase", "playing", timeout=20_000)
    expect(bob.locator("dialog.definition-dialog")).to_be_hidden()
    assert board_in_view(bob), bob.evaluate("window.scrollY")
    expect(ann.locator("#round-title")).to_have_text("Round 2")
    expect(ann.locator("#timer")).to_have_attribute("data-phase", "playing")
    assert board_in_view(ann)
    shot(bob, "2-phone-round-2")

    # The first drag lands on the dice.
    faces = board_faces(bob)
    found = words_on(faces)[0]
    drag_word(bob, found.path, touch=True)
    expect(my_word(bob, found.word)).to_be_visible()
    assert ann_errors == [] and bob_errors == []


def test_the_letters_show_only_when_the_clock_starts(site, browser) -> None:
    """During the 3 s countdown the dice are face down on the phones and the table screen,
    with no letter in the page; at the start every screen shows the same board."""
    ann_context = phone_context(browser)
    table_context = browser.new_context(viewport=TABLE_SCREEN)
    try:
        ann = ann_context.new_page()
        table = table_context.new_page()
        ann_errors, table_errors = watch_errors(ann), watch_errors(table)
        code = create_room(ann, site.url, "Ann")
        table.goto(f"{site.url}/r/{code}/table/")
        expect(table.locator("#table-connection")).to_have_attribute("data-status", "open")

        ann.locator("#start-round").click()
        expect(ann.locator("#timer")).to_have_attribute("data-phase", "countdown")
        expect(table.locator("#table-timer")).to_have_attribute("data-phase", "countdown")
        assert shown_letters(ann, "#play-board") == []
        assert shown_letters(table, "#table-board") == []
        expect(ann.locator("#play-board .board")).to_have_attribute(
            "aria-label", re.compile("the letters show when the round starts")
        )
        shot(ann, "3-phone-countdown")
        shot(table, "4-table-countdown")

        wait_until_playing(ann)
        expect(table.locator("#table-timer")).to_have_attribute("data-phase", "playing")
        faces = board_faces(ann)
        table_faces = table.locator("#table-board .die").evaluate_all(
            "dice => dice.map(d => d.dataset.face)"
        )
        assert table_faces == [face for row in faces for face in row]
        shot(table, "5-table-playing")
        assert ann_errors == [] and table_errors == []
    finally:
        ann_context.close()
        table_context.close()


def test_the_table_screen_names_every_tied_winner(site, host_and_guest: OpenRoom) -> None:
    """Hanna and Sofie score the same: the table screen says they tie (the phones rank both
    first), and after the host ends the game both are its winners."""
    room = host_and_guest("Hanna", "Sofie")
    hanna, sofie, code = room.host, room.guest, room.code
    table = room.new_context(viewport=TABLE_SCREEN).new_page()
    errors = [room.host_errors, room.guest_errors, watch_errors(table)]
    table.goto(f"{site.url}/r/{code}/table/")
    expect(table.locator("#table-connection")).to_have_attribute("data-status", "open")
    hanna.locator("#start-round").click()
    wait_until_playing(hanna)
    wait_until_playing(sofie)
    words = words_on(board_faces(hanna))
    # Two words worth the same, as many points as the board allows.
    points = max(
        found.points for found in words if sum(w.points == found.points for w in words) > 1
    )
    first, second = [found.word for found in words if found.points == points][:2]
    type_word(hanna, first)
    type_word(sofie, second)
    expect(my_word(hanna, first)).to_be_visible()
    expect(my_word(sofie, second)).to_be_visible()
    end_round(site, [hanna, sofie], code, 1)

    summary = table.locator("#table-results-summary")
    pts = f"{points} pt" if points == 1 else f"{points} pts"
    expect(summary).to_contain_text(f"Hanna and Sofie tie with {pts}.")
    expect(table.locator(".table-ranking tbody tr.winner .nickname")).to_have_text(
        ["Hanna", "Sofie"]
    )
    shot(table, "6-table-tie")
    # The phones rank both first.
    ranks = sofie.locator("#results-body .scoreboard tbody .rank").all_text_contents()
    assert [rank.replace("★", "").strip() for rank in ranks] == ["1st", "1st"]

    # The game's end: both are its winners on the table screen.
    hanna.get_by_role("button", name="End game", exact=True).click()
    hanna.get_by_role("button", name="Yes, end the game").click()
    expect(table.locator(".table-standing-row.winner")).to_have_count(2)
    expect(summary).to_contain_text("Hanna and Sofie")
    shot(table, "7-table-game-over")
    assert errors == [[], [], []]


@pytest.mark.parametrize("popups", ["allowed", "blocked"])
def test_sharing_the_picture_on_a_laptop_keeps_the_room_open(site, browser, popups) -> None:
    """Without a share sheet the picture opens in a new tab (or, pop-ups blocked, is
    saved); the room page stays where it is, connected."""
    context = browser.new_context(viewport=DESKTOP, accept_downloads=True)
    context.add_init_script(NO_SHARE_SHEET)
    if popups == "blocked":
        context.add_init_script("window.open = () => null;")
    try:
        page = context.new_page()
        errors = watch_errors(page)
        code, _found = start_solo_round(page, site.url, "Robin")
        end_round(site, [page], code, 1)
        room_url = page.url
        button = page.get_by_role("button", name="Share picture")
        if popups == "allowed":
            with context.expect_page() as opened:
                button.click()
            picture = opened.value
            picture.wait_for_load_state()
            assert picture.url == f"{site.url}/api/rooms/{code}/rounds/1.png"
            assert picture.evaluate("window.opener") is None
        else:
            with page.expect_download() as saved:
                button.click()
            assert saved.value.suggested_filename == f"boggle-{code}-round-1.png"
            expect(page.locator(".share-round-status")).to_have_text(
                "The picture was saved to your downloads."
            )
        page.wait_for_timeout(500)  # a navigation away would have begun by now
        assert page.url == room_url
        expect(page.locator("#results-title")).to_have_text("Round 1 results")
        expect(page.locator("#connection")).to_have_attribute("data-status", "open")
        assert len(context.pages) == (2 if popups == "allowed" else 1)
        assert errors == []
    finally:
        context.close()
