"""What the lobby says a room's photos are checked against (static/js/room/photo-set.js,
from state.photo_set.checked_against: docs/api.md, "Dice sets"), in the browser."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

pytestmark = pytest.mark.browser

CHECKED_TEXT = """async (photoSet) => {
  const view = await import("/static/js/room/photo-set.js");
  return view.checkedText(photoSet);
}"""


def test_the_sets_a_rooms_photos_are_checked_against_are_named(site, browser: Browser) -> None:
    page = browser.new_page()
    try:
        page.goto(site.url + "/solve/")
        assert page.evaluate(CHECKED_TEXT, {"checked_against": []}) == ""
        one = {
            "dice": 16,
            "boards": 3,
            "sets": [{"name": "classic", "title": "Classic 4x4 (1992)"}],
        }
        two = {
            "dice": 36,
            "boards": 4,
            "sets": [
                {"name": "super-big", "title": "Super Big Boggle 6x6 (2012)"},
                {"name": "other", "title": "Another 6x6"},
            ],
        }
        assert page.evaluate(CHECKED_TEXT, {"checked_against": [one, two]}) == (
            "Its 4x4 photos are checked against the dice of Classic 4x4 (1992)."
            " Its 6x6 photos are checked against the dice of Super Big Boggle 6x6 (2012)"
            " or Another 6x6."
        )
    finally:
        page.close()
