"""The end of a round in the browser: the scores and my own words show from ``round.ended``
at once, everyone's words and the board's solution come from the results request after it
(docs/api.md, "round.ended"), and a page whose request fails gets them by a sync."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from tests.browser.helpers import (
    OpenRoom,
    board_faces,
    my_word,
    player_words,
    screenshot,
    type_word,
    wait_until_playing,
    watch_errors,
    words_on,
)

pytestmark = pytest.mark.browser

ROOM_SOCKET = re.compile(r"/ws/rooms/[^/]+/$")


class HeldBack:
    """The messages a page sent on its room socket that the test keeps from the server."""

    def __init__(self) -> None:
        self.messages: list[str] = []
        self.server: WebSocketRoute | None = None  # the way on, once the socket opened

    def release(self) -> None:
        assert self.server is not None
        for message in self.messages:
            self.server.send(message)


def between_page_and_server(page: Page, hold: Callable[[str], bool]) -> HeldBack:
    """Stand between the page's room socket and the server: every message the page sends
    goes on, except those ``hold`` picks, which are held back. The server's messages reach
    the page as they are."""
    held = HeldBack()

    def route(socket: WebSocketRoute) -> None:
        server = held.server = socket.connect_to_server()

        def from_page(message: str | bytes) -> None:
            if isinstance(message, str) and hold(message):
                held.messages.append(message)
            else:
                server.send(message)

        socket.on_message(from_page)

    page.route_web_socket(ROOM_SOCKET, route)
    return held


def asks_for_results(message: str) -> bool:
    return json.loads(message).get("type") == "results"


def play_two_words_each(host_and_guest: OpenRoom) -> tuple[Page, Page, str, list, HeldBack]:
    """Ann (laptop, host) and Bob (phone) each enter a word of the board; returns their
    pages, the room code, the two words (Ann's, Bob's) and the ``results`` requests of
    Bob's page, held back from the server."""
    room = host_and_guest(join=False)
    ann, bob, code = room.host, room.guest, room.code
    held = between_page_and_server(bob, asks_for_results)
    room.join()
    ann.locator("#start-round").click()
    wait_until_playing(ann)
    wait_until_playing(bob)
    words = [w for w in words_on(board_faces(ann)) if len(w.path) >= 3][:2]
    assert len(words) == 2
    for page, found in ((ann, words[0]), (bob, words[1])):
        type_word(page, found.word)
        expect(my_word(page, found.word)).to_be_visible()
    return ann, bob, code, words, held


def test_scores_and_my_words_show_before_everyone_elses(site, host_and_guest: OpenRoom) -> None:
    """Bob's request for the whole results is held: meanwhile his page shows the ranking,
    his own words and that the rest is loading; once it reaches the server, Ann's words
    and every word on the board appear."""
    ann, bob, code, (ann_word, bob_word), held = play_two_words_each(host_and_guest)
    errors = watch_errors(bob)
    site.end_round_now(code)

    expect(bob.locator("#results-title")).to_have_text("Round 1 results")
    expect(bob.locator("#results-panel .scoreboard tbody tr")).to_have_count(2)
    expect(player_words(bob, "Bob")).to_contain_text(bob_word.word)
    expect(bob.locator(".loading-words")).to_have_text("Loading everyone's words…")
    expect(player_words(bob, "Ann")).to_have_count(0)
    expect(bob.locator(".all-words .chip")).to_have_count(0)
    screenshot(bob, "results-first-frame", full_page=True)
    for _ in range(200):  # the route hears of the request as Playwright dispatches it
        if held.messages:
            break
        bob.wait_for_timeout(50)
    assert [json.loads(m)["round_number"] for m in held.messages] == [1]

    held.release()
    expect(player_words(bob, "Ann")).to_contain_text(ann_word.word)
    expect(bob.locator(".loading-words")).to_have_count(0)
    expect(bob.locator(f'.all-words .chip-button[data-word="{ann_word.word}"]')).to_be_visible()
    # Ann's request went through at once: her page is complete.
    expect(player_words(ann, "Bob")).to_contain_text(bob_word.word)
    assert errors == []


def test_a_page_whose_results_never_come_gets_them_by_a_sync(
    site, host_and_guest: OpenRoom
) -> None:
    """Bob's requests for the whole results never reach the server (lost on the way): a
    few seconds on, the page asks for a sync, whose state has the whole results."""
    _ann, bob, code, (ann_word, _bob_word), held = play_two_words_each(host_and_guest)
    site.end_round_now(code)
    expect(bob.locator("#results-title")).to_have_text("Round 1 results")
    expect(player_words(bob, "Ann")).to_contain_text(ann_word.word, timeout=30_000)
    expect(bob.locator(".loading-words")).to_have_count(0)
    assert len(held.messages) == 1  # asked once, never answered: the sync brought them
