"""The page's language picks the dictionary (issue 48, item 17): on a French page, with
French installed, "Start a game" and "Practice alone" offer French first and a practice
round plays it; the daily board says it is one English board for everyone. Its own site
(French installed in its own database), so the other browser tests keep English."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import PHONE, REPO_ROOT, DaphneServer, overflowing, watch_errors

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def french_site(chromium_path: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    from solver import dictionaries

    dictionaries.build("english")
    server = DaphneServer(tmp_path_factory.mktemp("french-site"))
    server.migrate()
    imported = subprocess.run(
        [sys.executable, "manage.py", "import_dictionary", "french"],
        cwd=REPO_ROOT, env=server.env(), capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    if imported.returncode != 0:  # wfrench missing: bin/test installs it as root
        pytest.fail(f"import_dictionary french failed:\n{imported.stdout}{imported.stderr}")
    try:
        server.start()
        yield server
    finally:
        server.stop()


def test_a_french_page_offers_the_french_dictionary_and_practice_plays_it(
    browser, french_site
) -> None:
    context = browser.new_context(locale="fr-FR", viewport=PHONE, has_touch=True)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        page.goto(french_site.url + "/")
        expect(page.locator("html")).to_have_attribute("lang", "fr")
        expect(page.locator("#create-dictionary")).to_have_value("french")
        expect(page.locator("#practice-dictionary")).to_have_value("french")
        expect(page.locator("#create-dictionary option")).to_contain_text(
            ["English (broad word-game list)", "Français"]
        )
        expect(page.locator("#daily-dictionary")).to_have_text(
            "Dictionnaire : English (broad word-game list), le même pour tous."
        )
        assert overflowing(page) == []

        page.get_by_label("Votre pseudo").fill("Zoé")
        page.get_by_role("button", name="Commencer l'entraînement").click()
        page.wait_for_url("**/r/*/")
        code = page.url.rstrip("/").rsplit("/", 1)[-1]
        room = page.request.get(f"{french_site.url}/api/rooms/{code}").json()["room"]
        assert room["settings"]["dictionary"] == "french"
        assert errors == []
    finally:
        context.close()


def test_an_english_page_keeps_english_and_practice_can_choose_french(browser, french_site) -> None:
    context = browser.new_context(locale="en-GB", viewport=PHONE, has_touch=True)
    try:
        page = context.new_page()
        page.goto(french_site.url + "/")
        expect(page.locator("#create-dictionary")).to_have_value("english")
        expect(page.locator("#practice-dictionary")).to_have_value("english")
        page.get_by_label("Your nickname").fill("Ann")
        page.locator("#practice-dictionary").select_option("french")
        page.get_by_role("button", name="Start practice").click()
        page.wait_for_url("**/r/*/")
        code = page.url.rstrip("/").rsplit("/", 1)[-1]
        room = page.request.get(f"{french_site.url}/api/rooms/{code}").json()["room"]
        assert room["settings"]["dictionary"] == "french"
    finally:
        context.close()
