"""Over-exposure: a die whose letter the light has taken is reported doubtful."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.conditions import bright
from vision.evaluate import score_reading
from vision.legibility import washed_out
from vision.loading import load_image
from vision.recognize import BoardReader

# Held-out photos that, made 1.6 times brighter, had dice read wrong with confidence >= 0.8
# before washed-out dice were marked doubtful.
SILENTLY_MISREAD_WHEN_BRIGHT = (
    "cc492a15cc5e9df8d5358186b970f8cf.jpg",
    "74bd229019689cdd8b4e83bb27ab96dc.jpg",
    "f99ea5889d6643744ed7738383843067.jpg",
)


def _die(face_gray: int, ink_gray: int, size: int = 48) -> np.ndarray:
    crop = np.full((size, size), face_gray, np.uint8)
    cv2.putText(crop, "E", (12, 38), cv2.FONT_HERSHEY_SIMPLEX, 1.2, ink_gray, 3)
    return crop


def test_a_clear_letter_is_not_washed_out() -> None:
    crops = np.stack([_die(230, 20), _die(255, 40), _die(120, 10)])
    assert not washed_out(crops).any()


def test_a_white_face_with_faint_strokes_is_washed_out() -> None:
    assert washed_out(np.stack([_die(255, 200), _die(255, 255)])).all()


@pytest.mark.parametrize("name", SILENTLY_MISREAD_WHEN_BRIGHT)
def test_an_over_exposed_photo_has_no_confident_wrong_die(
    reader: BoardReader, validation_photos, name: str
) -> None:
    photo = next(p for p in validation_photos if p.path.name == name)
    image, centers = bright(np.random.default_rng(0), load_image(photo.path), photo.centers())
    result = score_reading(photo, reader.read(image), centers)
    assert result.silent == 0, result.mistakes
