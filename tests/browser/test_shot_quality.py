"""The camera view's measures of a picture (static/js/lib/shot-quality.js) in the browser,
on pictures made here: a board photo is sharp, well lit and steady; the same blurred,
darkened, glaring or moved is not, and says which. The same board photos set the
thresholds (the module says how)."""

from __future__ import annotations

import base64
import io
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageFilter
from playwright.sync_api import Browser

from tests.photos.helpers import PHOTO

pytestmark = pytest.mark.browser

WIDTH, HEIGHT = 320, 240  # as the camera view measures its video
MEASURE = """async ([pictures, width, height]) => {
  const quality = await import("/static/js/lib/shot-quality.js");
  let previous = null;
  const found = [];
  for (const text of pictures) {
    const bytes = Uint8ClampedArray.from(atob(text), (character) => character.charCodeAt(0));
    const measured = quality.measure(bytes, width, height, previous);
    previous = measured.gray;
    found.push({
      mean: measured.exposure.mean,
      clipped: measured.exposure.clipped,
      sharpness: measured.sharpness,
      motion: measured.motion,
      problem: measured.problem,
    });
  }
  return {found, thresholds: {dark: quality.TOO_DARK_MEAN, glare: quality.GLARE_SHARE,
                              sharp: quality.SHARP_ENOUGH, steady: quality.STEADY_DIFF}};
}"""


def rgba(picture: Image.Image) -> str:
    """The picture's RGBA bytes, as base64 (as a canvas's getImageData gives them)."""
    return base64.b64encode(picture.convert("RGBA").tobytes()).decode()


def board_frame(shift: int = 0) -> Image.Image:
    """The board photo on a table, 320x240, ``shift`` pixels to the right."""
    frame = Image.new("RGB", (WIDTH, HEIGHT), (120, 116, 110))
    with Image.open(io.BytesIO(PHOTO.read_bytes())) as photo:
        board = photo.convert("RGB").resize((230, 230), Image.Resampling.BILINEAR)
    frame.paste(board, ((WIDTH - 230) // 2 + shift, 5))
    return frame


def measured(site, browser: Browser, pictures: list[Image.Image]) -> dict[str, Any]:
    page = browser.new_page()
    try:
        page.goto(site.url + "/solve/")
        return page.evaluate(MEASURE, [[rgba(p) for p in pictures], WIDTH, HEIGHT])
    finally:
        page.close()


def test_a_board_photo_passes_and_its_faults_are_named(site, browser: Browser) -> None:
    if not PHOTO.is_file():
        pytest.skip(f"the labelled board photos are not here ({PHOTO}); they live outside the repo")
    board = board_frame()
    dark = Image.eval(board, lambda value: value // 5)
    glaring = np.asarray(board).copy()
    glaring[60:140, 80:240] = 255  # a lamp's reflection over a sixth of the picture
    # Each picture twice (the second is steady), then the phone moved.
    pictures = [
        board,
        board,
        board.filter(ImageFilter.GaussianBlur(3)),
        board.filter(ImageFilter.GaussianBlur(3)),
        dark,
        dark,
        Image.fromarray(glaring),
        Image.fromarray(glaring),
        board,
        board_frame(shift=12),
    ]
    answer = measured(site, browser, pictures)
    found, thresholds = answer["found"], answer["thresholds"]
    assert found[0]["problem"] == "moving"  # nothing to compare with yet
    assert [found[index]["problem"] for index in (1, 3, 5, 7, 9)] == [
        None,
        "blurred",
        "dark",
        "glare",
        "moving",
    ]
    sharp, blurred = found[1], found[3]
    assert sharp["motion"] == 0 and sharp["clipped"] == 0
    assert sharp["sharpness"] > 5 * thresholds["sharp"] > blurred["sharpness"]
    assert found[5]["mean"] < thresholds["dark"] < sharp["mean"]
    assert found[7]["clipped"] > thresholds["glare"]
    assert found[9]["motion"] > thresholds["steady"]


def test_the_measures_on_plain_pictures(site, browser: Browser) -> None:
    white = Image.new("RGB", (WIDTH, HEIGHT), (255, 255, 255))
    red = Image.new("RGB", (WIDTH, HEIGHT), (255, 0, 0))
    answer = measured(site, browser, [white, red])
    white_shot, red_shot = answer["found"]
    assert white_shot["mean"] == 255 and white_shot["clipped"] == 1
    assert white_shot["sharpness"] == 0 and white_shot["motion"] is None
    assert red_shot["mean"] == pytest.approx(0.299 * 255, abs=1)  # BT.601 luma
    assert red_shot["motion"] == pytest.approx(255 - red_shot["mean"])
