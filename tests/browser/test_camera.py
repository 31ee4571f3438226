"""The camera view of the photo buttons (static/js/lib/camera.js) in Chromium with a fake
camera that films a board photo: the view opens full screen with the video, the server's
preview finds the board and its outline is drawn, the view takes the picture by itself and
the board is read into the Solve page's grid (and the room's, for its host); the camera
stops whenever the view closes. Where the page has no camera API (plain http over the
LAN) the button opens the file chooser, and where the camera is refused "Choose a file
instead" does."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import Browser, Page, Request, ViewportSize, expect

from tests.browser.helpers import (
    CHROMIUM_ARGS,
    LAPTOP,
    create_room,
    screenshot,
    watch_errors,
)
from tests.browser.solve_helpers import face_text, faces_of, grid_values
from tests.browser.test_accessibility import serious_violations
from tests.photos.helpers import PHOTO, PHOTO_BOARD

pytestmark = pytest.mark.browser

# A phone held upright, as the camera view is mostly used.
PHONE_TALL: ViewportSize = {"width": 360, "height": 740}
PHONE: dict[str, Any] = {"viewport": PHONE_TALL, "has_touch": True, "is_mobile": True}
# The board photo filmed: pasted on a table of this colour, in frames of this size.
FRAME = (640, 480)
TABLE = (120, 116, 110)
FRAMES = 6
# Everything the page records of the camera: the streams it opened (to see them stopped),
# and the overlay's green pixels each time the stage says the board is found.
RECORDER = """
(() => {
  window.cameraStreams = [];
  window.outlineGreen = [];
  const devices = navigator.mediaDevices;
  if (devices && devices.getUserMedia) {
    const original = devices.getUserMedia.bind(devices);
    devices.getUserMedia = async (constraints) => {
      const stream = await original(constraints);
      window.cameraStreams.push(stream);
      return stream;
    };
  }
  new MutationObserver((changes) => {
    for (const change of changes) {
      const stage = change.target;
      if (!(stage instanceof Element) || !stage.classList.contains("camera-stage")) continue;
      if (!stage.classList.contains("found")) continue;
      const canvas = stage.querySelector(".camera-overlay");
      const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
      let green = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 1] > 150 && data[i] < 120 && data[i + 3] > 200) green += 1;
      }
      window.outlineGreen.push(green);
    }
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ["class"] });
})();
"""
STREAMS_STOPPED = """() => window.cameraStreams.length > 0 && window.cameraStreams.every(
    (stream) => stream.getTracks().every((track) => track.readyState === "ended"))"""


def y4m_of(picture: Image.Image, frames: int) -> bytes:
    """``picture`` as a Y4M video of ``frames`` identical frames (4:2:0, BT.601 studio
    range), the format Chromium's fake camera plays from a file, looping."""
    rgb = np.asarray(picture.convert("RGB"), np.float64)
    red, green, blue = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    luma = 16 + (65.481 * red + 128.553 * green + 24.966 * blue) / 255
    blue_diff = 128 + (-37.797 * red - 74.203 * green + 112.0 * blue) / 255
    red_diff = 128 + (112.0 * red - 93.786 * green - 18.214 * blue) / 255
    height, width = luma.shape

    def halved(plane: np.ndarray) -> np.ndarray:
        return plane.reshape(height // 2, 2, width // 2, 2).mean(axis=(1, 3))

    planes = [luma, halved(blue_diff), halved(red_diff)]
    frame = b"".join(np.clip(np.rint(plane), 0, 255).astype(np.uint8).tobytes() for plane in planes)
    header = f"YUV4MPEG2 W{width} H{height} F10:1 Ip A1:1 C420jpeg\n".encode()
    return header + b"".join(b"FRAME\n" + frame for _ in range(frames))


def filmed_board() -> Image.Image:
    """The board photo (416x416) on a table, in a 640x480 frame."""
    frame = Image.new("RGB", FRAME, TABLE)
    with Image.open(io.BytesIO(PHOTO.read_bytes())) as photo:
        frame.paste(photo.convert("RGB"), ((FRAME[0] - 416) // 2, (FRAME[1] - 416) // 2))
    return frame


@pytest.fixture(scope="module")
def camera_browser(chromium_path: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    """A Chromium whose camera films the board photo (its permission granted at once)."""
    if not PHOTO.is_file():
        pytest.skip(f"the labelled board photos are not here ({PHOTO}); they live outside the repo")
    from playwright.sync_api import sync_playwright

    video = tmp_path_factory.mktemp("camera") / "board.y4m"
    video.write_bytes(y4m_of(filmed_board(), FRAMES))
    args = [
        *CHROMIUM_ARGS,
        "--use-fake-ui-for-media-stream",
        "--use-fake-device-for-media-stream",
        f"--use-file-for-fake-video-capture={video}",
    ]
    expect.set_options(timeout=10_000)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path, args=args)
        yield browser
        browser.close()


def open_camera(page: Page) -> None:
    """Press the photo button; the camera view opens with the video playing."""
    page.locator("#photo-button").click()
    dialog = page.get_by_role("dialog", name="Photograph the board")
    expect(dialog).to_be_visible()
    page.wait_for_function(
        "() => { const v = document.querySelector('.camera-video'); return v && v.videoWidth > 0; }"
    )


def test_the_camera_finds_the_board_and_takes_the_picture(site, camera_browser: Browser) -> None:
    context = camera_browser.new_context(**PHONE)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        page.add_init_script(RECORDER)
        previews: list[Request] = []
        page.on("request", lambda r: previews.append(r) if r.url.endswith("/preview") else None)
        page.goto(f"{site.url}/solve/")
        open_camera(page)
        dialog = page.locator(".camera-dialog")
        # Full screen, the video at its own size, the advice a live status.
        box = dialog.bounding_box()
        assert box is not None
        assert (box["width"], box["height"]) == (pytest.approx(360), pytest.approx(740))
        assert page.evaluate("() => document.querySelector('.camera-video').videoWidth") == 640
        advice = page.locator(".camera-advice")
        expect(advice).to_have_attribute("role", "status")
        expect(advice).to_have_attribute("aria-live", "polite")
        expect(page.get_by_role("button", name="Take the picture")).to_be_enabled()
        expect(page.get_by_role("button", name="Choose a file instead")).to_be_visible()
        expect(page.get_by_role("button", name="Cancel")).to_be_visible()
        assert serious_violations(page) == []

        # The server's reader loads on the first preview, then finds the board: the
        # outline shows (green), and a second later the picture is taken.
        expect(page.locator(".camera-stage.found")).to_be_attached(timeout=90_000)
        screenshot(page, "camera-view-phone")
        expect(dialog).to_have_count(0, timeout=10_000)
        assert page.evaluate("() => window.outlineGreen.some((count) => count > 200)"), (
            page.evaluate("() => window.outlineGreen")
        )
        assert page.evaluate(STREAMS_STOPPED)  # the camera is off with the view
        # The previews were the video at 640x480; the reader loaded on the first ones.
        answers = [response.json() for r in previews if (response := r.response())]
        assert answers[-1]["found"] is True
        assert {(a.get("width"), a.get("height")) for a in answers if "width" in a} == {(640, 480)}

        # The picture goes the file input's way: sent, read, into the grid.
        cells = page.locator("#board-grid .die-input")
        faces = faces_of(PHOTO_BOARD)
        expect(cells.first).to_have_value(face_text(faces[0]), timeout=90_000)
        assert [value.lower() for value in grid_values(page)] == faces
        assert errors == []
    finally:
        context.close()


def test_escape_closes_the_view_and_stops_the_camera(site, camera_browser: Browser) -> None:
    context = camera_browser.new_context(**PHONE)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        page.add_init_script(RECORDER)
        # The server sees dice too small: the view says to come closer, and does not take
        # the picture by itself.
        page.route(
            "**/api/photos/preview",
            lambda route: route.fulfill(
                json={"found": False, "code": "dice_too_small", "message": "too small"}
            ),
        )
        page.goto(f"{site.url}/solve/")
        open_camera(page)
        expect(page.locator(".camera-advice")).to_have_text(
            "Move closer: the board should fill most of the picture."
        )
        screenshot(page, "camera-view-advice-phone")
        page.keyboard.press("Escape")
        expect(page.locator(".camera-dialog")).to_have_count(0)
        page.wait_for_function(STREAMS_STOPPED)
        # Cancel too, and taking the picture by hand hands it on at once.
        open_camera(page)
        page.get_by_role("button", name="Cancel").click()
        expect(page.locator(".camera-dialog")).to_have_count(0)
        page.wait_for_function(STREAMS_STOPPED)
        open_camera(page)
        with page.expect_request(
            lambda r: r.method == "POST" and r.url.endswith("/api/solve/photos")
        ) as upload:
            page.get_by_role("button", name="Take the picture").click()
        expect(page.locator(".camera-dialog")).to_have_count(0)
        page.wait_for_function(STREAMS_STOPPED)
        body = upload.value.post_data_buffer or b""
        assert b'filename="board.jpg"' in body and b"\xff\xd8\xff" in body  # a JPEG
        assert errors == []
    finally:
        context.close()


def test_without_a_camera_api_the_button_opens_the_file_chooser(
    site, camera_browser: Browser
) -> None:
    """Plain http over the LAN: no navigator.mediaDevices. The file input, as before."""
    context = camera_browser.new_context(**PHONE)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        page.add_init_script(
            "Object.defineProperty(Navigator.prototype, 'mediaDevices', {get: () => undefined});"
        )
        page.goto(f"{site.url}/solve/")
        with page.expect_file_chooser() as chooser:
            page.locator("#photo-button").click()
        assert chooser.value.element.get_attribute("id") == "photo-input"
        expect(page.locator(".camera-dialog")).to_have_count(0)
        assert errors == []
    finally:
        context.close()


def test_a_refused_camera_offers_the_file_instead(site, camera_browser: Browser) -> None:
    context = camera_browser.new_context(**PHONE)
    try:
        page = context.new_page()
        page.add_init_script(
            """navigator.mediaDevices.getUserMedia = () =>
                 Promise.reject(new DOMException("Permission denied", "NotAllowedError"));"""
        )
        page.goto(f"{site.url}/solve/")
        page.locator("#photo-button").click()
        expect(page.locator(".camera-advice")).to_contain_text("not allowed")
        expect(page.get_by_role("button", name="Take the picture")).to_be_hidden()
        choose = page.get_by_role("button", name="Choose a file instead")
        expect(choose).to_be_focused()
        screenshot(page, "camera-refused-phone")
        with page.expect_file_chooser() as chooser:
            choose.click()
        assert chooser.value.element.get_attribute("id") == "photo-input"
        expect(page.locator(".camera-dialog")).to_have_count(0)
    finally:
        context.close()


def test_the_host_takes_the_rooms_board_with_the_camera(site, camera_browser: Browser) -> None:
    context = camera_browser.new_context(**LAPTOP)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        page.add_init_script(RECORDER)
        create_room(page, site.url, "Ann")
        open_camera(page)
        expect(page.locator(".camera-dialog")).to_have_count(0, timeout=90_000)
        assert page.evaluate(STREAMS_STOPPED)
        inputs = page.locator("#photo-grid .die-input")
        expect(inputs).to_have_count(16, timeout=90_000)
        values = inputs.evaluate_all("d => d.map(i => i.value)")
        assert [value.lower() for value in values] == faces_of(PHOTO_BOARD)
        assert errors == []
    finally:
        context.close()
