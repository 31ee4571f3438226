"""Quick play with strangers (issue 51) in Chromium: four people press "Play now" on the
start page, their phones open one public room, its first round starts by itself and
nobody gets a host's buttons; a player reports another; the leaderboard page; and an
offensive nickname is refused with the reason. English, Dutch and French labels."""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import (
    overflowing,
    phone_context,
    small_targets,
    wait_until_playing,
    watch_errors,
)

pytestmark = pytest.mark.browser


def test_four_strangers_play_a_room_that_runs_itself(site, browser) -> None:
    contexts = [phone_context(browser) for _ in range(4)]
    tag = uuid.uuid4().hex[:4]
    try:
        pages = [context.new_page() for context in contexts]
        errors = [watch_errors(page) for page in pages]
        for index, page in enumerate(pages):
            page.goto(site.url + "/")
            page.locator("#quick-nickname").fill(f"S{index}{tag}")
            page.locator("#quick-play").click()
            if index == 0:
                expect(page.locator("#quick-status")).to_contain_text("waiting")
                assert overflowing(page) == [] and small_targets(page) == []
        for page in pages:
            page.wait_for_url("**/r/*/", timeout=20_000)
        codes = {page.url for page in pages}
        assert len(codes) == 1
        first = pages[0]
        expect(first.locator("#start-round")).to_be_hidden()
        expect(first.locator(".badge.host")).to_have_count(0)
        expect(first.locator("#lobby-wait")).to_contain_text("starts in")
        for page in pages:
            wait_until_playing(page, timeout=30_000)

        # Bob (the second) reports the third's nickname from the players' list.
        reporter = pages[1]
        reported = f"S2{tag}"
        row = reporter.locator("#players .player", has_text=reported)
        row.locator(".report-menu summary").click()
        row.get_by_role("button", name="Offensive nickname").click()
        expect(reporter.locator(".notice", has_text="reported")).to_be_visible()
        assert all(page_errors == [] for page_errors in errors)
    finally:
        for context in contexts:
            context.close()


def test_an_offensive_nickname_is_refused_and_the_leaderboard_shows(site, browser) -> None:
    context = phone_context(browser)
    try:
        page = context.new_page()
        page.goto(site.url + "/")
        page.locator("#quick-nickname").fill("BigShit")
        page.locator("#quick-play").click()
        expect(page.locator("#quick-error")).to_contain_text("strangers will see")
        page.locator("#quick-leaderboard").click()
        expect(page.locator("h1")).to_have_text("Quick play leaderboard")
        assert overflowing(page) == []
    finally:
        context.close()


@pytest.mark.parametrize(("language", "title"), [("nl", "Nu spelen"), ("fr", "Jouer maintenant")])
def test_play_now_speaks_dutch_and_french(site, browser, language, title) -> None:
    context = phone_context(browser)
    try:
        context.add_cookies([{"name": "django_language", "value": language, "url": site.url}])
        page = context.new_page()
        page.goto(site.url + "/")
        expect(page.locator("#quick-title")).to_have_text(title)
        assert overflowing(page) == [] and small_targets(page) == []
    finally:
        context.close()
