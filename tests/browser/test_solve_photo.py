"""A photo on the Solve page in real browsers: the phone's camera sends it, the page waits
for the server's reader (saying how far its loading is), and the board read lands in the
editable grid with its doubtful dice marked, then solves like a typed one; the photo's key
only ever travels in a header. Where no board is found, its corners placed by hand on the
photo (fetched with the key, shown from a blob: address) read the dice inside them. A file
too large never leaves the phone."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from playwright.sync_api import Route, expect

from tests.browser.helpers import PHONE, DaphneServer, screenshot, watch_errors
from tests.browser.solve_helpers import face_text, faces_of, grid_values, solve, solve_context
from tests.browser.test_photo import corner_at, handle_centre, on_screen, touch_drag
from tests.photos.helpers import (
    LOW_ANGLE_BOARD,
    LOW_ANGLE_CORNERS,
    LOW_ANGLE_PHOTO,
    PHOTO,
    PHOTO_BOARD,
)

pytestmark = pytest.mark.browser


def test_a_photo_read_into_the_grid_then_solved(site, browser, tmp_path) -> None:
    """On a server whose reader is not loaded yet: the wait is said with its progress, the
    reading fills the grid (doubtful dice marked as the server says), Solve shows its words."""
    if not PHOTO.is_file():
        pytest.skip(f"the labelled board photos are not here ({PHOTO}); they live outside the repo")
    server = DaphneServer(Path(tempfile.mkdtemp(dir=tmp_path)))
    context = solve_context(browser, PHONE)
    with server.running():
        try:
            page = context.new_page()
            errors = watch_errors(page)
            page.add_init_script(
                """new MutationObserver(() => {
                     const status = document.getElementById("photo-status");
                     if (status && status.textContent) (window.statuses = window.statuses || []).push(status.textContent);
                   }).observe(document, {subtree: true, childList: true, characterData: true});"""
            )
            answers: list[dict] = []
            keys: list[str] = []

            def watch(route: Route) -> None:
                """The photo's answers as the page gets them, and how it names its key."""
                keys.append(route.request.headers.get("authorization", ""))
                response = route.fetch()
                answers.append(response.json())
                route.fulfill(response=response)

            page.route(re.compile(r"/api/solve/photos/\d+"), watch)
            sent: list[str] = []
            page.on("request", lambda r: sent.append(r.url) if r.method == "POST" else None)
            page.goto(f"{server.url}/solve/")
            assert page.locator("#photo-input").get_attribute("capture") == "environment"

            # Too large: refused in the page's words, never sent.
            huge = tmp_path / "huge.jpg"
            huge.write_bytes(b"\xff\xd8\xff\xe0" + bytes(15_500_000))
            page.locator("#photo-input").set_input_files(str(huge))
            expect(page.locator("#photo-error")).to_contain_text("15.5 MB")
            assert sent == []

            page.locator("#photo-input").set_input_files(str(PHOTO))
            cells = page.locator("#board-grid .die-input")
            faces = faces_of(PHOTO_BOARD)
            expect(cells.first).to_have_value(face_text(faces[0]), timeout=90_000)
            assert grid_values(page) == [face_text(face) for face in faces]
            statuses = page.evaluate("() => window.statuses")
            readying = [text for text in statuses if text.startswith("Getting the photo reader")]
            assert readying and all(re.search(r"\d+\s?%$", text) for text in readying), statuses
            # The key went in a header, never in an address.
            assert keys and all(key.startswith("Bearer ") for key in keys)
            assert all(key[7:] not in url for key in keys for url in sent)
            result = answers[-1]["photo"]["result"]
            doubtful = [
                index
                for index, flag in enumerate(flag for row in result["doubtful"] for flag in row)
                if flag
            ]
            marked = page.locator("#board-grid .die-cell").evaluate_all(
                "cells => cells.flatMap((c, i) => c.classList.contains('doubtful') ? [i] : [])"
            )
            assert marked == doubtful
            if doubtful:
                expect(page.locator("#grid-note")).to_contain_text("?")
                first = cells.nth(doubtful[0])
                expect(first).to_have_attribute("aria-label", re.compile("doubtful"))
                first.fill(faces[doubtful[0]])  # checked against the board: typed over
                expect(page.locator("#board-grid .die-cell.doubtful")).to_have_count(
                    len(doubtful) - 1
                )
            expect(page.locator("#photo-adjust")).to_be_visible()
            page.locator("#board-grid").scroll_into_view_if_needed()
            screenshot(page, "solve-photo-read-phone")

            solve(page)
            assert page.url.endswith("/solve/ygkh/auox/mrlz/isio/?dictionary=english")
            assert errors == []
        finally:
            context.close()


def test_corners_placed_by_hand_on_the_solve_page(site, browser) -> None:
    if not LOW_ANGLE_PHOTO.is_file():
        pytest.skip(f"the labelled board photos are not here ({LOW_ANGLE_PHOTO})")
    context = solve_context(browser, PHONE)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        page.goto(f"{site.url}/solve/")
        page.locator("#photo-input").set_input_files(str(LOW_ANGLE_PHOTO))
        place, adjust = page.locator("#photo-place"), page.locator("#photo-adjust")
        expect(page.locator("#photo-place, #photo-adjust").filter(visible=True)).to_have_count(
            1, timeout=90_000
        )
        if place.is_visible():
            expect(page.locator("#photo-error")).to_be_visible()  # what to change
            place.tap()
        else:
            adjust.tap()
        stage = page.locator(".corners-stage")
        expect(stage).to_be_visible()
        expect(page.locator("#board-form")).to_be_hidden()  # the grid makes way
        photo = page.locator(".corners-photo")
        assert (photo.get_attribute("src") or "").startswith("blob:")
        page.wait_for_function("() => document.querySelector('.corners-photo').naturalWidth > 0")

        stage.scroll_into_view_if_needed()
        for index, target in enumerate(LOW_ANGLE_CORNERS):
            touch_drag(page, handle_centre(page, index), on_screen(page, target, 416, 416))
            assert corner_at(page, index) == pytest.approx(target, abs=2.5)
        screenshot(page, "solve-photo-corners-phone")
        page.get_by_role("radio", name="4\u00d74").check()
        page.get_by_role("button", name="Read these dice").click()

        faces = faces_of(LOW_ANGLE_BOARD)
        cells = page.locator("#board-grid .die-input")
        expect(page.locator("#board-form")).to_be_visible()
        expect(cells.first).to_have_value(face_text(faces[0]), timeout=90_000)
        expect(page.locator(".corners-stage")).to_have_count(0)
        assert [value.lower() for value in grid_values(page)] == faces
        solve(page)
        assert "/solve/oter/keqa/onoa/eixy/" in page.url
        assert errors == []
    finally:
        context.close()
