"""A reload or a dropped connection in the middle of a round loses nothing."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import (
    DESKTOP,
    PHONE,
    DaphneServer,
    board_faces,
    create_room,
    my_word,
    type_word,
    wait_until_playing,
    watch_errors,
    words_on,
)

pytestmark = pytest.mark.browser


def seconds_left(page) -> int:
    minutes, seconds = page.locator("#timer-value").inner_text().split(":")
    return int(minutes) * 60 + int(seconds)


def test_reload_mid_round_keeps_words_and_resends_unanswered_ones(site, browser) -> None:
    """After a reload the board, the clock and the words are back, and a word that was sent
    but never answered (kept in localStorage) is sent again and counted once."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        code = create_room(page, site.url, "Cleo")
        page.locator("#start-round").click()
        wait_until_playing(page)
        faces = board_faces(page)
        first, second = words_on(faces)[:2]
        type_word(page, first.word)
        expect(my_word(page, first.word)).to_be_visible()
        before = seconds_left(page)

        # As if the connection dropped just after sending: the entry is in the outbox only.
        outbox = {"round": 1, "entries": [{"client_id": "resent-1", "word": second.word}]}
        page.evaluate(
            "([key, value]) => localStorage.setItem(key, value)",
            [f"boggle.outbox.{code}", json.dumps(outbox)],
        )
        page.reload()

        wait_until_playing(page)
        assert board_faces(page) == faces
        expect(my_word(page, first.word)).to_be_visible()
        expect(my_word(page, second.word)).to_be_visible()
        after = seconds_left(page)
        assert before - 20 <= after <= before, (before, after)
        assert page.evaluate(f"localStorage.getItem('boggle.outbox.{code}')") is None

        # Once more: the resent word is now the server's, listed once.
        page.reload()
        wait_until_playing(page)
        expect(my_word(page, second.word)).to_have_count(1)
        expect(page.locator("#my-words li")).to_have_count(2)
        assert errors == []
    finally:
        context.close()


def test_server_restart_mid_round_reconnects_and_delivers_waiting_words(browser, tmp_path) -> None:
    """The server goes away mid-round: the page says it is reconnecting, keeps a word typed
    meanwhile, reconnects by itself when the server is back, and the word is judged."""
    server = DaphneServer(tmp_path)
    server.migrate()
    context = browser.new_context(viewport=DESKTOP)
    try:
        server.start()
        page = context.new_page()
        code = create_room(page, server.url, "Dee")
        page.locator("#start-round").click()
        wait_until_playing(page)
        words = words_on(board_faces(page))
        type_word(page, words[0].word)
        expect(my_word(page, words[0].word)).to_be_visible()

        server.stop()
        expect(page.locator("#connection")).to_contain_text("Reconnecting")
        expect(page.locator("#connection-banner")).to_contain_text("Your words are kept.")
        type_word(page, words[1].word)
        expect(my_word(page, words[1].word, "pending")).to_contain_text("waiting for connection")
        stored = page.evaluate(f"JSON.parse(localStorage.getItem('boggle.outbox.{code}'))")
        assert [entry["word"] for entry in stored["entries"]] == [words[1].word]

        server.start()
        # "Retry now" skips the rest of the backoff (unless a retry got there first).
        page.evaluate(
            """() => {
            const banner = document.querySelector('#connection-banner');
            if (!banner.hidden) banner.querySelector('.connection-retry').click();
        }"""
        )
        expect(page.locator("#connection")).to_contain_text("Connected", timeout=35_000)
        expect(page.locator("#connection-banner")).to_be_hidden()
        expect(my_word(page, words[1].word)).to_be_visible()
        expect(my_word(page, words[0].word)).to_be_visible()
    finally:
        context.close()
        server.stop()
