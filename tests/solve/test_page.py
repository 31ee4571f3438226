"""The Solve page's server side (solve/pages.py): the dictionary it offers first follows the
page's language where one is installed, a board in the address is solved and embedded, and
a board that cannot be solved shows the page with the reason."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from tests.dictionaries.helpers import make_dictionary

pytestmark = pytest.mark.django_db


def embedded(response) -> dict:
    found = re.search(
        r'<script id="solve-data" type="application/json">(.*?)</script>',
        response.content.decode(),
        re.S,
    )
    assert found is not None, "the page embeds no solve-data"
    return json.loads(found.group(1))


def test_the_page_offers_the_dictionary_of_its_language_where_installed(settings, tmp_path):
    settings.BOGGLE_DICTIONARY_DIR = tmp_path
    english = embedded(Client().get("/solve/", HTTP_ACCEPT_LANGUAGE="nl"))
    assert english["dictionary"] == "english"  # no Dutch list installed: the default
    make_dictionary("woorden", text="kat\nhond\nboom\n", language="nl")
    dutch = embedded(Client().get("/solve/", HTTP_ACCEPT_LANGUAGE="nl"))
    assert dutch["dictionary"] == "woorden"
    assert {"name": "woorden", "title": "Woorden"} in dutch["dictionaries"]
    assert embedded(Client().get("/solve/", HTTP_ACCEPT_LANGUAGE="en"))["dictionary"] == "english"
    # A dictionary in the address wins; an unknown one is the language's.
    chosen = embedded(Client().get("/solve/?dictionary=english", HTTP_ACCEPT_LANGUAGE="nl"))
    assert chosen["dictionary"] == "english"
    unknown = embedded(Client().get("/solve/?dictionary=klingon", HTTP_ACCEPT_LANGUAGE="nl"))
    assert unknown["dictionary"] == "woorden"


def test_a_board_in_the_address_is_solved_into_the_page():
    response = Client().get("/solve/aeol/iejm/pdls/orkf/?min_length=4")
    assert response.status_code == 200
    data = embedded(response)
    assert data["board_text"] == "aeol iejm pdls orkf"
    assert data["error"] is None
    api = Client().get("/api/solve", {"board": "aeol iejm pdls orkf", "min_length": "4"}).json()
    assert data["answer"] == api


def test_a_board_that_cannot_be_solved_shows_the_page_with_why():
    response = Client().get("/solve/abc/")
    assert response.status_code == 400
    data = embedded(response)
    assert data["answer"] is None and data["error"]["code"] == "invalid_board"
    assert data["board_text"] == "abc"
