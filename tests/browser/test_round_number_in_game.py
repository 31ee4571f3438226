"""After the host's "New game", the pages count the new game's rounds from 1 again (the
room's round numbers run on, and stay in links): the play view, the results, the host's
next-round button, the history and the table screen."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import (
    DESKTOP,
    create_room,
    phone_context,
    wait_until_playing,
    watch_errors,
)

pytestmark = pytest.mark.browser


def wait_for_the_new_round(page: Page) -> None:
    """The play view shows the new round, its clock started. The word field of a round
    ended early can still be enabled under the results, so wait for them to go first."""
    expect(page.locator("#results-panel")).to_be_hidden()
    expect(page.locator("#play-panel")).to_be_visible()
    wait_until_playing(page)


def play_round(site, code: str, host: Page) -> None:
    """The host starts a round (from the lobby or the results) and the server ends it."""
    host.locator("#start-round:visible, #next-round:visible").click()
    wait_for_the_new_round(host)
    site.end_round_now(code)
    expect(host.locator("#results-panel")).to_be_visible()


def test_a_new_games_first_round_is_round_1_on_every_screen(site, browser) -> None:
    host_context = phone_context(browser)
    table_context = browser.new_context(viewport=DESKTOP)
    try:
        ann, table = host_context.new_page(), table_context.new_page()
        errors = watch_errors(ann)
        code = create_room(ann, site.url, "Ann")
        table.goto(f"{site.url}/r/{code}/table/")
        # Two rounds in game 1: what game 1's last round left on screen reads "Round 2", so
        # "Round 1" below can only be the new game's round.
        play_round(site, code, ann)
        play_round(site, code, ann)
        expect(table.locator("#table-results-title")).to_have_text("Round 2 results")
        ann.get_by_role("button", name="End game", exact=True).click()
        ann.get_by_role("button", name="Yes, end the game").click()
        ann.get_by_role("button", name="New game").click()
        expect(ann.locator("#lobby-panel")).to_be_visible()

        ann.locator("#start-round").click()
        wait_for_the_new_round(ann)  # the room's round 3, the new game's round 1
        expect(ann.locator("#round-title")).to_have_text("Round 1")
        expect(table.locator("#table-round-title")).to_have_text("Round 1")
        site.end_round_now(code)
        expect(ann.locator("#results-title")).to_have_text("Round 1 results")
        expect(ann.locator("#next-round")).to_have_text("Start round 2")
        expect(table.locator("#table-results-title")).to_have_text("Round 1 results")
        expect(ann.locator("#history-card")).to_contain_text("Game 2, round 1")
        expect(ann.locator("#history-card")).to_contain_text("Game 1, round 2")
        # Links keep the room's round number: this round's page is /rounds/3/.
        expect(ann.locator("#history-card a.history-round").first).to_have_attribute(
            "href", f"{site.url}/r/{code}/rounds/3/"
        )
        assert errors == []
    finally:
        host_context.close()
        table_context.close()
