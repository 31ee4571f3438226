"""Under CI=true the tests that need the labelled photos fail when the photos are missing,
as the browser and network tests do; elsewhere they skip, saying where the photos live
(issue 48: a run without them must not pass quietly)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.photo_data import require_labelled_photos, require_photo

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def no_photos(monkeypatch, tmp_path):
    monkeypatch.setenv("BOGGLE_PHOTOS_DIR", str(tmp_path))


def test_missing_photos_fail_under_ci(no_photos, monkeypatch, tmp_path):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true"):
        require_labelled_photos()
    with pytest.raises(pytest.fail.Exception, match="CI=true"):
        require_photo(tmp_path / "missing.jpg")


def test_missing_photos_skip_elsewhere(no_photos, monkeypatch, tmp_path):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="labelled photos not found"):
        require_labelled_photos()
    with pytest.raises(pytest.skip.Exception):
        require_photo(tmp_path / "missing.jpg")


def test_present_photos_pass(tmp_path, monkeypatch):
    monkeypatch.setenv("CI", "true")
    (tmp_path / "_annotations.csv").write_text("filename,width,height,class,xmin,ymin,xmax,ymax\n")
    require_labelled_photos(tmp_path)
    (tmp_path / "a.jpg").write_bytes(b"x")
    require_photo(tmp_path / "a.jpg")


@pytest.mark.parametrize(
    "path", ["tests/vision/conftest.py", "tests/dicesets/conftest.py", "tests/photos/helpers.py"]
)
def test_the_photo_tests_ask_through_the_one_rule(path):
    """The photo, dice-set and reader tests' fixtures skip only through tests.photo_data."""
    source = (ROOT / path).read_text()
    assert "tests.photo_data" in source
    assert "pytest.skip(" not in source
