"""The one rule for tests that need the labelled board photos (they live outside the
repository, in ../shared/data/boggle-boards or $BOGGLE_PHOTOS_DIR): without them a test
skips, saying where they live, except under CI=true, where it fails, as the browser and
network tests do (CI must not pass without the photo, dice-set and reader tests)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import pytest

from boggle_site.env import get_bool
from vision import dataset

NO_PHOTOS = "labelled photos not found (../shared/data/boggle-boards or $BOGGLE_PHOTOS_DIR)"


def missing(reason: str) -> NoReturn:
    """Skip the test for ``reason``; under CI=true fail it."""
    if get_bool(os.environ, "CI"):
        pytest.fail(f"{reason}. CI=true: the photo tests must run.")
    pytest.skip(reason)


def require_labelled_photos(directory: Path | None = None) -> None:
    """Go on only when the labelled photos (with their annotations) are present."""
    if not dataset.available(directory):
        missing(NO_PHOTOS)


def require_photo(path: Path) -> None:
    """Go on only when this labelled photo is present."""
    if not path.is_file():
        missing(f"the labelled board photo {path.name} is not here ({path.parent})")
