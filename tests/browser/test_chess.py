"""Chess-clock rounds in real browsers (static/js/room/chess.js, table/chess.js): two phones
play in turns while a table screen on a laptop watches.

Ann (host) and Bob play on phones (360 px). Ann switches the room to the chess clock, with
30 s each; Bob's summary says so. The round (a typed board) starts: once its countdown is
over both phones show both clocks and whose turn it is, the player on turn reads "Your
turn!" and the other's word field waits ("Wait for your turn"); a tap on the board out of
turn says to wait, and sends nothing. The player on turn plays BELT: the turn passes; the
other tries BELT too ("someone played that word", still their turn), then VERB. Then Bob
closes his phone on his turn: Ann's page offers to skip him, she does, and she wins: the
results say so and rank her first. axe finds nothing serious on the chess round's view.

Screenshots (BOGGLE_SCREENSHOT_DIR): chess-lobby-phone.png, chess-turn-phone.png,
chess-wait-phone.png, chess-table.png, chess-skip-phone.png, chess-results-phone.png.
"""

from __future__ import annotations

import re

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
    watch_errors,
)
from tests.browser.test_accessibility import serious_violations
from tests.browser.test_coop import TYPED  # belt, verb, vet, elk, elm are on it

pytestmark = pytest.mark.browser

# Solving the board, the countdown and the clock's start, on a busy machine.
ROUND_WAIT_MS = 30_000


def shot(page: Page, name: str, full_page: bool = False) -> None:
    screenshot(page, f"chess-{name}", full_page=full_page)


def turn_line(page: Page):
    return page.locator("#chess-turn")


def play(page: Page, word: str, kind: str = "good") -> None:
    expect(page.locator("#entry")).to_be_enabled()
    type_word(page, word)
    expect(my_word(page, word, kind)).to_be_visible()


def test_two_phones_play_a_chess_round_and_the_table_shows_the_clocks(
    site, host_and_guest: OpenRoom
):
    room = host_and_guest(host_device=SHARP_PHONE, guest_device=SHARP_PHONE)
    ann, bob, code = room.host, room.guest, room.code
    table = room.new_context(viewport=TABLE_SCREEN).new_page()
    errors = [room.host_errors, room.guest_errors, watch_errors(table)]
    table.goto(f"{site.url}/r/{code}/table/")

    # The host picks the chess clock, and 30 s each.
    form = ann.locator("#settings-form")
    seconds = form.get_by_label("Time per player")
    expect(seconds).to_be_hidden()
    form.get_by_role("radio", name="Chess clock").check()
    expect(ann.locator("#settings-status")).to_have_text("Saved ✓")
    expect(seconds).to_be_visible()
    expect(seconds).to_have_value("60")
    seconds.select_option("30")
    expect(ann.locator("#settings-status")).to_have_text("Saved ✓")
    expect(bob.locator("#settings-summary")).to_contain_text("chess clock: 30 s each")
    assert overflowing(ann) == []
    assert small_targets(ann) == []
    form.get_by_role("radio", name="Chess clock").scroll_into_view_if_needed()
    shot(ann, "lobby-phone")

    type_board(ann, TYPED)
    ann.locator("#start-round").click()
    for page in (ann, bob):
        expect(turn_line(page)).to_have_text(
            re.compile(r"^(Your turn!|(Ann|Bob)'s turn)$"), timeout=ROUND_WAIT_MS
        )
    first, second = (ann, bob) if turn_line(ann).inner_text() == "Your turn!" else (bob, ann)
    expect(turn_line(first)).to_have_text("Your turn!")
    for page in (ann, bob):
        clocks = page.locator("#chess-panel .chess-clock")
        expect(clocks).to_have_count(2)
        expect(page.locator('#chess-panel .chess-clock[aria-current="true"]')).to_have_count(1)
        expect(page.locator("#timer-label")).to_have_text(
            re.compile(r"^(Your clock|(Ann|Bob)'s clock)$")
        )
    expect(first.locator("#entry")).to_be_enabled()

    # Out of turn: the word field waits, and a tap on the board says why; nothing is sent.
    entry = second.locator("#entry")
    expect(entry).to_be_disabled()
    expect(entry).to_have_attribute("placeholder", "Wait for your turn")
    second.locator('#play-board .die[data-cell="5"]').tap()
    expect(turn_line(second)).to_contain_text("Wait for your turn")
    expect(second.locator("#my-words li")).to_have_count(0)
    shot(second, "wait-phone")
    assert serious_violations(second) == []

    # The player on turn plays BELT: the turn passes.
    play(first, "belt")
    expect(turn_line(second)).to_have_text("Your turn!")
    expect(second.locator("#chess-panel .chess-played")).to_contain_text("BELT")
    expect(first.locator("#entry")).to_be_disabled()
    shot(second, "turn-phone")
    first.wait_for_timeout(300)  # the verdict's pop settles before axe reads its colours
    assert serious_violations(second) == []
    assert serious_violations(first) == []
    for page in (ann, bob):
        assert overflowing(page) == []
        assert small_targets(page) == []

    # The table screen shows both clocks, big.
    expect(table.locator("#table-chess .chess-clock")).to_have_count(2)
    expect(table.locator("#table-chess-turn")).to_have_text(re.compile(r"^(Ann|Bob)'s turn$"))
    shot(table, "table")
    assert serious_violations(table) == []

    # A word someone played: refused, and still their turn; then one that counts.
    play(second, "belt", kind="bad")
    expect(my_word(second, "belt", "bad")).to_contain_text("someone played that word")
    expect(turn_line(second)).to_have_text("Your turn!")
    play(second, "verb")
    expect(turn_line(first)).to_have_text("Your turn!")
    if first is ann:  # make it Bob's turn
        play(ann, "vet")
        expect(turn_line(bob)).to_have_text("Your turn!")

    # Bob's phone goes away on his turn: the host may skip him, and wins.
    bob.context.close()
    skip = ann.get_by_role("button", name="Skip Bob")
    expect(skip).to_be_visible(timeout=ROUND_WAIT_MS)
    expect(ann.locator("#timer-label")).to_have_text("Bob's clock")
    shot(ann, "skip-phone")
    # Bob's phone may go away right after Ann's own word: its verdict's pop (a fade in)
    # settles before axe reads its colours, as in the other tests.
    ann.wait_for_timeout(300)
    assert serious_violations(ann) == []
    skip.click()
    expect(ann.locator("#results-panel")).to_be_visible(timeout=ROUND_WAIT_MS)
    expect(ann.locator("#results-summary")).to_contain_text("You won: the last one with time")
    expect(ann.locator("#results-body .scoreboard tbody tr").first).to_contain_text("Ann")
    shot(ann, "results-phone")
    expect(table.locator("#table-results-summary")).to_contain_text("Ann won: the last one")
    assert errors[0] == [] and errors[2] == []
