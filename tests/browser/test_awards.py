"""Awards at the end of a game (issue 32), in real browsers: two players, two rounds on a
typed board with words chosen so that the awards are known; the host ends the game and the
phone, the host's laptop and the table screen show every award with its winners (the
viewer's own marked), and the room's history keeps them, also for an earlier game after a
rematch (static/js/room/awards.js, standing.js, history.js, table/results.js).

The words: round 1 Ann DOG, Bob ZEX; round 2 Ann QUIET, Bob WENT (1 point each, QUIET 2).
Longest word: Ann's QUIET. Best find (rarest in print): Bob's ZEX, the only word rarer than
once per million. Most words nobody else found: a tie, 2 each. Most improved: Ann, 1 → 2
points (Bob stays at 1). Fastest first word: whoever typed first.

Screenshots (BOGGLE_SCREENSHOT_DIR, as every one): awards-*.png; for docs/features.md,
awards-phone.png (a phone's final standing) and awards-table.png (the table screen).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import (
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

# Typed before each round (the photo card's "Type a board"); Q is the Qu die.
TYPED = "catsqiexdogzwent"
BOARD = [list("cats"), ["qu", "i", "e", "x"], list("dogz"), list("went")]
AWARDS = ["longest_word", "most_unique", "best_find", "fastest_first_word", "most_improved"]
# Solving the board and the round's events, on a busy machine.
ROUND_WAIT_MS = 30_000


def shot(page: Page, name: str, full_page: bool = False) -> None:
    screenshot(page, f"awards-{name}", full_page=full_page)


def play_round(site, code: str, number: int, moves: list[tuple[Page, str]]) -> None:
    """Round ``number`` on the typed board: each page enters its word and sees it counted;
    then the round ends and every page shows its results."""
    pages = [page for page, _ in moves]
    for page in pages:
        expect(page.locator("#round-title")).to_contain_text(str(number), timeout=ROUND_WAIT_MS)
        wait_until_playing(page, timeout=ROUND_WAIT_MS)
        assert board_faces(page) == BOARD
    for page, word in moves:
        type_word(page, word)
    for page, word in moves:
        expect(my_word(page, word)).to_be_visible()
    site.end_round_now(code)
    for page in pages:
        expect(page.locator("#results-title")).to_have_text(
            f"Round {number} results", timeout=ROUND_WAIT_MS
        )


def award(root, name: str):
    return root.locator(f'li.award[data-award="{name}"]')


def winners(root, name: str) -> list[str]:
    return award(root, name).locator(".award-winner .nickname").all_text_contents()


def check_awards(root, you: str | None = None) -> None:
    """Every award in its order, with the winners the words decide; ``you``: the viewer,
    whose awards are marked."""
    expect(root.locator("li.award")).to_have_count(len(AWARDS))
    assert root.locator("li.award").evaluate_all("items => items.map(i => i.dataset.award)") == (
        AWARDS
    )
    expect(award(root, "longest_word")).to_contain_text("Longest word")
    expect(award(root, "longest_word").locator(".award-word")).to_have_text("quiet")
    expect(award(root, "longest_word")).to_contain_text("(round 2)")
    assert winners(root, "longest_word") == ["Ann"]
    expect(award(root, "most_unique")).to_contain_text("Most words nobody else found")
    assert sorted(winners(root, "most_unique")) == ["Ann", "Bob"]
    expect(award(root, "most_unique").locator(".award-winner").first).to_contain_text("2 words")
    expect(award(root, "best_find")).to_contain_text("Best find")
    expect(award(root, "best_find").locator(".award-word")).to_have_text("zex")
    assert winners(root, "best_find") == ["Bob"]
    expect(award(root, "fastest_first_word")).to_contain_text("Fastest first word")
    expect(award(root, "fastest_first_word")).to_contain_text(" s (round ")
    assert winners(root, "fastest_first_word")[0] in ("Ann", "Bob")
    expect(award(root, "most_improved")).to_contain_text("Most improved")
    expect(award(root, "most_improved")).to_contain_text("1 → 2 points")
    assert winners(root, "most_improved") == ["Ann"]
    if you is None:
        expect(root.locator(".award.mine, .award-winner .badge")).to_have_count(0)
        return
    mine = root.locator(".award-winner.mine .nickname").all_text_contents()
    assert mine and set(mine) == {you}, mine
    if you == "Ann":
        expect(award(root, "longest_word")).to_have_class("award mine")
        expect(award(root, "best_find")).to_have_class("award")
    else:
        expect(award(root, "best_find")).to_have_class("award mine")
        expect(award(root, "longest_word")).to_have_class("award")
    expect(award(root, "most_unique")).to_have_class("award mine")  # shared, theirs too


def test_awards_on_phones_the_table_screen_and_in_the_history(
    site, host_and_guest: OpenRoom
) -> None:
    room = host_and_guest()
    ann, bob, code = room.host, room.guest, room.code
    ann_errors, bob_errors = room.host_errors, room.guest_errors
    table = room.new_context(viewport=TABLE_SCREEN).new_page()
    table_errors = watch_errors(table)
    table.goto(f"{site.url}/r/{code}/table/")
    expect(table.locator("#table-lobby")).to_be_visible()

    # Two rounds on the same typed board.
    type_board(ann, TYPED)
    ann.locator("#start-round").click()
    play_round(site, code, 1, [(ann, "dog"), (bob, "zex")])
    type_board(ann, TYPED)
    ann.locator("#next-round").click()
    play_round(site, code, 2, [(ann, "quiet"), (bob, "went")])

    ann.get_by_role("button", name="End game", exact=True).click()
    ann.get_by_role("button", name="Yes, end the game").click()

    # Under the final standing, on the phone and on the host's laptop.
    for page, you in ((bob, "Bob"), (ann, "Ann")):
        panel = page.locator("#standing-panel")
        expect(panel).to_be_visible()
        awards = panel.locator(".standing-awards")
        expect(awards.get_by_role("heading", name="Awards", exact=True)).to_be_visible()
        check_awards(awards, you)
        expect(award(awards, "longest_word").get_by_role("heading")).to_have_text("Longest word")
    assert overflowing(bob) == []
    assert small_targets(bob) == []
    bob.locator(".standing-awards").scroll_into_view_if_needed()
    shot(bob, "phone")
    shot(bob, "phone-full", full_page=True)
    shot(ann, "host-laptop")
    assert serious_violations(bob) == []
    bob.emulate_media(color_scheme="dark")
    shot(bob, "phone-dark")
    assert serious_violations(bob) == []
    bob.emulate_media(color_scheme="light")

    # The table screen: the same awards, big, under the game's totals.
    awards = table.locator("#table-results .table-awards")
    expect(awards).to_be_visible(timeout=ROUND_WAIT_MS)
    check_awards(awards)
    box = award(awards, "longest_word").locator(".award-word").bounding_box()
    assert box is not None and box["height"] >= 28, box  # readable from across the table
    assert overflowing(table) == []
    shot(table, "table")
    assert serious_violations(table) == []

    # A French table screen says the same in French.
    french = room.new_context(viewport=TABLE_SCREEN, locale="fr-FR").new_page()
    french_errors = watch_errors(french)
    french.goto(f"{site.url}/r/{code}/table/")
    french_awards = french.locator("#table-results .table-awards")
    expect(french_awards.get_by_role("heading", name="Récompenses")).to_be_visible()
    expect(award(french_awards, "longest_word")).to_contain_text("Mot le plus long")
    expect(award(french_awards, "longest_word")).to_contain_text("(manche 2)")
    expect(award(french_awards, "most_improved")).to_contain_text("1 → 2 points")
    assert overflowing(french) == []
    shot(french, "table-fr")

    # The history keeps them: the game's stats and awards, also after a reload.
    for page, you in ((bob, "Bob"), (ann, "Ann")):
        history = page.locator("#history-card .history-awards")
        expect(history).to_be_visible()
        check_awards(history, you)
    bob.reload()
    expect(bob.locator("#standing-panel .standing-awards")).to_be_visible()
    check_awards(bob.locator("#standing-panel .standing-awards"), "Bob")
    history = bob.locator("#history-card .history-awards")
    check_awards(history, "Bob")
    history.scroll_into_view_if_needed()
    assert overflowing(bob) == []
    shot(bob, "history-phone")
    assert serious_violations(bob) == []

    # A rematch: until the new game has an ended round, the history shows the last
    # game's awards; then its own, and a choice of game brings game 1's back.
    ann.get_by_role("button", name="New game").click()
    expect(ann.locator("#lobby-panel")).to_be_visible()
    check_awards(ann.locator("#history-card .history-awards"), "Ann")
    expect(ann.locator("#history-game")).to_have_count(0)
    ann.locator("#start-round").click()
    expect(ann.locator("#play-panel")).to_be_visible()
    wait_until_playing(ann, timeout=ROUND_WAIT_MS)
    ann.wait_for_function(
        "() => [...document.querySelectorAll('#play-board .die')].every(d => d.dataset.face)"
    )
    best = words_on(board_faces(ann))[0].word
    type_word(ann, best)
    expect(my_word(ann, best)).to_be_visible()
    site.end_round_now(code)
    expect(ann.locator("#results-title")).to_have_text("Round 1 results", timeout=ROUND_WAIT_MS)
    card = ann.locator("#history-card")
    picker = card.get_by_label("Stats and awards of")
    expect(picker).to_have_value("2")
    expect(picker.locator("option")).to_have_text(["Game 2 (this game)", "Game 1"])
    expect(award(card, "longest_word").locator(".award-word")).to_have_text(best)
    expect(award(card, "best_find")).to_have_count(1)
    expect(award(card, "most_improved")).to_have_count(0)  # one round: nobody improved
    picker.focus()
    picker.select_option("1")
    expect(award(card, "most_improved")).to_have_count(1)
    check_awards(card.locator(".history-awards"), "Ann")
    expect(card.locator(".stats-table tbody tr")).to_have_count(2)
    expect(picker).to_be_focused()
    card.locator(".history-awards").scroll_into_view_if_needed()
    shot(ann, "history-laptop")
    assert serious_violations(ann) == []

    assert ann_errors == [] and bob_errors == []
    assert table_errors == [] and french_errors == []
