"""Co-op mode in real browsers: the room plays as one team against the board
(static/js/room/team.js, settings.js, results.js, table/main.js, table/results.js).

Ann hosts on a laptop and switches the room to co-op with a team goal of 10%; Bob plays on
a phone; a table screen watches. The round is on a typed board with few words (25, every
one worth a point), so that the four words the two of them enter (BELT and VERB, ELK and
ELM) reach the goal: 4 of 25 is 16%. Each page shows the other player's words in the
team's list with the finder's name, and the progress moves; the phone folds the list to
the newest words and keeps the board and the word field in view. A fifth word, once the others'
highlights are gone, comes in highlighted. The host ends the round: "Goal reached!" with
the team's share (5 of 25) and points on every page, the table screen included, and the
20 words nobody found.

Screenshots (BOGGLE_SCREENSHOT_DIR, as every one): coop-round-phone.png,
coop-round-laptop.png, coop-results-phone.png, coop-table.png (and a few more coop-*).
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
    my_word,
    overflowing,
    screenshot,
    small_targets,
    type_board,
    type_word,
    wait_until_playing,
    watch_errors,
    words_on,
)
from tests.browser.test_accessibility import serious_violations

pytestmark = pytest.mark.browser

# Typed before the round (the photo card's "Type a board"): a board with 25 words.
TYPED = "bevgrtlslkfmkmll"
BOARD = [list("bevg"), list("rtls"), list("lkfm"), list("kmll")]
ANN_WORDS = ["belt", "verb"]
BOB_WORDS = ["elk", "elm"]
# Ann's last word, once the others are no longer highlighted: Bob's page highlights it.
LAST_WORD = "vet"
GOAL = 10
REACHED = re.compile(r"\breached\b")
# Solving the board and the round's events, on a busy machine.
ROUND_WAIT_MS = 30_000


def shot(page: Page, name: str, full_page: bool = False) -> None:
    screenshot(page, f"coop-{name}", full_page=full_page)


def switch_to_coop(host: Page, player: Page) -> None:
    """The host picks Co-op and a team goal in the settings; the player's summary says so."""
    form = host.locator("#settings-form")
    goal = form.get_by_label("Team goal")
    expect(goal).to_be_hidden()  # classic rooms have no goal
    form.get_by_role("radio", name="Co-op").check()
    expect(host.locator("#settings-status")).to_have_text("Saved ✓")
    expect(goal).to_be_visible()
    expect(goal).to_have_value("50")  # the default goal
    goal.fill(str(GOAL))
    goal.press("Tab")  # a change, as leaving the field makes it
    expect(player.locator("#settings-summary")).to_contain_text(f"co-op, team goal {GOAL}%")
    expect(host.locator("#settings-status")).to_have_text("Saved ✓")
    host.locator("#settings-card").scroll_into_view_if_needed()
    shot(host, "settings-laptop")
    player.locator("#settings-summary").scroll_into_view_if_needed()
    shot(player, "settings-phone")


def team_word(page: Page, word: str):
    return page.locator(f'#team-words li.team-word[data-word="{word}"]')


def test_a_coop_round_on_a_laptop_a_phone_and_the_table_screen(
    site, host_and_guest: OpenRoom
) -> None:
    total = len(words_on(BOARD))
    assert total == 25
    room = host_and_guest(guest_device=SHARP_PHONE)
    ann, bob, code = room.host, room.guest, room.code
    table = room.new_context(viewport=TABLE_SCREEN).new_page()
    errors = [room.host_errors, room.guest_errors, watch_errors(table)]
    table.goto(f"{site.url}/r/{code}/table/")
    expect(table.locator("#table-lobby")).to_be_visible()

    switch_to_coop(ann, bob)
    type_board(ann, TYPED)
    ann.locator("#start-round").click()
    for page in (ann, bob):
        wait_until_playing(page, timeout=ROUND_WAIT_MS)
        assert board_faces(page) == BOARD
        expect(page.locator("#round-rules")).to_contain_text("co-op: one team")
        expect(page.locator("#team-panel")).to_be_visible()
        expect(page.locator("#team-line")).to_have_text(f"0 of {total} words · goal {GOAL}%")

    # Each enters a word: it is counted for them, and the other page lists it with
    # the finder's name; the progress moves on every page.
    type_word(ann, ANN_WORDS[0])
    expect(my_word(ann, ANN_WORDS[0])).to_be_visible()
    type_word(bob, BOB_WORDS[0])
    expect(my_word(bob, BOB_WORDS[0])).to_be_visible()
    for page, other, mine, theirs in (
        (ann, "Bob", ANN_WORDS[0], BOB_WORDS[0]),
        (bob, "Ann", BOB_WORDS[0], ANN_WORDS[0]),
    ):
        expect(team_word(page, theirs)).to_be_visible(timeout=ROUND_WAIT_MS)
        expect(team_word(page, theirs).locator(".team-word-by")).to_have_text(other)
        expect(team_word(page, mine).locator(".team-word-by")).to_have_text("you")
        expect(page.locator("#team-line")).to_have_text(f"2 of {total} words · goal {GOAL}%")
        expect(page.locator("#team-panel .team-bar")).to_have_attribute("aria-valuenow", "2")
    expect(table.locator("#table-team")).to_be_visible()
    expect(table.locator("#table-team-line")).to_have_text(
        f"2 of {total} words · goal {GOAL}%", timeout=ROUND_WAIT_MS
    )

    # Two more each: 4 of 25 is past the 10% goal.
    type_word(ann, ANN_WORDS[1])
    type_word(bob, BOB_WORDS[1])
    for page in (ann, bob, table):
        line = page.locator("#team-line, #table-team-line")
        expect(line).to_have_text(f"4 of {total} words · goal {GOAL}%", timeout=ROUND_WAIT_MS)
        expect(line).to_have_class(REACHED)
    # On the laptop every word, newest first: Ann's BELT came before Bob's ELK (she
    # saw it counted before he typed), the last two in whichever order they came.
    expect(ann.locator("#team-words li.team-word")).to_have_count(4)
    found = ann.locator("#team-words li.team-word").evaluate_all(
        "items => items.map(i => i.dataset.word)"
    )
    assert sorted(found) == sorted(ANN_WORDS + BOB_WORDS), found
    assert found[2:] == [BOB_WORDS[0], ANN_WORDS[0]], found

    # One more once the highlights are gone: it comes in highlighted, first.
    for page in (ann, bob):
        expect(page.locator("#team-words li.team-word.fresh")).to_have_count(0)
    type_word(ann, LAST_WORD)
    expect(my_word(ann, LAST_WORD)).to_be_visible()
    for page in (ann, bob, table):
        line = page.locator("#team-line, #table-team-line")
        expect(line).to_have_text(f"5 of {total} words · goal {GOAL}%", timeout=ROUND_WAIT_MS)
    for page, finder in ((ann, "you"), (bob, "Ann")):
        newest = page.locator("#team-words li.team-word").first
        expect(newest).to_have_attribute("data-word", LAST_WORD)
        expect(newest.locator(".team-word-by")).to_have_text(finder)

    # The phone folds the list to the newest three, and the board and the word field
    # stay in view; "All 5 team words" opens it.
    expect(bob.locator("#team-words li.team-word")).to_have_count(3)
    toggle = bob.get_by_role("button", name="All 5 team words")
    expect(toggle).to_be_visible()
    bob.evaluate("() => window.scrollTo(0, 0)")
    bob.locator("#play-panel .board-wrap").scroll_into_view_if_needed()
    expect(bob.locator("#entry")).to_be_in_viewport()
    assert overflowing(bob) == []
    assert small_targets(bob) == []
    shot(bob, "round-phone-board")
    bob.locator("#team-panel").scroll_into_view_if_needed()
    shot(bob, "round-phone")
    toggle.click()
    expect(bob.locator("#team-words li.team-word")).to_have_count(5)
    expect(bob.get_by_role("button", name="Show fewer")).to_have_attribute("aria-expanded", "true")
    assert overflowing(bob) == []
    shot(bob, "round-phone-all")
    shot(ann, "round-laptop")
    expect(table.locator("#table-team .team-bar")).to_have_attribute("aria-valuenow", "5")
    # (its moments, "Goal reached!" among them, over before the picture)
    expect(table.locator("#table-moment")).to_be_hidden(timeout=ROUND_WAIT_MS)
    assert overflowing(table) == []
    shot(table, "table")
    for page in (ann, bob, table):
        assert serious_violations(page) == []

    # The host ends the round: the team reached its goal, on every page.
    ann.locator("#end-round").click()
    ann.locator("#end-round").click()
    for page in (ann, bob):
        expect(page.locator("#results-title")).to_have_text(
            "Round 1 results", timeout=ROUND_WAIT_MS
        )
        banner = page.locator("#results-body .team-banner")
        expect(banner).to_be_visible()
        expect(banner.get_by_role("heading")).to_have_text("★ Goal reached!")
        expect(banner).to_contain_text(
            f"The team found 20% of the words (5 of {total}), goal {GOAL}%."
        )
        expect(banner).to_contain_text("Team points: 5 pts")
        expect(page.locator("#team-panel")).to_be_hidden()

    # The words nobody found: folded (20 of them), opened, each lighting its path.
    found = {*ANN_WORDS, *BOB_WORDS, LAST_WORD}
    missed = bob.locator("#results-body .team-missed-card")
    summary = missed.locator("summary")
    expect(summary.get_by_role("heading")).to_have_text(
        f"Words nobody found ({total - len(found)})"
    )
    summary.click()
    chips = missed.locator(".chip-button")
    expect(chips).to_have_count(total - len(found))
    shown = chips.evaluate_all("buttons => buttons.map(b => b.dataset.word)")
    assert set(shown) == {entry.word for entry in words_on(BOARD)} - found
    assert [len(word) for word in shown] == sorted((len(word) for word in shown), reverse=True)
    chips.first.click()
    expect(bob.locator(".selected-word")).to_contain_text("nobody found it")
    missed.evaluate("card => card.scrollIntoView({ block: 'end' })")
    shot(bob, "results-missed-phone")
    assert overflowing(bob) == []
    assert small_targets(bob) == []
    bob.locator("#results-title").scroll_into_view_if_needed()
    shot(bob, "results-phone")
    shot(ann, "results-laptop")

    table_banner = table.locator("#table-results .team-banner")
    expect(table_banner).to_be_visible(timeout=ROUND_WAIT_MS)
    expect(table_banner).to_contain_text("Goal reached!")
    expect(table_banner).to_contain_text(f"(5 of {total}), goal {GOAL}%")
    expect(table.locator("#table-results-summary")).to_contain_text("Team points: 5 pts")
    assert overflowing(table) == []
    shot(table, "table-results")
    for page in (ann, bob, table):
        assert serious_violations(page) == []
    bob.emulate_media(color_scheme="dark")
    shot(bob, "results-phone-dark")
    assert serious_violations(bob) == []

    for found_errors in errors:
        assert found_errors == []
