"""Play on paper in real browsers (static/js/room/paper.js, play.js, settings.js): the host
turns "Play on paper" on in the lobby; during the round the phones are a timer that takes
no word; the host says the time is up, each phone gets "The words you wrote", a pasted
list is judged word by word; the host scores the lists and the results are a round's.

Ann hosts on a 360 px phone and Bob plays on another, in English; then Ann hosts on a
Dutch laptop and Bob plays on a French phone. Screenshots (BOGGLE_SCREENSHOT_DIR):
paper-writing.png, paper-lists.png, paper-lists-fr.png.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.helpers import (
    DESKTOP,
    PHONE,
    TOUCH_PHONE,
    OpenRoom,
    my_word,
    overflowing,
    screenshot,
    small_targets,
    type_board,
    watch_errors,
)
from tests.browser.solve_helpers import solve_context
from tests.browser.test_accessibility import serious_violations

pytestmark = pytest.mark.browser

#   c a t s
#   q i e x    (q: the Qu die)
#   d o g z
#   w e n t
TYPED = "catsqiexdogzwent"
ROUND_WAIT_MS = 30_000


def press_twice(page: Page, first: str, second: str, sure: str = "Sure?") -> None:
    """The host's end button asks "Sure?" before it acts."""
    button = page.locator("#end-round")
    expect(button).to_have_text(first)
    button.click()
    expect(button).to_have_text(f"{sure} {first}")
    button.click()
    if second:
        expect(button).to_have_text(second)


def test_a_round_played_on_paper_on_two_phones(host_and_guest: OpenRoom) -> None:
    room = host_and_guest(host_device=TOUCH_PHONE)
    ann, bob = room.host, room.guest
    errors = [room.host_errors, room.guest_errors]
    ann.locator("#settings-form").get_by_label("Play on paper").check()
    expect(ann.locator("#settings-status")).to_have_text("Saved ✓")
    expect(bob.locator("#settings-summary")).to_contain_text(
        "written on paper, entered when the time is up"
    )

    type_board(ann, TYPED)
    ann.locator("#start-round").click()
    for page in (ann, bob):
        # Writing: the timer runs, the phone takes no word, and says what to do.
        expect(page.locator("#paper-note")).to_contain_text(
            "Write your words on paper", timeout=ROUND_WAIT_MS
        )
        expect(page.locator("#entry")).to_be_disabled()
        expect(page.locator("#paper-list")).to_be_hidden()
    expect(bob.locator("#round-rules")).to_contain_text("played on paper")
    screenshot(bob, "paper-writing")
    assert serious_violations(bob) == []

    press_twice(ann, "Time's up", "Score the lists")
    for page in (ann, bob):
        expect(page.locator("#paper-list")).to_be_visible(timeout=ROUND_WAIT_MS)
        expect(page.locator("#paper-note")).to_contain_text("Time's up!")
    # Bob pastes what he wrote, one word a line and some on one line.
    bob.get_by_label("The words you wrote").fill("cats\nquiet went\nzebra, dogz")
    bob.get_by_role("button", name="Send my list").click()
    expect(bob.locator("#paper-sent")).to_have_text("5 words sent: see each verdict below.")
    for word in ("cats", "quiet", "went"):
        expect(my_word(bob, word)).to_be_visible()
    expect(my_word(bob, "zebra", "bad")).to_contain_text("not on the board")
    expect(my_word(bob, "dogz", "bad")).to_contain_text("not in the dictionary")
    ann.get_by_label("The words you wrote").fill("cats diet")
    ann.get_by_role("button", name="Send my list").click()
    expect(my_word(ann, "diet")).to_be_visible()
    assert overflowing(bob) == []
    assert small_targets(bob) == []
    bob.locator("#paper-list").scroll_into_view_if_needed()
    screenshot(bob, "paper-lists")
    bob.wait_for_timeout(300)  # the verdict's pop settles before axe looks
    assert serious_violations(bob) == []

    press_twice(ann, "Score the lists", "")
    for page in (ann, bob):
        expect(page.locator("#results-title")).to_have_text(
            "Round 1 results", timeout=ROUND_WAIT_MS
        )
    # Both wrote "cats": it cancels; Bob's quiet (2) and went (1) count.
    bob_row = bob.locator("#results-body tr", has_text="Bob")
    expect(bob_row.first).to_contain_text("3")
    for page_errors in errors:
        assert page_errors == []


def test_a_dutch_laptop_hosts_a_paper_round_for_a_french_phone(site, browser: Browser) -> None:
    """The same evening in Dutch (the host, on a laptop) and French (a guest, on a phone):
    the pages speak each their language, and the server's verdicts are translated."""
    ann_context = solve_context(browser, DESKTOP, "nl")
    bob_context = solve_context(browser, PHONE, "fr")
    try:
        ann, bob = ann_context.new_page(), bob_context.new_page()
        errors = [watch_errors(page) for page in (ann, bob)]
        ann.goto(site.url + "/")
        ann.locator("#create-nickname").fill("Anna")
        ann.locator("#create-form button[type=submit]").click()
        ann.wait_for_url("**/r/*/")
        bob.goto(ann.url)
        bob.locator("#join-nickname").fill("Benoît")
        bob.locator("#join-form button[type=submit]").click()
        expect(bob.locator("#game")).to_be_visible()
        ann.locator("#settings-form").get_by_label("Op papier spelen").check()
        expect(bob.locator("#settings-summary")).to_contain_text("papier")

        type_board(ann, TYPED, "Bord intypen", "Dit bord gebruiken")
        ann.locator("#start-round").click()
        expect(bob.locator("#paper-note")).to_be_visible(timeout=ROUND_WAIT_MS)
        expect(bob.locator("#entry-form")).to_be_hidden()
        expect(bob.locator("#round-rules")).to_contain_text("joué sur papier")
        press_twice(ann, "Tijd is om", "Lijsten tellen", sure="Zeker?")
        expect(bob.locator("#paper-list")).to_be_visible(timeout=ROUND_WAIT_MS)
        bob.get_by_label("Les mots que vous avez écrits").fill("quiet\nzebra")
        bob.get_by_role("button", name="Envoyer ma liste").tap()
        expect(my_word(bob, "quiet")).to_be_visible()
        expect(my_word(bob, "zebra", "bad")).to_contain_text("pas sur la grille")
        assert overflowing(bob) == []
        bob.locator("#paper-list").scroll_into_view_if_needed()
        screenshot(bob, "paper-lists-fr")
        bob.wait_for_timeout(300)
        assert serious_violations(bob) == []
        assert serious_violations(ann) == []
        press_twice(ann, "Lijsten tellen", "", sure="Zeker?")
        expect(bob.locator("#results-title")).to_be_visible(timeout=ROUND_WAIT_MS)
        expect(bob.locator("#results-body")).to_contain_text("Benoît")
        for page_errors in errors:
            assert page_errors == []
    finally:
        ann_context.close()
        bob_context.close()
