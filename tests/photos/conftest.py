"""Fixtures of the board-photo tests."""

from __future__ import annotations

import pytest

from photos import reading
from tests.photos.helpers import FakeReader


@pytest.fixture
def fake_reader(monkeypatch) -> FakeReader:
    """Replace the models with a reader returning ``fake_reader.reading`` (or raising it)."""
    fake = FakeReader()
    monkeypatch.setattr(reading, "_reader", fake)
    return fake
