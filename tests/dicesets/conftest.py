"""Fixtures of the dice-set tests: a public installation, a real board photo with its
confirmed faces and corners, and photos stored in a temporary folder.

The real board is a labelled photo of the shared data (``vision.dataset``, as the vision
tests use): its corners come from the labelled dice (``vision.lattice.fit_grid``), its faces
from their labels, so no model is loaded. Tests that need it skip when the photos are absent
(and fail under CI=true: ``tests.photo_data``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from dicesets import services
from tests.photo_data import missing, require_labelled_photos
from vision import dataset
from vision.lattice import fit_grid

# A 4x4 photo that the shipped models read whole: "ygkh auox mrlz isio".
PHOTO_NAME = "004d2c027e43dd194554d6527b4ba67a.jpg"
PUBLIC_URL = "https://boggle.example.org"


@dataclass(frozen=True)
class RealBoard:
    path: Path
    corners: list[list[float]]
    rows: int
    cols: int
    faces: list[list[str]]


@pytest.fixture(scope="session")
def real_board() -> RealBoard:
    """The labelled photo, its board's outer corners and its faces, row by row."""
    require_labelled_photos()
    photo = next((p for p in dataset.load_photos() if p.path.name == PHOTO_NAME), None)
    if photo is None:
        missing(f"{PHOTO_NAME} is not among the labelled photos")
    fit = fit_grid(photo.centers(), (photo.side,))
    labelled = photo.centers()
    cells = fit.grid.centers().reshape(-1, 2)
    faces = [photo.dice[int(np.argmin(((labelled - cell) ** 2).sum(1)))].face for cell in cells]
    side = photo.side
    return RealBoard(
        photo.path,
        fit.grid.corners().tolist(),
        side,
        side,
        [faces[row * side : (row + 1) * side] for row in range(side)],
    )


@pytest.fixture
def public(settings) -> None:
    """A public installation (BOGGLE_PUBLIC_URL set)."""
    settings.BOGGLE_PUBLIC_URL = PUBLIC_URL


@pytest.fixture
def embedded(settings) -> None:
    """The embedded default (bin/start): no public address."""
    settings.BOGGLE_PUBLIC_URL = ""


@pytest.fixture(autouse=True)
def _fresh_memories(settings, tmp_path):
    """No memory cached from another test (set ids repeat); photos in a temporary folder,
    read and learnt from inline."""
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PHOTOS_READ_IN_THREAD = False
    settings.DICESETS_REMEMBER_IN_THREAD = False
    services.forget_cached_memories()
    yield
    services.forget_cached_memories()


@pytest.fixture
async def close_sockets():
    """After the test: close the sockets it opened (as tests/games/conftest.py does)."""
    from tests.games.ws_helpers import tear_down

    yield
    await tear_down()
