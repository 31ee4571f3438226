"""Board from a photo in real browsers: Bob sends a photo from his phone, both see the read
grid (Ann still after a reload), Ann (host) confirms it and round 1 plays it; then Ann types
a board for round 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import (
    DESKTOP,
    PHONE,
    board_faces,
    create_room,
    join_room,
    wait_until_playing,
    watch_errors,
)

pytestmark = pytest.mark.browser

PHOTO = (
    Path(__file__).resolve().parents[2].parent
    / "shared"
    / "data"
    / "boggle-boards"
    / "004d2c027e43dd194554d6527b4ba67a.jpg"
)
PHOTO_BOARD = [list("ygkh"), list("auox"), list("mrlz"), list("isio")]


def test_a_board_from_a_photo_then_a_typed_board(site, browser) -> None:
    if not PHOTO.is_file():
        pytest.skip(f"the labelled board photos are not here ({PHOTO}); they live outside the repo")
    ann_context = browser.new_context(viewport=DESKTOP)
    bob_context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    try:
        ann, bob = ann_context.new_page(), bob_context.new_page()
        ann_errors, bob_errors = watch_errors(ann), watch_errors(bob)
        code = create_room(ann, site.url, "Ann")
        join_room(bob, f"{site.url}/r/{code}/", "Bob")

        expect(bob.locator("#photo-button")).to_be_visible()
        expect(bob.locator("#type-board")).to_be_hidden()  # only the host sets boards
        assert bob.locator("#photo-input").get_attribute("capture") == "environment"
        bob.locator("#photo-input").set_input_files(str(PHOTO))

        for page in (ann, bob):
            expect(page.locator("#photo-grid .die-input")).to_have_count(16, timeout=60_000)
        values = ann.locator("#photo-grid .die-input").evaluate_all("d => d.map(i => i.value)")
        assert [v.lower() for v in values] == [face for row in PHOTO_BOARD for face in row]
        ann.reload()  # the read photo is part of the room's state: it comes back
        expect(ann.locator("#photo-grid .die-input")).to_have_count(16, timeout=20_000)
        values = ann.locator("#photo-grid .die-input").evaluate_all("d => d.map(i => i.value)")
        assert [v.lower() for v in values] == [face for row in PHOTO_BOARD for face in row]
        expect(bob.locator("#photo-host-note")).to_be_visible()
        expect(bob.locator("#use-board")).to_be_hidden()
        assert bob.locator("#photo-grid .die-input").first.evaluate("i => i.readOnly")

        ann.get_by_role("button", name="Use this board").click()
        expect(ann.locator("#photo-next")).to_contain_text("YGKH AUOX MRLZ ISIO")
        expect(bob.locator("#photo-next")).to_contain_text("YGKH AUOX MRLZ ISIO")
        ann.locator("#start-round").click()
        wait_until_playing(ann)
        assert board_faces(ann) == PHOTO_BOARD
        assert board_faces(bob) == PHOTO_BOARD

        site.end_round_now(code)
        expect(ann.locator("#results-panel")).to_be_visible(timeout=10_000)
        ann.get_by_role("button", name="Type a board").click()
        inputs = ann.locator("#photo-grid .die-input")
        expect(inputs).to_have_count(16)
        expect(inputs.first).to_be_focused()
        ann.get_by_role("button", name="Use this board").click()
        expect(ann.locator("#photo-error")).to_have_text("Fill in every die first.")
        ann.keyboard.type("catsqiexdogzwent")  # each die moves to the next; Q is the Qu die
        values = inputs.evaluate_all("d => d.map(i => i.value)")
        assert [v.lower() for v in values][:5] == ["c", "a", "t", "s", "qu"]
        ann.get_by_role("button", name="Use this board").click()
        expect(ann.locator("#photo-next")).to_contain_text("CATS QIEX DOGZ WENT")  # Q: the Qu die
        ann.locator("#next-round").click()
        typed = [list("cats"), ["qu", "i", "e", "x"], list("dogz"), list("went")]
        for page in (ann, bob):
            expect(page.locator("#round-title")).to_contain_text("2", timeout=20_000)
            wait_until_playing(page)
            assert board_faces(page) == typed
        assert ann_errors == [] and bob_errors == []
    finally:
        ann_context.close()
        bob_context.close()
