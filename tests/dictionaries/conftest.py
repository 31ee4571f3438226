"""Fixtures for the dictionaries app: a dictionary directory of the test's own, a small
uploaded word list compiled for real, and a staff member signed in to the admin.

Nothing here writes to var/dictionaries: ``dictionary_dir`` points
``settings.BOGGLE_DICTIONARY_DIR`` at a temporary folder for the test.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client

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


@pytest.fixture
def staff() -> Client:
    """A logged-in superuser (staff with every permission)."""
    client = Client()
    client.force_login(User.objects.create_superuser("root", "root@example.org", "pw"))
    return client


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
