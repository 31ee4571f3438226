"""A room keeps its rounds: the history card lists them with the game's stats, an earlier
round opens read-only, its link works for anyone (no session, no actions), and its picture
is a PNG the server draws (static/js/room/history.js, share-round.js, static/js/round/)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.helpers import (
    DESKTOP,
    PHONE,
    board_faces,
    my_word,
    overflowing,
    screenshot,
    small_targets,
    start_solo_round,
    type_word,
    wait_until_playing,
    watch_errors,
    words_on,
)

pytestmark = pytest.mark.browser

# A share sheet that takes files and keeps what it was given, as a phone's would.
FAKE_SHARE_SHEET = """
window.shared = [];
navigator.canShare = (data) => Boolean(data && data.files && data.files.length);
navigator.share = async (data) => { window.shared.push(data); };
"""


def end_round(site, page: Page, code: str, number: int) -> None:
    site.end_round_now(code)
    expect(page.locator("#results-title")).to_have_text(f"Round {number} results", timeout=10_000)


def play_two_rounds(site, page: Page) -> tuple[str, str, str]:
    """Two solo rounds, one word in each; returns the code and the two words."""
    code, found = start_solo_round(page, site.url, "Sasha")
    first = found[0].word
    end_round(site, page, code, 1)
    page.locator("#next-round").click()
    # The word field may still be enabled from round 1: wait for round 2's board instead.
    grid = None
    for _ in range(100):
        round_ = page.request.get(f"{site.url}/api/rooms/{code}").json()["room"]["round"]
        if round_["number"] == 2 and round_["status"] == "running":
            grid = round_["grid"]
            break
        page.wait_for_timeout(100)
    assert grid is not None, "round 2 never started"
    for cell, face in enumerate(face for row in grid for face in row):
        die = page.locator(f'#play-board .die[data-cell="{cell}"]')
        expect(die).to_have_attribute("data-face", face)
    wait_until_playing(page)
    second = words_on(board_faces(page))[0].word
    type_word(page, second)
    expect(my_word(page, second)).to_be_visible()
    end_round(site, page, code, 2)
    return code, first, second


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "laptop"])
def test_history_stats_and_a_read_only_round(site, browser: Browser, viewport) -> None:
    phone = viewport == PHONE
    context = browser.new_context(
        viewport=viewport,
        has_touch=phone,
        is_mobile=phone,
        permissions=["clipboard-read", "clipboard-write"],
    )
    context.add_init_script(FAKE_SHARE_SHEET)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        code, first, second = play_two_rounds(site, page)

        # The history card: both rounds, newest first, and the game's stats.
        card = page.locator("#history-card")
        expect(card).to_be_visible()
        expect(card.locator(".history-round-list li")).to_have_count(2)
        expect(card.locator(".history-round-title")).to_have_text(["Round 2", "Round 1"])
        row = card.locator(".stats-table tbody tr")
        expect(row).to_have_count(1)
        expect(row.locator(".nickname")).to_have_text("Sasha")
        expect(row.locator(".stats-words")).to_have_text("2")
        card.scroll_into_view_if_needed()
        screenshot(page, f"history-card-{'phone' if phone else 'laptop'}")
        assert overflowing(page) == []

        page.locator(".share-round").scroll_into_view_if_needed()
        screenshot(page, f"share-round-{'phone' if phone else 'laptop'}")

        # Copy link: the read-only page of the round on screen.
        page.get_by_role("button", name="Copy link").click()
        expect(page.locator(".share-round-status")).to_have_text("Link to these results copied ✓")
        link = page.evaluate("navigator.clipboard.readText()")
        assert link == f"{site.url}/r/{code}/rounds/2/"

        # Share picture: the PNG as a file, to the share sheet.
        page.get_by_role("button", name="Share picture").click()
        for _ in range(50):
            if page.evaluate("window.shared.length") == 1:
                break
            page.wait_for_timeout(100)
        shared = page.evaluate(
            "({ name: window.shared[0].files[0].name, type: window.shared[0].files[0].type,"
            " size: window.shared[0].files[0].size })"
        )
        assert shared["name"] == f"boggle-{code}-round-2.png"
        assert shared["type"] == "image/png" and shared["size"] > 1000

        # Round 1 from the history: its results, read-only, in a new tab.
        with context.expect_page() as opened:
            card.locator('li[data-round="1"] a').click()
        earlier = opened.value
        earlier_errors = watch_errors(earlier)
        expect(earlier.locator("h1")).to_have_text("Round 1 results")
        expect(earlier.locator(f'.player-words .chip-button[data-word="{first}"]')).to_be_visible()
        assert earlier.locator(f'.player-words .chip-button[data-word="{second}"]').count() == 0
        assert errors == [] and earlier_errors == []
    finally:
        context.close()


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "laptop"])
def test_the_read_only_link_works_for_anyone(site, browser: Browser, viewport) -> None:
    """A fresh browser (no session) opens the link: the results, the board's paths, a join
    link and the picture, and no way to act on the room."""
    phone = viewport == PHONE
    player = browser.new_context(viewport=viewport)
    stranger = browser.new_context(viewport=viewport, has_touch=phone, is_mobile=phone)
    try:
        page = player.new_page()
        code, found = start_solo_round(page, site.url, "Robin")
        end_round(site, page, code, 1)

        reader = stranger.new_page()
        errors = watch_errors(reader)
        reader.goto(f"{site.url}/r/{code}/rounds/1/")
        expect(reader).to_have_title(f"Boggle · round 1 results · room {code}")
        expect(reader.locator("h1")).to_have_text("Round 1 results")
        expect(reader.locator(".scoreboard .nickname")).to_have_text("Robin")
        word = found[0].word
        chip = reader.locator(f'.player-words .chip-button[data-word="{word}"]')
        expect(chip).to_be_visible()
        chip.click()
        expect(reader.locator(".board .die.on")).to_have_count(len(found[0].path))
        expect(reader.locator(".selected-word")).to_contain_text(word)
        # Nothing to act with: the only buttons in the page's body are words to look at.
        assert reader.locator("#round button:not(.chip-button)").count() == 0
        for absent in ("#entry", "#next-round", "#join-form", ".challenge-button", ".replay"):
            assert reader.locator(absent).count() == 0
        expect(reader.get_by_role("link", name="Join this room")).to_have_attribute(
            "href", f"/r/{code}/"
        )
        image_url = reader.locator('meta[property="og:image"]').get_attribute("content")
        assert image_url == f"{site.url}/api/rooms/{code}/rounds/1.png"
        assert reader.get_by_role("link", name="Picture (PNG)").get_attribute("href") == image_url
        picture = stranger.request.get(image_url)
        assert picture.status == 200 and picture.headers["content-type"] == "image/png"
        assert picture.body()[:8] == b"\x89PNG\r\n\x1a\n"
        assert overflowing(reader) == []
        assert small_targets(reader) == []
        screenshot(reader, f"round-page-{'phone' if phone else 'laptop'}", full_page=True)
        # Reading it joined nobody: the room still has its one player.
        room = stranger.request.get(f"{site.url}/api/rooms/{code}").json()["room"]
        assert [p["nickname"] for p in room["players"]] == ["Robin"]
        assert errors == []
    finally:
        player.close()
        stranger.close()
