"""The games night of issue 48, played again in Chromium on a 360 px phone, a laptop and a TV:
each test is one thing that went wrong that evening.

- A refused newcomer can be let in after all: "Refuse" offers an undo for a while.
- The table screen's ready check names whom it waits for, and nothing else ("null").
- The results' summary gives one share of the maximum, the scoreboard's.
- On a phone the running score, "Words left" and "Hint" show with the whole board, and the
  running score takes the hints off as the results do.
- A teams lobby on a phone says to pick a team, with the picker in view.
- A kicked player is not offered a join the server refuses, and hears when the host lets
  them back in.

Screenshots (BOGGLE_SCREENSHOT_DIR): evening-*.png.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import (
    SHARP_PHONE,
    TABLE_SCREEN,
    OpenRoom,
    board_faces,
    create_room,
    my_word,
    overflowing,
    phone_context,
    play_alone,
    screenshot,
    small_targets,
    type_word,
    wait_until_playing,
    watch_errors,
    words_on,
)
from tests.browser.test_accessibility import serious_violations
from tests.browser.test_words_left import BOARD, is_common

pytestmark = pytest.mark.browser

MINUS = "\u2212"  # the page's minus sign
# Solving the board and the round's events, on a busy machine.
ROUND_WAIT_MS = 30_000
# Longer than the undo window of "Refuse" (static/js/room/waiting-room.js, REFUSE_UNDO_MS).
REFUSAL_WAIT_MS = 20_000
PERCENT = re.compile(r"\d+(?:\.\d+)?%")


def shot(page: Page, name: str) -> None:
    screenshot(page, f"evening-{name}")


def in_view(page: Page, selector: str) -> bool:
    """Whether the element is wholly inside the viewport as the page is scrolled now."""
    return page.locator(selector).evaluate(
        """el => {
        const box = el.getBoundingClientRect();
        return box.width > 0 && box.height > 0 && box.top >= 0 && box.left >= 0
          && box.bottom <= window.innerHeight && box.right <= window.innerWidth;
    }"""
    )


def lock_room(host: Page) -> None:
    lock = host.locator("#lock-room")
    lock.click()
    expect(lock).to_have_attribute("aria-pressed", "true")


def ask_to_join(page: Page, link: str, nickname: str) -> None:
    page.goto(link)
    page.get_by_label("Your nickname").fill(nickname)
    page.get_by_role("button", name="Ask to join").click()
    expect(page.locator("#waiting-panel")).to_be_visible()


def test_a_refusal_can_be_undone(site, browser) -> None:
    """Ann (host, phone) refuses Dan by mistake: the row says so with "Undo", she undoes it,
    Dan never hears of it and she lets him in. She refuses Eve and leaves it: once the undo
    window is over Eve's phone says the host did not let her in."""
    ann_context, dan_context, eve_context = (phone_context(browser) for _ in range(3))
    try:
        ann, dan, eve = ann_context.new_page(), dan_context.new_page(), eve_context.new_page()
        errors = [watch_errors(page) for page in (ann, dan, eve)]
        code = create_room(ann, site.url, "Ann")
        lock_room(ann)
        ask_to_join(dan, f"{site.url}/r/{code}/", "Dan")
        requests = ann.locator("#waiting-requests")
        expect(requests.locator(".waiting-person .nickname")).to_have_text("Dan")

        requests.get_by_role("button", name="Refuse Dan").click()
        undo = requests.get_by_role("button", name="Undo: refuse Dan")
        expect(undo).to_be_visible()
        expect(requests.locator(".waiting-person")).to_contain_text("Refused")
        expect(undo).to_be_focused()  # Enter undoes at once
        assert small_targets(ann) == [] and overflowing(ann) == []
        shot(ann, "refused-undo-phone")
        ann.keyboard.press("Enter")
        let_in = requests.get_by_role("button", name="Let in: Dan")
        expect(let_in).to_be_visible()
        # Longer than the undo window: the refusal was never sent.
        ann.wait_for_timeout(9_000)
        expect(dan.locator("#waiting-panel")).to_be_visible()
        let_in.click()
        expect(dan.locator("#lobby-panel")).to_be_visible()

        ask_to_join(eve, f"{site.url}/r/{code}/", "Eve")
        requests.get_by_role("button", name="Refuse Eve").click()
        expect(requests.get_by_role("button", name="Undo: refuse Eve")).to_be_visible()
        expect(eve.locator("#gone-title")).to_have_text(
            "The host did not let you in", timeout=REFUSAL_WAIT_MS
        )
        expect(requests).to_be_hidden()
        assert errors == [[], [], []]
    finally:
        for context in (ann_context, dan_context, eve_context):
            context.close()


def test_the_table_screen_ready_check_says_whom_it_waits_for(
    site, host_and_guest: OpenRoom
) -> None:
    """A ready check nobody has answered yet: the table screen shows "Ready?" and whom it
    waits for, and no "null" under it (a missing line written as text)."""
    room = host_and_guest()
    ann, code = room.host, room.code
    table = room.new_context(viewport=TABLE_SCREEN).new_page()
    errors = [room.host_errors, room.guest_errors, watch_errors(table)]
    ann.get_by_label("Ready check before each round").check()
    expect(ann.locator("#settings-status")).to_have_text("Saved ✓")
    table.goto(f"{site.url}/r/{code}/table/")
    expect(table.locator("#table-connection")).to_have_attribute("data-status", "open")
    ann.locator("#start-round").click()
    countdown = table.locator("#table-countdown")
    expect(countdown).to_contain_text("Waiting for: Ann and Bob", timeout=ROUND_WAIT_MS)
    lines = countdown.evaluate("el => [...el.childNodes].map(node => node.textContent)")
    assert lines == ["Ready?", "Waiting for: Ann and Bob"], lines
    shot(table, "table-ready-check")
    assert errors == [[], [], []]


def test_the_results_give_one_share_of_the_maximum(site, browser) -> None:
    """A round in which the player finds rare words only: the summary line says the share of
    the maximum the scoreboard says, and no other share (it said "0% of what the common words
    are worth" beside the scoreboard's "3.3% of max")."""
    context = phone_context(browser)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        code = create_room(page, site.url, "Ann")
        site.set_next_board(code, BOARD)
        page.locator("#start-round").click()
        wait_until_playing(page, timeout=ROUND_WAIT_MS)
        rare = [word.word for word in words_on(board_faces(page)) if not is_common(word.word)]
        for word in rare[:2]:
            type_word(page, word)
            expect(my_word(page, word)).to_be_visible()
        site.end_round_now(code)
        expect(page.locator("#results-panel")).to_be_visible(timeout=ROUND_WAIT_MS)
        summary = page.locator("#results-summary").inner_text()
        note = page.locator(".scoreboard tr.mine .share-note").inner_text()
        shares = PERCENT.findall(summary)
        assert shares == PERCENT.findall(note), (summary, note)
        assert "common words are worth" not in summary, summary
        shot(page, "results-one-share")
        assert errors == []
    finally:
        context.close()


def test_a_phone_shows_score_words_left_and_hint_with_the_board(site, browser) -> None:
    """Practice on a 360x640 phone: the board, the word field, the running score, "Words
    left" and "Hint" all show at once, without scrolling. Two hints later the running score
    is the words' points less the hints' cost, as the results then say."""
    context = phone_context(browser, device_scale_factor=2)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        code = play_alone(page, site.url, "Pat")
        best = words_on(board_faces(page))[0]
        type_word(page, best.word)
        expect(my_word(page, best.word)).to_be_visible()
        hint = page.get_by_role("button", name=f"Hint ({MINUS}1 pt)")
        hint.click()
        expect(page.locator("#hint-text")).to_contain_text("Hints used: 1")
        hint.click()
        expect(page.locator("#hint-text")).to_contain_text("Hints used: 2")
        page.evaluate("window.scrollTo(0, 0)")
        for selector in (
            "#play-board",
            "#entry",
            "#round-score",
            "#words-left-chip",
            "#hint-button",
            "#hint-text",
        ):
            assert in_view(page, selector), selector
        expected = max(0, best.points - 2)
        expect(page.locator("#round-score")).to_have_text(re.compile(rf"^{expected} pts?\b"))
        expect(page.locator("#my-score")).to_contain_text(f"{expected} pt")
        assert overflowing(page) == []
        shot(page, "round-phone-hints")
        page.emulate_media(color_scheme="dark")
        shot(page, "round-phone-hints-dark")
        assert serious_violations(page) == []
        page.emulate_media(color_scheme="light")

        site.end_round_now(code)
        expect(page.locator("#results-panel")).to_be_visible(timeout=ROUND_WAIT_MS)
        expect(page.locator(".scoreboard tr.mine td.num").first).to_have_text(str(expected))
        assert errors == []
    finally:
        context.close()


def test_a_teams_lobby_on_a_phone_says_to_pick_a_team(host_and_guest: OpenRoom) -> None:
    """Ann (laptop) makes the room a teams room; Bob's phone, at the top of the lobby, says
    to pick a team and shows each team's button; he picks Team 1 there and every page
    shows him in it."""
    room = host_and_guest(guest_device=SHARP_PHONE)
    ann, bob = room.host, room.guest
    errors = [room.host_errors, room.guest_errors]
    ann.locator("#settings-form").get_by_role("radio", name="Teams").check()
    expect(ann.locator("#settings-status")).to_have_text("Saved ✓")
    picker = bob.locator("#lobby-teams")
    expect(picker).to_be_visible()
    expect(bob.locator("#lobby-text")).to_contain_text("Pick a team")
    mine = picker.locator('button[aria-pressed="true"]')
    expect(mine).to_contain_text("Team 2")  # placed in the smaller team
    bob.evaluate("window.scrollTo(0, 0)")
    assert in_view(bob, "#lobby-teams"), bob.locator("#lobby-teams").bounding_box()
    assert small_targets(bob) == [] and overflowing(bob) == []
    shot(bob, "teams-lobby-phone")
    picker.get_by_role("button", name=re.compile("Team 1")).click()
    expect(picker.locator('button[aria-pressed="true"]')).to_contain_text("Team 1")
    for page in (ann, bob):
        expect(
            page.locator('#players li.team-group[data-team="1"] li.player .nickname')
        ).to_have_text(["Ann", "Bob"])
    bob.emulate_media(color_scheme="dark")
    shot(bob, "teams-lobby-phone-dark")
    assert serious_violations(bob) == []
    assert errors == [[], []]


def test_a_kicked_player_hears_when_they_may_come_back(host_and_guest: OpenRoom) -> None:
    """Ann removes Bob: Bob's phone is not offered "Join again" (the server would refuse
    it) and says only the host can let him back. Ann lets him back in: his phone says so
    and offers "Join again", which takes him back into the room."""
    room = host_and_guest()
    ann, bob = room.host, room.guest
    errors = [room.host_errors, room.guest_errors]
    ann.get_by_role("button", name="Remove: Bob").click()
    ann.get_by_role("button", name="Sure? Remove: Bob").click()
    expect(bob.locator("#gone-title")).to_have_text("You were removed from the room")
    expect(bob.locator("#rejoin")).to_be_hidden()
    expect(bob.locator("#gone-text")).to_contain_text("Only the host can let you back in")
    shot(bob, "kicked-phone")

    ann.get_by_role("button", name="Let back in: Bob").click()
    expect(bob.locator("#gone-title")).to_have_text("The host let you back in")
    rejoin = bob.get_by_role("button", name="Join again")
    expect(rejoin).to_be_visible()
    expect(bob.locator("#live")).to_contain_text("let you back in")
    shot(bob, "let-back-in-phone")
    rejoin.click()
    bob.locator("#join-form button[type=submit]").click()
    expect(bob.locator("#lobby-panel")).to_be_visible()
    expect(ann.locator("#players .player", has_text="Bob")).to_be_visible()
    assert errors[0] == []
    # Bob's console: the refused socket of the kick, nothing else.
    assert [error for error in errors[1] if "WebSocket" not in error] == []
