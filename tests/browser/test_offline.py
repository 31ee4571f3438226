"""A phone that goes offline, or whose connection dies silently, says so within seconds,
keeps the words typed meanwhile and sends them when it is back."""

from __future__ import annotations

import os
import signal

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import (
    PHONE,
    DaphneServer,
    my_word,
    screenshot,
    start_solo_round,
    type_word,
    wait_until_playing,
    watch_errors,
)

pytestmark = pytest.mark.browser


def assert_both_words_kept(page, code: str, first: str, second: str, errors: list[str]) -> None:
    """Back online, both words show and none waits any more; after a reload the server's
    own list has them too, the one typed while cut off once."""
    expect(my_word(page, second)).to_be_visible()
    expect(my_word(page, first)).to_be_visible()
    assert outbox_words(page, code) == []
    page.reload()
    wait_until_playing(page)
    expect(page.locator("#my-words li")).to_have_count(2)
    expect(my_word(page, second)).to_have_count(1)
    assert page_errors(errors) == []


def page_errors(errors: list[str]) -> list[str]:
    """The page's errors, without Chromium's console lines for connection attempts that
    fail while there is no network or no server (the page retries them by design): the
    socket's, and any resource the browser asked for while offline (ERR_INTERNET_DISCONNECTED,
    e.g. the web app manifest's icons, fetched when Chromium chooses)."""
    return [
        error
        for error in errors
        if "WebSocket connection to" not in error and "net::ERR_INTERNET_DISCONNECTED" not in error
    ]


def outbox_words(page, code: str) -> list[str]:
    stored = page.evaluate(f"JSON.parse(localStorage.getItem('boggle.outbox.{code}'))")
    return [entry["word"] for entry in stored["entries"]] if stored else []


def test_phone_offline_and_back_keeps_and_sends_words(site, browser) -> None:
    """Offline: the badge and the banner say so at once; a word typed meanwhile waits, kept
    in localStorage, with no error. Back online: the page reconnects by itself, the word is
    judged, and the server counts it once."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        code, (first, second, *_) = start_solo_round(page, site.url, "Otto")
        badge = page.locator("#connection")
        banner = page.locator("#connection-banner")

        context.set_offline(True)
        # The `offline` event, not the dead-socket check: well within the default 10 s.
        expect(badge).to_have_attribute("data-status", "offline")
        expect(badge).to_have_text("Offline")
        expect(banner).to_be_visible()
        expect(banner).to_contain_text("You're offline. Words you type are kept")
        expect(banner.locator(".connection-retry")).to_be_hidden()

        type_word(page, second.word)
        waiting = my_word(page, second.word, "pending")
        expect(waiting).to_contain_text("waiting for connection")
        expect(page.locator("#entry")).to_be_enabled()
        expect(page.locator("#notices .notice")).to_have_count(0)
        assert outbox_words(page, code) == [second.word]
        screenshot(page, "phone-offline")

        context.set_offline(False)
        expect(badge).to_have_attribute("data-status", "open")
        expect(banner).to_be_hidden()
        expect(page.locator("#my-words li")).to_have_count(2)
        expect(page.locator("#notices .notice")).to_have_count(0)
        assert_both_words_kept(page, code, first.word, second.word, errors)
    finally:
        context.close()


def test_silent_dead_connection_is_noticed_and_words_are_delivered(browser, tmp_path) -> None:
    """The server stops answering without closing anything (frozen with SIGSTOP, as a
    connection dies on a phone that changes networks): the page notices by its own pings
    well before 45 s, keeps a word typed meanwhile, and delivers it once the server is back."""
    server = DaphneServer(tmp_path)
    server.migrate()
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    frozen = False
    try:
        server.start()
        assert server.process is not None
        pid = server.process.pid
        page = context.new_page()
        errors = watch_errors(page)
        code, (first, second, *_) = start_solo_round(page, server.url, "Pia")
        badge = page.locator("#connection")

        os.killpg(pid, signal.SIGSTOP)
        frozen = True
        # No close event ever comes: only the page's dead-socket check can notice.
        expect(badge).not_to_have_attribute("data-status", "open", timeout=30_000)
        type_word(page, second.word)
        expect(my_word(page, second.word, "pending")).to_contain_text("waiting for connection")
        assert outbox_words(page, code) == [second.word]

        os.killpg(pid, signal.SIGCONT)
        frozen = False
        # "Retry now" skips the rest of the backoff (unless an attempt is under way).
        page.evaluate(
            """() => {
            const banner = document.querySelector('#connection-banner');
            if (!banner.hidden) banner.querySelector('.connection-retry').click();
        }"""
        )
        expect(badge).to_have_attribute("data-status", "open", timeout=35_000)
        assert_both_words_kept(page, code, first.word, second.word, errors)
    finally:
        if frozen:
            os.killpg(pid, signal.SIGCONT)
        context.close()
        server.stop()
