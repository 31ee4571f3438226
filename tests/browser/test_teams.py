"""Teams mode in real browsers: two teams in one room, duplicates cancelling between teams
and not within one, the teams' totals on every screen (static/js/room/teams.js,
players.js, settings.js, results.js, standing.js, table/main.js, table/results.js).

Ann hosts on a laptop and switches the room to teams (two); Bob and Cid join on phones.
The server places everyone in the smallest team: Ann and Cid in Team 1, Bob in Team 2,
and every page groups the players so. Bob joins Team 1 with his own button: everyone is in
one team, and the host's start is refused with the server's reason under her button. She
moves Bob back with her control, and the round (a typed board) starts; a table screen
watches. Ann and Cid both find BELT (teammates: both score it), Ann and Bob both find VERB
(two teams: it cancels), Cid finds VET, Bob ELK and ELM. Team 1 has 3 points, Team 2 has
2: the team ranking heads the results on every page, and, once the host ends the game,
the final standing.

Screenshots (BOGGLE_SCREENSHOT_DIR): teams-lobby-phone.png, teams-round-laptop.png,
teams-results-phone.png, teams-table.png (and a few more teams-*).
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
    join_room,
    my_word,
    overflowing,
    player_words,
    screenshot,
    small_targets,
    type_board,
    type_word,
    wait_until_playing,
    watch_errors,
)
from tests.browser.test_accessibility import serious_violations
from tests.browser.test_coop import BOARD, TYPED  # a board with 25 words

pytestmark = pytest.mark.browser

WORDS = {"Ann": ["belt", "verb"], "Cid": ["belt", "vet"], "Bob": ["verb", "elk", "elm"]}
TEAMS_INCOMPLETE = "A teams round needs players in two teams at least"
# Solving the board and the round's events, on a busy machine.
ROUND_WAIT_MS = 30_000


def shot(page: Page, name: str, full_page: bool = False) -> None:
    screenshot(page, f"teams-{name}", full_page=full_page)


def team_group(page: Page, team: int):
    return page.locator(f'#players li.team-group[data-team="{team}"]')


def expect_teams(pages: list[Page], one: list[str], two: list[str]) -> None:
    """Every page lists the players in these teams (in the room's order)."""
    for page in pages:
        expect(team_group(page, 1).locator("li.player .nickname")).to_have_text(one)
        expect(team_group(page, 2).locator("li.player .nickname")).to_have_text(two)


def chip(page: Page, nickname: str, word: str):
    return player_words(page, nickname).locator(f'.chip-button[data-word="{word}"]').locator("..")


def test_a_teams_game_on_a_laptop_two_phones_and_the_table_screen(
    site, host_and_guest: OpenRoom
) -> None:
    room = host_and_guest(guest_device=SHARP_PHONE)
    ann, bob, code = room.host, room.guest, room.code
    cid = room.new_context(**SHARP_PHONE).new_page()
    table = room.new_context(viewport=TABLE_SCREEN).new_page()
    players = [ann, bob, cid]
    errors = [room.host_errors, room.guest_errors, watch_errors(cid), watch_errors(table)]
    join_room(cid, room.link, "Cid")
    table.goto(f"{site.url}/r/{code}/table/")
    expect(table.locator("#table-lobby")).to_be_visible()

    # The host switches the room to teams: two by default, set in the settings.
    form = ann.locator("#settings-form")
    count = form.get_by_label("Number of teams")
    expect(count).to_be_hidden()  # classic rooms have no teams
    form.get_by_role("radio", name="Teams").check()
    expect(ann.locator("#settings-status")).to_have_text("Saved ✓")
    expect(count).to_be_visible()
    expect(count).to_have_value("2")
    for page in (bob, cid):
        expect(page.locator("#settings-summary")).to_contain_text("teams: 2")
        expect(page.locator("#settings-form")).to_be_hidden()

    # Everyone is placed in the smallest team, and sees it: Ann and Cid in Team 1, Bob in 2.
    expect_teams(players, ["Ann", "Cid"], ["Bob"])
    for page in players:
        expect(team_group(page, 1).get_by_role("heading")).to_have_accessible_name("Team 1")
        expect(team_group(page, 2).get_by_role("heading")).to_have_accessible_name("Team 2")
    expect(cid.get_by_role("button", name="Join Team 2")).to_be_visible()
    expect(cid.get_by_role("button", name="Join Team 1")).to_have_count(0)
    expect(bob.get_by_role("button", name="Join Team 1")).to_be_visible()
    # Only the host moves others.
    expect(bob.get_by_role("button", name="Move to Team 2: Cid")).to_have_count(0)
    expect(ann.get_by_role("button", name="Move to Team 2: Cid")).to_be_visible()
    expect(ann.get_by_role("button", name="Move to Team 1: Bob")).to_be_visible()
    expect(table.locator('#table-players .table-team-group[data-team="1"]')).to_contain_text("Ann")
    expect(table.locator('#table-players .table-team-group[data-team="2"]')).to_contain_text("Bob")

    # Bob joins Team 1 with his button: everyone in one team.
    bob.get_by_role("button", name="Join Team 1").click()
    expect_teams(players, ["Ann", "Bob", "Cid"], [])
    expect(bob.get_by_role("button", name="Join Team 2")).to_be_visible()
    expect(team_group(ann, 2)).to_contain_text("Nobody yet.")

    # The host's start is refused: she reads why under her button, and nothing starts.
    ann.locator("#start-round").click()
    start_error = ann.locator("#start-error")
    expect(start_error).to_be_visible()
    expect(start_error).to_contain_text(TEAMS_INCOMPLETE)
    expect(ann.locator("#lobby-panel")).to_be_visible()
    assert serious_violations(ann) == []

    # She moves Bob back to Team 2 with her control for him.
    ann.get_by_role("button", name="Move to Team 2: Bob").click()
    expect_teams(players, ["Ann", "Cid"], ["Bob"])
    expect(start_error).to_be_hidden()
    expect(table.locator('#table-players .table-team-group[data-team="2"]')).to_contain_text("Bob")
    for page in players:
        assert overflowing(page) == []
    for page in (bob, cid):
        assert small_targets(page) == []
    cid.locator("#players-card").scroll_into_view_if_needed()
    shot(cid, "lobby-phone")
    ann.locator("#players-card").scroll_into_view_if_needed()
    shot(ann, "lobby-laptop")
    shot(table, "table-lobby")
    for page in (*players, table):
        assert serious_violations(page) == []
    cid.emulate_media(color_scheme="dark")
    shot(cid, "lobby-phone-dark")
    assert serious_violations(cid) == []
    cid.emulate_media(color_scheme="light")

    # A round on a known board.
    type_board(ann, TYPED)
    ann.locator("#start-round").click()
    for page in players:
        wait_until_playing(page, timeout=ROUND_WAIT_MS)
        assert board_faces(page) == BOARD
    expect(ann.locator("#round-rules")).to_contain_text("you play for Team 1")
    expect(bob.locator("#round-rules")).to_contain_text("you play for Team 2")
    expect(ann.locator("#round-rules")).to_contain_text("words shared between teams score 0")
    for page, nickname in ((ann, "Ann"), (cid, "Cid"), (bob, "Bob")):
        for word in WORDS[nickname]:
            type_word(page, word)
            expect(my_word(page, word)).to_be_visible()

    # Each team's words so far (its players' counts) and its total, on every screen.
    for page in players:
        expect(team_group(page, 1).locator(".team-count")).to_have_text(
            "4 words", timeout=ROUND_WAIT_MS
        )
        expect(team_group(page, 2).locator(".team-count")).to_have_text(
            "3 words", timeout=ROUND_WAIT_MS
        )
        expect(team_group(page, 1).locator(".team-total")).to_have_text("total 0 pts")
        # Teams change between rounds only.
        expect(page.get_by_role("button", name="Join Team 2")).to_have_count(0)
        expect(page.locator("#players .team-move")).to_have_count(0)
    expect(ann.locator('#players li.player[data-team="2"] .team-badge')).to_contain_text("Team 2")
    table_team = table.locator('#table-team-counts li[data-team="1"]')
    expect(table_team.locator(".table-team-words")).to_have_text("4 words", timeout=ROUND_WAIT_MS)
    expect(table.locator('#table-team-counts li[data-team="2"] .table-team-words')).to_have_text(
        "3 words"
    )
    expect(table.locator("#table-counts li[data-player] .team-badge")).to_have_count(3)
    ann.locator("#players-card").scroll_into_view_if_needed()
    shot(ann, "round-laptop")
    bob.locator("#players-card").scroll_into_view_if_needed()
    shot(bob, "round-phone-players")
    expect(table.locator("#table-moment")).to_be_hidden(timeout=ROUND_WAIT_MS)
    assert overflowing(table) == []
    shot(table, "table")
    for page in (*players, table):
        assert overflowing(page) == []
        assert serious_violations(page) == []

    # The host ends the round: the teams ranked above the players, on every page.
    ann.locator("#end-round").click()
    ann.locator("#end-round").click()
    for page, team in ((ann, 1), (bob, 2), (cid, 1)):
        expect(page.locator("#results-title")).to_have_text(
            "Round 1 results", timeout=ROUND_WAIT_MS
        )
        rows = page.locator("#results-body .teams-ranking tbody tr")
        expect(rows).to_have_count(2)
        expect(rows.nth(0)).to_have_attribute("data-team", "1")
        expect(rows.nth(0).locator("td")).to_have_text(["★ 1", "3", "3"])
        expect(rows.nth(1)).to_have_attribute("data-team", "2")
        expect(rows.nth(1).locator("td")).to_have_text(["2", "2", "2"])
        for name in {ann: ("you", "Cid"), bob: ("Ann", "Cid"), cid: ("Ann", "you")}[page]:
            expect(rows.nth(0).locator(".team-players")).to_contain_text(name)
        expect(
            page.locator(f'#results-body .teams-ranking tr.mine[data-team="{team}"]')
        ).to_have_count(1)
        # VERB, found in both teams, cancels for both; BELT, found by two teammates,
        # counts for each.
        for nickname in ("Ann", "Bob"):
            expect(chip(page, nickname, "verb")).to_have_class("chip cancelled")
            expect(chip(page, nickname, "verb")).to_contain_text("duplicate · 0")
        for nickname in ("Ann", "Cid"):
            expect(chip(page, nickname, "belt")).to_have_class("chip good")
            expect(chip(page, nickname, "belt")).to_contain_text("+1")
        expect(player_words(page, "Bob").locator(".team-badge")).to_contain_text("Team 2")
    expect(cid.locator("#results-summary")).to_contain_text("Team 1 scored 3 pts this round.")
    # Shared as text, the teams' ranking comes before the players'.
    cid.evaluate(
        "() => { navigator.share = async (data) => { document.body.dataset.shared = data.text; }; }"
    )
    cid.get_by_role("button", name="Share the results").click()
    expect(cid.locator("body")).to_have_attribute("data-shared", re.compile("Team 1"))
    shared = cid.evaluate("document.body.dataset.shared").splitlines()
    assert shared[1:3] == ["1. Team 1: 3 pts (total 3)", "2. Team 2: 2 pts (total 2)"], shared
    # Between rounds the players list shows the totals.
    expect(team_group(ann, 1).locator(".team-total")).to_have_text("total 3 pts")
    expect(team_group(ann, 2).locator(".team-total")).to_have_text("total 2 pts")

    table_rows = table.locator("#table-results .table-teams-ranking tbody tr")
    expect(table_rows).to_have_count(2, timeout=ROUND_WAIT_MS)
    expect(table_rows.nth(0)).to_have_attribute("data-team", "1")
    expect(table_rows.nth(0).locator(".points")).to_have_text("3")
    expect(table.locator("#table-results-summary")).to_contain_text(
        "Team 1 wins the round with 3 pts."
    )
    expect(table.locator('#table-results .table-word.cancelled[data-word="verb"]')).to_have_count(2)

    bob.locator("#results-title").scroll_into_view_if_needed()
    shot(bob, "results-phone")
    bob.locator("#results-body .player-words").first.scroll_into_view_if_needed()
    shot(bob, "results-words-phone")
    shot(ann, "results-laptop")
    shot(table, "table-results")
    for page in (*players, table):
        assert overflowing(page) == []
        assert serious_violations(page) == []
    bob.emulate_media(color_scheme="dark")
    bob.locator("#results-title").scroll_into_view_if_needed()
    shot(bob, "results-phone-dark")
    assert serious_violations(bob) == []
    bob.emulate_media(color_scheme="light")

    # The host ends the game: the teams' standing above the players'.
    ann.get_by_role("button", name="End game", exact=True).click()
    ann.get_by_role("button", name="Yes, end the game").click()
    for page in players:
        panel = page.locator("#standing-panel")
        expect(panel).to_be_visible(timeout=ROUND_WAIT_MS)
        expect(panel.locator(".standing-headline")).to_have_text("Team 1 wins!")
        rows = panel.locator(".teams-standing tbody tr")
        expect(rows).to_have_count(2)
        expect(rows.nth(0)).to_have_attribute("data-team", "1")
        expect(rows.nth(0).locator("td.total")).to_have_text("3")
        expect(rows.nth(1).locator("td.total")).to_have_text("2")
        # The teams come first, then the players.
        assert panel.locator(".standing-teams").evaluate(
            "teams => !!(teams.compareDocumentPosition(document.querySelector('.standing-table:not(.teams-standing)')) & Node.DOCUMENT_POSITION_FOLLOWING)"
        )
    expect(table.locator("#table-results-title")).to_have_text(
        "Final standing", timeout=ROUND_WAIT_MS
    )
    expect(table.locator("#table-results-summary")).to_contain_text("Team 1 wins!")
    expect(table.locator("#table-teams-standing-title")).to_have_text("The teams' totals")
    expect(table.locator(".table-teams-standing .table-standing-row").first).to_have_attribute(
        "data-team", "1"
    )
    shot(cid, "standing-phone", full_page=True)
    shot(table, "table-standing")
    for page in (*players, table):
        assert overflowing(page) == []
        assert serious_violations(page) == []

    for found_errors in errors:
        assert found_errors == []
