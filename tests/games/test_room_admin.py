"""The room admin: the dictionary is a choice of the existing dictionaries, shown by title,
and the rooms list shows the dictionary's title."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from dictionaries.models import Dictionary
from games import rooms
from games.models import Room

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff() -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("root", "root@example.org", "pw"))
    return client


@pytest.fixture
def dictionaries() -> None:
    """Two dictionaries besides whatever a fresh installation has."""
    Dictionary.objects.update_or_create(name="french", defaults={"title": "Français"})
    Dictionary.objects.update_or_create(name="dutch", defaults={"title": "Nederlands"})


def change_url(room: Room) -> str:
    return f"/admin/games/room/{room.pk}/change/"


def form_data(room: Room, **changes: str) -> dict:
    """The change form as a browser posts it (no player rows changed)."""
    data = {
        "board_size": room.board_size,
        "dice_set": room.dice_set,
        "round_seconds": room.round_seconds or "",
        "min_length": room.min_length or "",
        "dictionary": room.dictionary,
        "cancel_duplicates": "on",
        "instant_verdicts": "on",
        "mode": room.mode,
        "coop_goal": room.coop_goal,
        "team_count": room.team_count,
        "chess_seconds": room.chess_seconds,
        "shrink_seconds": room.shrink_seconds,
        "shrink_floor": room.shrink_floor,
        "theme": room.theme,
        "next_board": "",
        "counts_sent_at_0": "",
        "counts_sent_at_1": "",
        "game_ended_at_0": "",
        "game_ended_at_1": "",
        "final_standing": "null",
        "host": room.host_id or "",
        "players-TOTAL_FORMS": "0",
        "players-INITIAL_FORMS": "0",
        "players-MIN_NUM_FORMS": "0",
        "players-MAX_NUM_FORMS": "1000",
    }
    data.update(changes)
    return data


def test_the_dictionary_is_a_select_of_the_dictionaries_by_title(staff, dictionaries):
    room, _ = rooms.do_create_room("Ann")
    page = staff.get(change_url(room)).content.decode()
    select = re.search(r'<select name="dictionary"[^>]*>(.*?)</select>', page, re.S)
    assert select is not None, "the dictionary is not a select"
    options = dict(re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', select.group(1)))
    expected = dict(Dictionary.objects.values_list("name", "title"))
    assert options == expected
    assert options["french"] == "Français" and options["dutch"] == "Nederlands"


def test_saving_a_room_with_another_dictionary(staff, dictionaries):
    room, _ = rooms.do_create_room("Ann")
    response = staff.post(change_url(room), form_data(room, dictionary="french"))
    assert response.status_code == 302, response.content.decode()[:2000]
    room.refresh_from_db()
    assert room.dictionary == "french"


def test_a_name_that_is_no_dictionary_is_refused(staff, dictionaries):
    room, _ = rooms.do_create_room("Ann")
    before = room.dictionary
    response = staff.post(change_url(room), form_data(room, dictionary="klingon"))
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()
    room.refresh_from_db()
    assert room.dictionary == before


def test_the_rooms_list_shows_the_dictionarys_title(staff, dictionaries):
    french, _ = rooms.do_create_room("Ann", {})
    Room.objects.filter(pk=french.pk).update(dictionary="french")
    gone, _ = rooms.do_create_room("Bob", {})
    Room.objects.filter(pk=gone.pk).update(dictionary="klingon")
    page = staff.get("/admin/games/room/").content.decode()
    assert "Français" in page
    assert "klingon (no such dictionary)" in page
    # Sorted by the title column: the column's header links to an ordering.
    assert staff.get("/admin/games/room/?o=3").status_code == 200
