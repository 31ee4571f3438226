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


# The room's socket (static/js/room/socket.js) on a fake WebSocket and Playwright's clock:
# which sockets it opens, when, and the statuses it reports, with no server to restart.
FAKE_SOCKETS = """async () => {
    class FakeSocket extends EventTarget {
        constructor(url) {
            super();
            this.url = url;
            this.readyState = FakeSocket.CONNECTING;
            window.fakeSockets.push(this);
        }
        send() {}
        close() { this.readyState = FakeSocket.CLOSED; }
        serverOpens() {
            this.readyState = FakeSocket.OPEN;
            this.dispatchEvent(new Event("open"));
        }
        serverCloses(code) {
            this.readyState = FakeSocket.CLOSED;
            const closed = new Event("close");
            closed.code = code;
            this.dispatchEvent(closed);
        }
    }
    Object.assign(FakeSocket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
    window.fakeSockets = [];
    window.statuses = [];
    window.WebSocket = FakeSocket;
    const { RoomSocket } = await import("/static/js/room/socket.js");
    const socket = new RoomSocket("ws://example.invalid/ws/rooms/ABCD/", {
        onOpen: () => {},
        onMessage: () => {},
        onStatus: (status) => window.statuses.push(status),
        makePing: () => ({ type: "ping" }),
    });
    socket.connect();
    window.fakeSockets[0].serverOpens();
}"""


@pytest.mark.parametrize(
    ("code", "reconnects_at_once"),
    [(1012, True), (1006, False), (1011, False)],
)
def test_a_restarting_server_is_reconnected_at_once_and_a_lost_one_after_backoff(
    site, browser, code: int, reconnects_at_once: bool
) -> None:
    """Close 1012 (the server drains: docs/api.md, "Close codes") brings a new socket within
    the 250 ms jitter, without the "reconnecting" banner; any other drop waits for the
    backoff's first step (1 s, less 20 % at most)."""
    page = browser.new_page()
    try:
        page.clock.install()
        page.goto(site.url + "/")
        page.evaluate(FAKE_SOCKETS)
        page.evaluate(f"window.fakeSockets[0].serverCloses({code})")
        page.clock.run_for(260)
        sockets = page.evaluate("window.fakeSockets.length")
        statuses = page.evaluate("window.statuses")
        if reconnects_at_once:
            assert sockets == 2, statuses
            assert "reconnecting" not in statuses, statuses
            # The new socket works as any: a drop after it is backed off again.
            page.evaluate("window.fakeSockets[1].serverCloses(1006)")
            page.clock.run_for(700)
            assert page.evaluate("window.fakeSockets.length") == 2
        else:
            assert sockets == 1, statuses
            assert statuses[-1] == "reconnecting", statuses
            page.clock.run_for(1000)
            assert page.evaluate("window.fakeSockets.length") == 2
    finally:
        page.close()
