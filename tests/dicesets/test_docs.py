"""docs/api.md says what the dice sets send: every error code of the app, the settings it
takes and every field of ``photo_set``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dicesets import choices
from games import rooms
from games.checks import _settings_parts

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = (ROOT / "docs" / "api.md").read_text()


def test_every_error_code_of_the_app_is_documented():
    codes = set()
    for source in (ROOT / "dicesets").glob("*.py"):
        codes.update(re.findall(r'\bcode = "([a-z_]+)"', source.read_text()))
    assert codes == {"photo_set_not_found"}
    assert all(f"`{code}`" in DOCUMENT for code in codes)


def test_the_settings_the_app_takes_are_documented():
    assert choices.SETTINGS_PART in _settings_parts
    for name in choices.SETTINGS_PART.fields:
        assert f"| `{name}` |" in DOCUMENT, name


@pytest.mark.django_db
def test_every_field_of_photo_set_is_documented():
    room, _host = rooms.do_create_room("Ann")
    photo_set = choices.photo_set_dict(room)
    section = DOCUMENT[DOCUMENT.index("## Dice sets") :]
    for name in photo_set:
        assert f"`{name}`" in section, name
    choice_fields = ", ".join(f'"{name}"' for name in photo_set["choices"][0])
    assert f"{{{choice_fields}}}" in section
    assert "`photo_set.changed`" in DOCUMENT and "| `photo_set` |" in DOCUMENT


def test_the_readings_memory_fields_are_documented():
    """board.read's ``remembered`` and ``unaided`` (issue 48): the example and the text."""
    from vision.recognize import BoardReading

    reading = BoardReading(1, 1, [["a"]], [[0.9]], [[[0.0, 0.0]]]).as_dict()
    section = DOCUMENT[
        DOCUMENT.index("## Board from a photo") : DOCUMENT.index("### Corners by hand")
    ]
    for name in reading:
        assert f'"{name}"' in section, name
    assert "- `remembered`" in section and "`unaided`" in section
