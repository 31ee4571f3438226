"""Games night flows in real browsers: the rematch keeps the group in the room (the host's
"New game"; the others wait for it), a returning player keeps their points on everyone's
list, and a kicked player's page reads plainly."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import (
    LAPTOP,
    TOUCH_PHONE,
    OpenRoom,
    join_room,
    overflowing,
    play_best_word,
    screenshot,
)

pytestmark = pytest.mark.browser


def shot(page: Page, name: str) -> None:
    """A whole-page screenshot of a step of the flow (BOGGLE_SCREENSHOT_DIR, as every one)."""
    screenshot(page, f"rematch-flow-{name}", full_page=True)


def player_row(page: Page, nickname: str):
    return page.locator("#players .player").filter(has_text=nickname)


def play_a_word(site, code: str, host: Page, player: Page) -> int:
    """One round: the player enters the board's best word; returns its points."""
    best = play_best_word(host, player)
    site.end_round_now(code)
    expect(player.locator("#results-panel")).to_be_visible()
    return best.points


@pytest.mark.parametrize("host_viewport", ["laptop", "phone"])
def test_the_hosts_new_game_keeps_the_group_in_the_room(
    site, host_and_guest: OpenRoom, host_viewport
) -> None:
    room = host_and_guest(host_device=LAPTOP if host_viewport == "laptop" else TOUCH_PHONE)
    ann, bob, code, link = room.host, room.guest, room.code, room.link
    ann_errors, bob_errors = room.host_errors, room.guest_errors
    points = play_a_word(site, code, ann, bob)
    ann.get_by_role("button", name="End game", exact=True).click()
    ann.get_by_role("button", name="Yes, end the game").click()

    # The others wait in the room for the host's new game; nobody is sent off to make
    # a room of their own.
    expect(bob.locator("#standing-panel")).to_be_visible()
    expect(bob.locator("#waiting-new-game")).to_have_text("Waiting for the host's new game")
    expect(bob.locator("#standing-panel")).to_contain_text("when Ann starts a new game")
    expect(bob.get_by_role("button", name="Start a new room")).to_have_count(0)
    expect(bob.get_by_role("button", name="New game")).to_have_count(0)
    new_game = ann.get_by_role("button", name="New game")
    expect(new_game).to_be_visible()
    expect(ann.locator("#standing-panel")).to_contain_text("same link and QR code")
    shot(ann, f"host-standing-{host_viewport}")
    shot(bob, f"player-waiting-{host_viewport}")
    # docs/features.md's screenshots (with BOGGLE_SCREENSHOT_DIR): the host's "New game", and a
    # player waiting for it (Bob is on a phone in both runs: saved once).
    screenshot(ann, f"rematch-host-{host_viewport}")
    if host_viewport == "phone":
        screenshot(bob, "rematch-waiting-phone")
    assert overflowing(bob) == []

    # A visitor opening the ended game's link is told so.
    visitor = room.new_context(**TOUCH_PHONE).new_page()
    visitor.goto(link)
    expect(visitor.locator("#join-game-over")).to_be_visible()
    expect(visitor.locator("#join-game-over")).to_contain_text("This game is over")
    shot(visitor, f"visitor-game-over-{host_viewport}")
    visitor.goto(f"{site.url}/r/{code}/rounds/1/")
    expect(visitor.locator("#game-over-note")).to_contain_text("has not started a new game")

    new_game.click()
    # Same room, same link: everyone is in the lobby of the new game, scores at zero.
    for page in (ann, bob):
        expect(page.locator("#lobby-panel")).to_be_visible()
        expect(page.locator("#standing-panel")).to_be_hidden()
        expect(page.locator("#lobby-title")).to_have_text("New game: scores start from zero")
        assert page.url == link
        expect(player_row(page, "Bob")).not_to_contain_text("pt")
        # The ended game stays in the history.
        expect(page.locator("#history-card")).to_be_visible()
        expect(page.locator("#history-card")).to_contain_text("Round 1")
    expect(ann.locator("#start-round")).to_be_visible()
    expect(bob.locator("#lobby-wait")).to_have_text("Waiting for Ann to start the round.")
    expect(bob.locator("#live")).to_contain_text("new game")
    shot(ann, f"host-new-game-lobby-{host_viewport}")
    shot(bob, f"player-new-game-lobby-{host_viewport}")

    # The visitor's link now says a new game is open.
    visitor.reload()
    expect(visitor.locator("#game-over-note")).to_contain_text("A new game is open")
    expect(visitor.locator("#join-room-link")).to_have_text("Join the new game")
    visitor.goto(link)
    expect(visitor.locator("#join-game-over")).to_be_hidden()

    # The new game's round counts from zero; a reload shows the same.
    again = play_a_word(site, code, ann, bob)
    expect(player_row(ann, "Bob")).to_contain_text(f"{again} pt")
    bob.reload()
    expect(player_row(bob, "Bob")).to_contain_text(f"{again} pt")
    if points != again:
        expect(player_row(bob, "Bob")).not_to_contain_text(f"{points + again} pt")
    expect(bob.locator("#history-card")).to_contain_text("Game 1, round 1")
    expect(bob.locator("#history-card")).to_contain_text("Game 2, round 1")
    assert ann_errors == [] and bob_errors == []


def test_a_returning_player_keeps_their_points_on_the_hosts_list(
    site, host_and_guest: OpenRoom
) -> None:
    """Sofie leaves and comes back, then is removed and let back in: the host's list shows
    her points each time, without a reload. Her page, removed, reads plainly and does not
    list her among those here."""
    room = host_and_guest(guest="Sofie")
    ann, sofie, code, link = room.host, room.guest, room.code, room.link
    points = play_a_word(site, code, ann, sofie)
    expect(player_row(ann, "Sofie")).to_contain_text(f"{points} pt")

    sofie.once("dialog", lambda dialog: dialog.accept())
    sofie.locator("#leave").click()
    # The start page itself: "/$" alone also matches the room's own "/r/<code>/".
    sofie.wait_for_url(re.compile(r"^https?://[^/]+/$"))
    expect(player_row(ann, "Sofie")).to_have_count(0)
    join_room(sofie, link, "Sofie")
    expect(player_row(ann, "Sofie")).to_contain_text("online")
    expect(player_row(ann, "Sofie")).to_contain_text(f"{points} pt")

    ann.get_by_role("button", name="Remove: Sofie").click()
    ann.get_by_role("button", name="Sure? Remove: Sofie").click()
    expect(sofie.locator("#gone-panel")).to_be_visible()
    # Joining again is refused until the host lets her back: not offered meanwhile.
    expect(sofie.get_by_role("button", name="Join again")).to_be_hidden()
    shot(sofie, "kicked-phone")
    ann.get_by_role("button", name="Let back in: Sofie").click()
    # Her page hears it (it asks every few seconds) and offers to join again.
    expect(sofie.locator("#gone-title")).to_have_text("The host let you back in")
    sofie.get_by_role("button", name="Join again").click()
    expect(sofie.locator("#join-players")).to_have_text("Here already: Ann.")
    sofie.get_by_label("Your nickname").fill("Sofie")
    sofie.locator("#join-form button[type=submit]").click()
    expect(sofie.locator("#game")).to_be_visible()
    expect(player_row(ann, "Sofie")).to_contain_text("online")
    expect(player_row(ann, "Sofie")).to_contain_text(f"{points} pt")
    shot(ann, "host-sees-sofie-back-laptop")
