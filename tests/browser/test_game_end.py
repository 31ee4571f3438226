"""The end of the game in real browsers: after a round the host ends the game (with a
confirm step), and every page shows the final standing, also after a reload; no more
rounds, challenges or votes are offered."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import (
    OpenRoom,
    overflowing,
    play_best_word,
    screenshot,
    wait_until_playing,
)

pytestmark = pytest.mark.browser


def standing_rows(page) -> list[tuple[str, str, str, bool]]:
    """The final standing as (rank, nickname, total, winner) rows."""
    rows = page.locator("#standing-panel tbody tr").evaluate_all(
        """rows => rows.map(row => [
            row.querySelector('.rank').textContent.replace('★', '').trim(),
            row.querySelector('.nickname').textContent,
            row.querySelector('td.num').textContent,
            row.classList.contains('winner'),
        ])"""
    )
    return [tuple(row) for row in rows]


def test_host_ends_the_game_and_everyone_sees_the_final_standing(
    site, host_and_guest: OpenRoom
) -> None:
    room = host_and_guest()
    ann, bob, code = room.host, room.guest, room.code
    ann_errors, bob_errors = room.host_errors, room.guest_errors
    table = ann.context.new_page()  # the table screen, watching without joining
    table.goto(f"{site.url}/r/{code}/table/")
    expect(table.locator("#table-lobby")).to_be_visible()

    # No round yet: nothing to end.
    expect(ann.locator("#end-game-button")).to_have_count(0)
    best = play_best_word(ann, bob)
    wait_until_playing(ann)
    expect(ann.locator("#end-game")).to_be_hidden()  # not while a round runs
    site.end_round_now(code)
    for page in (ann, bob):
        expect(page.locator("#results-title")).to_have_text("Round 1 results")

    # Only the host may end it, between rounds; a second step confirms.
    expect(bob.locator("#end-game")).to_be_hidden()
    end = ann.get_by_role("button", name="End game", exact=True)
    end.click()
    expect(ann.locator("#end-game-question")).to_contain_text("End the game for everyone?")
    ann.get_by_role("button", name="Keep playing").click()
    expect(ann.locator("#end-game-question")).to_have_count(0)
    expect(ann.locator("#next-round")).to_be_visible()
    end.click()
    screenshot(ann, "end-game-confirm")
    ann.get_by_role("button", name="Yes, end the game").click()

    expected = [("1", "Bob", str(best.points), True), ("2", "Ann", "0", False)]
    for page in (ann, bob):
        panel = page.locator("#standing-panel")
        expect(panel).to_be_visible()
        expect(panel.locator("#standing-title")).to_have_text("Final standing")
        expect(panel).to_contain_text("After 1 round")
        expect(panel.get_by_role("button", name="Start a new room")).to_have_count(0)
        expect(page.locator("#next-round")).to_be_hidden()
        expect(page.locator("#next-wait")).to_be_hidden()
        expect(page.locator("#end-game")).to_be_hidden()
        expect(page.locator("#photo-card")).to_be_hidden()
        assert standing_rows(page) == expected
    expect(ann.locator("#settings-card")).to_be_hidden()  # no next round to set up
    expect(table.locator("#table-results-title")).to_have_text("Final standing")
    expect(table.locator("#table-results-summary")).to_contain_text("Bob wins after 1 round")
    expect(table.locator(".table-standing-row")).to_have_count(2)
    expect(table.locator(".table-standing-row.winner")).to_contain_text("Bob")
    screenshot(table, "standing-table")
    expect(bob.locator(".standing-headline")).to_have_text("You win!")
    expect(ann.locator(".standing-headline")).to_have_text("Bob wins!")
    expect(bob.locator("#live")).to_contain_text("final standing")
    screenshot(ann, "standing-host", full_page=True)
    screenshot(bob, "standing-phone", full_page=True)
    assert overflowing(bob) == []

    # The standing is in the state: a reload shows it again.
    bob.reload()
    expect(bob.locator("#standing-panel")).to_be_visible()
    assert standing_rows(bob) == expected
    expect(bob.locator("#next-wait")).to_be_hidden()

    # The group stays together: the host's "New game" (tests/browser/test_rematch.py).
    expect(ann.get_by_role("button", name="New game")).to_be_visible()
    expect(bob.locator("#waiting-new-game")).to_have_text("Waiting for the host's new game")

    assert ann_errors == [] and bob_errors == []
