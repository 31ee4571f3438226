"""The profile that remembers (issue 51): rounds played on this device show on /profile/
(totals, a chart, the best round of each size, the best and longest words, the daily
board's streak), with no account; an account carries them to another device, downloads
them and is deleted with them. On a 360 px phone and a laptop, in English, Dutch and French."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import (
    DESKTOP,
    board_faces,
    my_word,
    overflowing,
    phone_context,
    play_alone,
    small_targets,
    type_word,
    watch_errors,
    words_on,
)

pytestmark = pytest.mark.browser

PASSWORD = "a profile of my own"


def total(page: Page, label: str):
    return page.locator(".profile-total", has=page.locator("dt", has_text=label)).locator("dd")


def play_a_round(page: Page, site, nickname: str, daily: bool = False) -> str:
    """Play a round alone, enter the board's best word, end the round; the best word."""
    code = play_alone(page, site.url, nickname, daily=daily)
    best = words_on(board_faces(page))[0]
    type_word(page, best.word)
    expect(my_word(page, best.word)).to_be_visible()
    site.end_round_now(code)
    expect(page.locator("#results-panel")).to_be_visible(timeout=15_000)
    return best.word


def test_rounds_played_on_a_phone_show_on_its_profile(site, browser) -> None:
    context = phone_context(browser)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        page.goto(site.url + "/profile/")
        expect(page.get_by_text("No rounds yet.")).to_be_visible()

        nickname = f"P{uuid.uuid4().hex[:6]}"
        daily_word = play_a_round(page, site, nickname, daily=True)
        practice_word = play_a_round(page, site, nickname)

        page.goto(site.url + "/")
        page.locator("#profile-link").click()
        page.wait_for_url("**/profile/")
        expect(total(page, "Rounds")).to_have_text("2")
        expect(total(page, "Games")).to_have_text("2")
        expect(total(page, "Words found")).to_have_text("2")
        expect(total(page, "Daily streak")).to_have_text("1 day")
        expect(page.locator("#profile-bests tr")).to_have_count(1)  # both rounds on 4x4
        expect(page.locator("#profile-bests th")).to_have_text("4\N{MULTIPLICATION SIGN}4")
        words = page.locator("#profile-words")
        best = max((daily_word, practice_word), key=len)
        expect(words).to_contain_text(best.upper())
        expect(page.locator("#profile-chart circle")).to_have_count(2)
        today = datetime.now(UTC).strftime("%Y")
        expect(page.locator("#profile-daily tr")).to_have_count(1)
        expect(page.locator("#profile-daily")).to_contain_text(today)
        expect(page.locator("#profile-daily")).to_contain_text(daily_word.upper())
        assert overflowing(page) == []
        assert small_targets(page) == []
        page.screenshot(path="/tmp/profile-phone.png", full_page=True)

        # A reload draws the same from this device's storage; "forget" empties it.
        page.reload()
        expect(total(page, "Rounds")).to_have_text("2")
        page.on("dialog", lambda dialog: dialog.accept())
        page.locator("#clear-device").click()
        expect(page.get_by_text("No rounds yet.")).to_be_visible()
        page.reload()
        expect(page.get_by_text("No rounds yet.")).to_be_visible()
        assert errors == []
    finally:
        context.close()


def test_an_account_carries_the_profile_to_another_device(site, browser) -> None:
    email = f"ann-{uuid.uuid4().hex[:8]}@example.org"
    phone = phone_context(browser)
    laptop = browser.new_context(viewport=DESKTOP, accept_downloads=True)
    try:
        page = phone.new_page()
        errors = watch_errors(page)
        word = play_a_round(page, site, f"A{uuid.uuid4().hex[:6]}")
        page.goto(site.url + "/profile/")
        expect(total(page, "Rounds")).to_have_text("1")
        page.locator("#account-link").click()
        page.locator("#sign-up-email").fill(email)
        page.locator("#sign-up-password").fill("short")
        page.locator("#sign-up").click()
        expect(page.get_by_text("too short", exact=False)).to_be_visible()
        page.locator("#sign-up-password").fill(PASSWORD)
        page.locator("#sign-up").click()
        page.wait_for_url("**/profile/")
        expect(page.locator("#profile-sync")).to_contain_text("keeps 1 round")

        other = laptop.new_page()
        other_errors = watch_errors(other)
        other.goto(site.url + "/profile/account/")
        other.locator("#sign-in-email").fill(email.upper())
        other.locator("#sign-in-password").fill(PASSWORD)
        other.locator("#sign-in").click()
        other.wait_for_url("**/profile/")
        expect(total(other, "Rounds")).to_have_text("1")
        expect(other.locator("#profile-words")).to_contain_text(word.upper())
        assert overflowing(other) == []
        other.screenshot(path="/tmp/profile-laptop.png", full_page=True)

        with other.expect_download() as download:
            other.locator("#export-account").click()
        data = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
        assert data["account"]["email"] == email
        assert [r["best"]["word"] for r in data["rounds"]] == [word]

        # The laptop plays a round too: the phone's profile gets it on its next visit.
        play_a_round(other, site, f"L{uuid.uuid4().hex[:6]}")
        other.goto(site.url + "/profile/")
        expect(other.locator("#profile-sync")).to_contain_text("keeps 2 rounds")
        page.reload()
        expect(total(page, "Rounds")).to_have_text("2")

        page.locator(".profile-delete summary").click()
        page.locator("#id_password").fill("not it")
        page.locator("#delete-account").click()
        expect(page.get_by_text("That is not the account's password.")).to_be_visible()
        page.locator("#id_password").fill(PASSWORD)
        page.locator("#delete-account").click()
        expect(page.get_by_text("Your account and the rounds it kept are deleted.")).to_be_visible()
        expect(page.locator("#account-link")).to_be_visible()
        expect(total(page, "Rounds")).to_have_text("2")  # this device's own stay
        other.goto(site.url + "/profile/account/")
        other.locator("#sign-in-email").fill(email)
        other.locator("#sign-in-password").fill(PASSWORD)
        other.locator("#sign-in").click()
        expect(other.locator(".form-error")).to_be_visible()
        assert errors == [] and other_errors == []
    finally:
        phone.close()
        laptop.close()


def test_the_streak_counts_days_in_a_row(site, browser) -> None:
    """The page's own summary (static/js/profile/summary.js), run in the browser."""
    page = browser.new_page()
    try:
        page.goto(site.url + "/profile/")
        result = page.evaluate(
            """async () => {
            const { dailyStreak, summarize } = await import('/static/js/profile/summary.js');
            const round = (id, size, score, daily) => ({ id, room: 'R', game: Number(id), at: Number(id),
              size, score, words: 1, found: 2, best: { word: 'w' + id, points: score }, longest: 'l', daily });
            const summary = summarize([round('1', 4, 9, '2026-12-01'), round('2', 5, 30, null),
              round('3', 4, 12, '2026-12-01'), round('4', 4, 12, '2026-12-02')], '2026-12-03');
            return {
              none: dailyStreak([], '2026-12-06'),
              yesterday: dailyStreak(['2026-12-04', '2026-12-05'], '2026-12-06'),
              broken: dailyStreak(['2026-12-01', '2026-12-02', '2026-12-03', '2026-12-05'], '2026-12-06'),
              today: dailyStreak(['2026-12-05', '2026-12-06'], '2026-12-06'),
              gap: dailyStreak(['2026-12-04'], '2026-12-06'),
              monthEnd: dailyStreak(['2026-11-30', '2026-12-01'], '2026-12-01'),
              bests: summary.bestBySize.map(({ size, record }) => [size, record.id]),
              daily: summary.daily.map((record) => [record.daily, record.id]),
              streak: summary.streak, games: summary.games, words: summary.words,
            };
        }"""
        )
    finally:
        page.close()
    assert result["none"] == {"current": 0, "longest": 0}
    assert result["yesterday"] == {"current": 2, "longest": 2}
    assert result["broken"] == {"current": 1, "longest": 3}
    assert result["today"] == {"current": 2, "longest": 2}
    assert result["gap"] == {"current": 0, "longest": 1}
    assert result["monthEnd"] == {"current": 2, "longest": 2}
    assert result["bests"] == [[4, "3"], [5, "2"]]  # equal scores: the earlier round
    assert result["daily"] == [["2026-12-02", "4"], ["2026-12-01", "1"]]  # a date's first
    assert result["streak"] == {"current": 2, "longest": 2}
    assert (result["games"], result["words"]) == (4, 8)


@pytest.mark.parametrize("language", ["nl", "fr"])
def test_the_profile_speaks_dutch_and_french(site, browser, language) -> None:
    context = phone_context(browser)
    try:
        context.add_cookies([{"name": "django_language", "value": language, "url": site.url}])
        page = context.new_page()
        errors = watch_errors(page)
        titles = {"nl": ("Je profiel", "Inloggen"), "fr": ("Votre profil", "Se connecter")}
        page.goto(site.url + "/profile/")
        expect(page.locator("h1")).to_have_text(titles[language][0])
        assert overflowing(page) == [] and small_targets(page) == []
        page.goto(site.url + "/profile/account/")
        expect(page.locator("h1")).to_have_text(titles[language][1])
        assert overflowing(page) == [] and small_targets(page) == []
        page.screenshot(path=f"/tmp/profile-account-{language}.png", full_page=True)
        assert errors == []
    finally:
        context.close()
