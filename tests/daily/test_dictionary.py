"""Which dictionary practice and the daily board play (issue 48, item 17): practice plays
the one the player chose; the daily board is one English board for everyone and says so,
in GET /api/daily and on its page."""

from __future__ import annotations

import pytest
from django.test import Client

from games.models import Room
from tests.daily.helpers import get, post
from tests.dictionaries.helpers import make_dictionary

pytestmark = pytest.mark.django_db

ENGLISH = {"name": "english", "title": "English (broad word-game list)"}


def test_practice_plays_the_dictionary_chosen(settings, tmp_path) -> None:
    settings.BOGGLE_DICTIONARY_DIR = tmp_path
    make_dictionary("francais", text="chat\nmaison\nete\nrat\n", language="fr")
    status, body = post(
        Client(), "/api/practice", {"nickname": "Zoé", "settings": {"dictionary": "francais"}}
    )
    assert status == 201, body
    assert Room.objects.get(code=body["room"]["code"]).dictionary == "francais"
    status, body = post(
        Client(), "/api/practice", {"nickname": "Zoé", "settings": {"dictionary": "klingon"}}
    )
    assert status == 400 and body["error"]["code"] == "invalid"


def test_the_daily_board_says_which_dictionary_it_plays(settings, tmp_path) -> None:
    settings.BOGGLE_DICTIONARY_DIR = tmp_path
    make_dictionary("francais", text="chat\nmaison\nete\nrat\n", language="fr")
    daily = get(Client(HTTP_ACCEPT_LANGUAGE="fr"), "/api/daily")
    assert daily["dictionary"] == ENGLISH  # one board for everyone, whatever the page's language
    page = Client().get("/daily/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Dictionnaire : English (broad word-game list), le même pour tous." in page
