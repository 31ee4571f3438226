"""Fixtures for the dictionaries app: a dictionary directory of the test's own and a small
uploaded word list compiled for real.

Nothing here writes to var/dictionaries: ``dictionary_dir`` points
``settings.BOGGLE_DICTIONARY_DIR`` at a temporary folder for the test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dictionaries.models import Dictionary
from tests.dictionaries.helpers import make_dictionary


@pytest.fixture
def dictionary_dir(tmp_path: Path, settings) -> Path:
    """An empty BOGGLE_DICTIONARY_DIR for this test."""
    path = tmp_path / "dictionaries"
    settings.BOGGLE_DICTIONARY_DIR = path
    return path


@pytest.fixture
def tiny(dictionary_dir: Path) -> Dictionary:
    """The tiny list, compiled with the default rules."""
    return make_dictionary()


@pytest.fixture(autouse=True)
def compile_at_once(monkeypatch) -> list:
    """Background compiles (the admin's, when tasks run eagerly) run at once in the test's
    thread, on its database connection. Returns the list of the works run."""
    from dictionaries import services

    ran: list = []

    def run(work) -> None:
        ran.append(work)
        work()

    monkeypatch.setattr(services, "run_in_background", run)
    return ran
