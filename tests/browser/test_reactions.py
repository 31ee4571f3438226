"""Reactions at the table (issue 51): in the results a player puts an emoji on a word
someone found or on another player's score, or says a quick phrase; the room's phones and
its table screen show it for a few seconds. A 360 px phone and a laptop, in English, Dutch
and French."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import (
    TABLE_SCREEN,
    OpenRoom,
    overflowing,
    play_best_word,
    small_targets,
)

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("language", ["en", "nl", "fr"])
def test_reactions_reach_the_room_and_the_table_screen(
    site, host_and_guest: OpenRoom, language
) -> None:
    room = host_and_guest()
    host, guest, code = room.host, room.guest, room.code
    errors, guest_errors = room.host_errors, room.guest_errors
    screen = room.new_context(viewport=TABLE_SCREEN)
    for context in (host.context, guest.context, screen):
        context.add_cookies([{"name": "django_language", "value": language, "url": site.url}])
    table = screen.new_page()
    table.goto(f"{site.url}/r/{code}/table/")
    for page in (host, guest):
        page.reload()
        expect(page.locator("#lobby-panel")).to_be_visible()
    best = play_best_word(host, guest)
    site.end_round_now(code)
    for page in (host, guest):
        expect(page.locator("#results-panel")).to_be_visible(timeout=15_000)
    expect(table.locator("#table-results")).to_be_visible(timeout=15_000)

    # Ann puts fire on Bob's word.
    host.locator(f'.player-words .chip-button[data-word="{best.word}"]').first.click()
    host.locator('.word-reactions [data-emoji="fire"]').click()
    shown = f"Ann 🔥 {best.word.upper()}"
    for page in (host, guest, table):
        expect(page.locator(".reaction-toast", has_text=shown)).to_be_visible()

    # Bob claps for Ann's score from his phone; his own row has no menu.
    guest.locator(".scoreboard .react-toggle").click()
    expect(guest.locator(".scoreboard .react-toggle")).to_have_count(1)
    assert small_targets(guest) == [] and overflowing(guest) == []
    guest.screenshot(path=f"/tmp/reactions-phone-{language}.png")
    guest.locator('.react-row [data-emoji="clap"]').click()
    expect(guest.locator(".react-row")).to_have_count(0)
    phrase = {"en": "One more?", "nl": "Nog eentje?", "fr": "Encore une ?"}[language]
    expect(host.locator(".reaction-toast", has_text="Bob 👏")).to_be_visible()
    expect(table.locator(".reaction-toast", has_text="Bob 👏")).to_be_visible()

    # A quick phrase, in each reader's language.
    guest.locator('#quick-phrases [data-phrase="one_more"]').click()
    for page in (host, table):
        expect(page.locator(".reaction-toast", has_text=phrase)).to_be_visible()
    table.screenshot(path=f"/tmp/reactions-table-{language}.png")
    # A few seconds later they are gone.
    expect(host.locator(".reaction-toast")).to_have_count(0, timeout=10_000)
    assert errors == [] and guest_errors == []
