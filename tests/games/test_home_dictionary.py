"""The start page's dictionaries (issue 48, item 17): "Start a game" and "Practice alone"
offer every dictionary a room may choose, the page's language's chosen first where one is
installed, the default otherwise."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.dictionaries.helpers import make_dictionary

pytestmark = pytest.mark.django_db


def options(html: str, select_id: str) -> tuple[list[str], str | None]:
    """The option values of ``<select id=select_id>`` and the selected one."""
    found = re.search(rf'<select id="{select_id}"[^>]*>(.*?)</select>', html, re.S)
    assert found is not None, f"no select #{select_id}"
    values = re.findall(r'<option value="([^"]*)"', found.group(1))
    chosen = re.findall(r'<option value="([^"]*)"[^>]*\bselected\b', found.group(1))
    assert len(chosen) <= 1
    return values, chosen[0] if chosen else None


def home(language: str) -> str:
    response = Client().get("/", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def test_a_french_page_chooses_the_french_dictionary_where_installed(settings, tmp_path) -> None:
    settings.BOGGLE_DICTIONARY_DIR = tmp_path
    make_dictionary("francais", text="chat\nmaison\nete\n", language="fr")
    french = home("fr")
    for select in ("create-dictionary", "practice-dictionary"):
        values, chosen = options(french, select)
        assert "francais" in values and "english" in values, select
        assert chosen == "francais", select
    english = home("en")
    for select in ("create-dictionary", "practice-dictionary"):
        assert options(english, select)[1] == "english", select
    # Dutch has none installed: the default.
    assert options(home("nl"), "create-dictionary")[1] == "english"


def test_without_a_dictionary_in_its_language_the_page_offers_the_default(
    settings, tmp_path
) -> None:
    settings.BOGGLE_DICTIONARY_DIR = tmp_path
    values, chosen = options(home("fr"), "create-dictionary")
    assert chosen == "english" and "english" in values
