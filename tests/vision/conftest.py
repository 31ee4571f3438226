"""Fixtures for the vision tests: the shipped models (loaded once) and the labelled photos.

Tests that need the labelled photos (../shared/data/boggle-boards) skip with a reason when
they are absent, and fail under CI=true (``tests.photo_data``); everything else runs from
the repository alone.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable

import numpy as np
import pytest
from PIL import Image

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from tests.photo_data import require_labelled_photos
from vision import dataset
from vision.recognize import BoardReader


@pytest.fixture(scope="session")
def reader() -> BoardReader:
    """The shipped models, loaded once for the whole session."""
    return BoardReader()


@pytest.fixture(scope="session")
def validation_photos() -> list[dataset.LabelledPhoto]:
    """The validation split (held out by board) of the labelled photos."""
    require_labelled_photos()
    return dataset.split_by_board(dataset.load_photos())[1]


def _encode(image: np.ndarray, fmt: str = "JPEG", **options: object) -> bytes:
    """An RGB array as the bytes of an image file."""
    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, format=fmt, **options)
    return buffer.getvalue()


@pytest.fixture
def encode() -> Callable[..., bytes]:
    """``encode(array, fmt="JPEG", **options)``: an RGB array as image file bytes."""
    return _encode
