"""The interface in the browser's language: a Dutch phone gets the start page and the room
in Dutch, scripts included (the buttons they label, the timer, a verdict); the switch in
the top bar turns the site French; longer words do not widen the phone's page."""

from __future__ import annotations

import os
import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import (
    DESKTOP,
    PHONE,
    board_faces,
    overflowing,
    type_word,
    wait_until_playing,
    watch_errors,
    words_on,
)

pytestmark = pytest.mark.browser

# Where these tests' screenshots go, to be looked at (never into the repository).
SHOT_DIR = os.environ.get("BOGGLE_UI_SHOTS", "")


def shot(page, name: str) -> None:
    if SHOT_DIR:
        page.screenshot(path=f"{SHOT_DIR}/{name}.png", animations="disabled", full_page=True)


def create_room_in(page, base_url: str, nickname: str, label: str, button: str) -> None:
    """Create a room from the start page, by its labels in the page's language."""
    page.goto(base_url + "/")
    page.get_by_label(label).fill(nickname)
    page.get_by_role("button", name=button).click()
    page.wait_for_url("**/r/*/")
    expect(page.locator("#lobby-panel")).to_be_visible()


def test_a_dutch_phone_plays_in_dutch(browser, site) -> None:
    """Accept-Language nl: Dutch start page and rules; in the room the scripts' text is
    Dutch too: the lobby, the connection badge, the timer, the round title, a refusal."""
    context = browser.new_context(locale="nl-NL", viewport=PHONE, has_touch=True)
    page = context.new_page()
    errors = watch_errors(page)

    page.goto(site.url + "/")
    expect(page.locator("html")).to_have_attribute("lang", "nl")
    expect(page.get_by_role("heading", name="Begin een spel")).to_be_visible()
    expect(page.get_by_role("heading", name="Zo speel je")).to_be_visible()
    shot(page, "nl-home-phone")
    assert overflowing(page) == []

    create_room_in(page, site.url, "Sanne", "Je bijnaam", "Kamer maken")
    expect(page.locator("#connection .connection-text")).to_have_text("Verbonden")
    expect(page.locator("#lobby-text")).to_contain_text("iedereen speelt op de eigen telefoon")
    expect(page.locator("#start-round")).to_have_text("Start ronde 1")
    shot(page, "nl-lobby-phone")
    assert overflowing(page) == []

    page.locator("#start-round").click()
    expect(page.locator("#round-title")).to_have_text("Ronde 1")
    wait_until_playing(page)
    expect(page.locator("#timer-label")).to_have_text("Resterende tijd")
    expect(page.locator("#round-rules")).to_contain_text("Qu telt als 2")

    type_word(page, "qqq")  # letters, but on no board: refused with a reason
    expect(page.locator("#verdict")).to_contain_text("QQQ: niet op het bord")
    found = words_on(board_faces(page))
    type_word(page, found[0].word)
    expect(page.locator("#my-score")).to_contain_text("1 woord")
    shot(page, "nl-round-phone")
    assert overflowing(page) == []
    assert errors == []
    context.close()


def test_the_switch_turns_a_dutch_phone_french(browser, site) -> None:
    """On a 360 px phone the switch fits in the top bar; choosing Français reloads the page
    in French and the choice holds for the room the player then creates."""
    context = browser.new_context(locale="nl-NL", viewport=PHONE, has_touch=True)
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(site.url + "/")
    switch = page.locator(".language-current")
    expect(switch).to_be_visible()
    box = switch.bounding_box()
    assert box is not None and box["x"] + box["width"] <= PHONE["width"]
    assert box["width"] >= 44 and box["height"] >= 44  # a finger's target

    switch.tap()
    page.get_by_role("button", name="Français").tap()

    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.get_by_role("heading", name="Lancer une partie")).to_be_visible()
    assert page.url == site.url + "/"
    create_room_in(page, site.url, "Camille", "Votre pseudo", "Créer un salon")
    expect(page.locator("#start-round")).to_have_text("Lancer la manche 1")
    expect(page.locator("#lobby-text")).to_contain_text("chacun joue sur son téléphone")
    # The switch on the room page, open, over the lobby: nothing leaves the screen; a tap
    # elsewhere closes it, as menus close.
    page.locator(".language-current").tap()
    expect(page.locator(".language-options")).to_be_visible()
    shot(page, "fr-lobby-phone-switch")
    assert overflowing(page) == []
    page.locator("#lobby-title").tap()
    expect(page.locator(".language-options")).to_be_hidden()
    assert errors == []
    context.close()


def test_a_french_laptop_sees_french_results(browser, site) -> None:
    """fr-FR on a laptop: the round's results, drawn by the scripts, are in French."""
    context = browser.new_context(locale="fr-FR", viewport=DESKTOP)
    page = context.new_page()
    errors = watch_errors(page)
    create_room_in(page, site.url, "Léa", "Votre pseudo", "Créer un salon")
    code = page.url.rstrip("/").rsplit("/", 1)[1]
    page.locator("#start-round").click()
    wait_until_playing(page)
    expect(page.locator("#timer-label")).to_have_text("Temps restant")
    # The switch by keyboard: Escape closes it and gives the focus back to it.
    page.locator(".language-current").click()
    page.keyboard.press("Escape")
    expect(page.locator(".language-options")).to_be_hidden()
    expect(page.locator(".language-current")).to_be_focused()
    found = words_on(board_faces(page))
    type_word(page, found[0].word)
    expect(page.locator("#my-score")).to_contain_text(re.compile(r"1 mot · \d+ pts?"))

    site.end_round_now(code)

    expect(page.locator("#results-title")).to_have_text("Résultats de la manche 1")
    expect(page.locator("#results-summary")).to_contain_text("La grille contenait")
    expect(page.locator("#next-round")).to_have_text("Lancer la manche 2")
    shot(page, "fr-results-laptop")
    assert errors == []
    context.close()
