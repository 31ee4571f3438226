"""After a round, a word's meaning opens in a dialog: the definition (WordNet, compiled at
build time), the Wiktionary link, and "no definition" for a refused word
(static/js/room/definitions.js, GET /api/definitions)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from meanings import lookup
from tests.browser.helpers import (
    DESKTOP,
    PHONE,
    overflowing,
    screenshot,
    small_targets,
    start_solo_round,
    type_word,
    watch_errors,
)
from tests.meanings.support import require_definitions

pytestmark = pytest.mark.browser

NONSENSE = "qzxv"  # letters, never a word: refused, and no source defines it


@pytest.mark.parametrize(("viewport", "name"), [(PHONE, "phone"), (DESKTOP, "desktop")])
def test_a_words_meaning_opens_from_the_results(site, browser, viewport, name) -> None:
    require_definitions("en")
    phone = viewport is PHONE
    context = browser.new_context(viewport=viewport, has_touch=phone, is_mobile=phone)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        code, found = start_solo_round(page, site.url, "Robin")
        # A word of the board that WordNet defines (not only GCIDE, its fallback), played too.
        word, entry = next(
            (item.word, defined)
            for item in found[1:]
            if (defined := lookup("en", item.word)) and defined.source == "wordnet"
        )
        type_word(page, word)
        type_word(page, NONSENSE)
        site.end_round_now(code)
        expect(page.locator("#results-panel")).to_be_visible(timeout=10_000)

        # Picking the word lights its path and offers its meaning.
        page.locator(f'.player-words .chip-button[data-word="{word}"]').click()
        expect(page.locator(f'.player-words .chip-button[data-word="{word}"]')).to_have_attribute(
            "aria-pressed", "true"
        )
        opener = page.get_by_role("button", name=f"What does {word.upper()} mean?").first
        opener.click()
        dialog = page.get_by_role("dialog")
        expect(dialog).to_be_visible()
        expect(dialog.locator(".definition-senses li").first).to_contain_text(entry.senses[0].text)
        expect(dialog).to_contain_text("WordNet")
        title = dialog.locator(".definition-title").text_content() or ""
        assert title.startswith(word) and "null" not in title, title
        link = dialog.get_by_role("link", name="Look it up on Wiktionary")
        expect(link).to_have_attribute("href", f"https://en.wiktionary.org/wiki/{entry.lemma}")
        expect(link).to_have_attribute("target", "_blank")
        expect(link).to_have_attribute("rel", "noopener")
        assert dialog.locator(".definition-senses li").count() <= 3
        assert overflowing(page) == []
        assert small_targets(page) == []
        screenshot(page, f"definition-{name}")
        page.screenshot(path=f"/tmp/definition-{name}.png")
        page.keyboard.press("Escape")
        expect(dialog).to_be_hidden()
        expect(opener).to_be_focused()  # the keyboard is back where it was

        # A refused word: no definition, a Wiktionary search instead.
        page.get_by_role("button", name=f"What does {NONSENSE.upper()} mean?").click()
        expect(dialog).to_contain_text("No definition available.")
        expect(dialog.get_by_role("link", name="Look it up on Wiktionary")).to_have_attribute(
            "href", f"https://en.wiktionary.org/w/index.php?search={NONSENSE}"
        )
        page.screenshot(path=f"/tmp/definition-none-{name}.png")
        dialog.get_by_role("button", name="Close").click()
        expect(dialog).to_be_hidden()
        assert errors == []
    finally:
        context.close()
