"""Nicknames: shown as typed (NFC, trimmed), compared by a key that ignores case, width,
accents, invisible characters and Cyrillic/Greek letters that look Latin, and the database
holds one active player per key and room."""

from __future__ import annotations

import json
import unicodedata
from typing import Any

import pytest
from django.db import IntegrityError, transaction
from django.test import Client

from games.models import Player, Room
from games.nicknames import display_nickname, nickname_key

pytestmark = pytest.mark.django_db

# ---------------------------------------------------------------- the key (pure)


@pytest.mark.parametrize(
    "lookalike",
    [
        "bob",
        "BOB",
        "B\u043eb",  # Cyrillic o
        "\u0412\u041e\u0412",  # Cyrillic capitals
        "\u0392\u039f\u0392",  # Greek capitals
        "\uff22\uff4f\uff42",  # fullwidth
        "B\u200bob",  # zero-width space
        "Bo\u0301b",  # combining accent
        "B\u00f3b",  # ó
        "\U0001d401\U0001d428\U0001d41b",  # mathematical bold
    ],
)
def test_lookalikes_share_a_key(lookalike: str) -> None:
    assert nickname_key(lookalike) == nickname_key("Bob")


@pytest.mark.parametrize(
    ("latin", "other"),
    [
        ("apex", "\u0430\u0440\u0435\u0445"),  # Cyrillic
        ("cosy", "\u0441\u043e\u0455\u0443"),  # Cyrillic
        ("jig", "\u0458\u0456\u0261"),  # Cyrillic je, i, Latin script g
        ("d", "\u0501"),  # Cyrillic komi de
        ("HIKMNPTXZ", "\u0397\u0399\u039a\u039c\u039d\u03a1\u03a4\u03a7\u0396"),  # Greek
    ],
)
def test_cyrillic_and_greek_lookalikes_map_to_latin(latin: str, other: str) -> None:
    assert nickname_key(other) == nickname_key(latin)


@pytest.mark.parametrize(("one", "two"), [("Bob", "Rob"), ("Ann", "Anna"), ("Пётр", "Иван")])
def test_different_names_have_different_keys(one: str, two: str) -> None:
    assert nickname_key(one) != nickname_key(two)


def test_the_displayed_nickname_is_nfc_and_trimmed() -> None:
    shown = display_nickname("  Jose\u0301   Maria ")
    assert shown == "Jos\u00e9 Maria"
    assert unicodedata.is_normalized("NFC", shown)


# ---------------------------------------------------------------- joining a room


def post(path: str, data: dict) -> Any:
    return Client().post(path, json.dumps(data), content_type="application/json")


def new_room(nickname: str = "Bob") -> str:
    response = post("/api/rooms", {"nickname": nickname})
    assert response.status_code == 201, response.content
    return response.json()["room"]["code"]


@pytest.mark.parametrize(
    "second", ["bob", "B\u043eb", "\u0392\u039f\u0392", "\uff22\uff4f\uff42", "Bo\u0301b"]
)
def test_a_lookalike_of_an_active_nickname_is_taken(second: str) -> None:
    code = new_room("Bob")
    response = post(f"/api/rooms/{code}/join", {"nickname": second})
    assert response.status_code == 409, response.content
    error = response.json()["error"]
    assert error["code"] == "nickname_taken"
    assert "Bob" in error["message"] and "pick another nickname" in error["message"]


def test_non_ascii_nicknames_differing_in_case_are_taken() -> None:
    code = new_room("\u00c9mile")
    response = post(f"/api/rooms/{code}/join", {"nickname": "\u00e9mile"})
    assert response.status_code == 409, response.content


def test_a_decomposed_nickname_is_shown_composed() -> None:
    response = post("/api/rooms", {"nickname": " Jose\u0301 "})
    assert response.status_code == 201, response.content
    assert response.json()["player"]["nickname"] == "Jos\u00e9"


def test_the_nickname_of_a_player_who_left_is_free_again() -> None:
    code = new_room("Ann")
    join = post(f"/api/rooms/{code}/join", {"nickname": "Bob"}).json()
    Player.objects.filter(token=join["player"]["token"]).update(left_at="2026-01-01T00:00Z")
    response = post(f"/api/rooms/{code}/join", {"nickname": "B\u043eb"})
    assert response.status_code == 201, response.content
    assert response.json()["player"]["nickname"] == "B\u043eb"


# ---------------------------------------------------------------- the database's own rule


@pytest.mark.parametrize("second", ["\u00e9mile", "\u0415mile", "\u00c9MILE"])
def test_the_database_refuses_a_second_active_lookalike(second: str) -> None:
    """Even a write that skips check_nickname (a race between two joins) is refused."""
    room = Room.objects.create()
    Player.objects.create(room=room, nickname="\u00c9mile")
    with pytest.raises(IntegrityError), transaction.atomic():
        Player.objects.create(room=room, nickname=second)


def test_the_same_nickname_in_two_rooms_is_fine() -> None:
    Player.objects.create(room=Room.objects.create(), nickname="Bob")
    Player.objects.create(room=Room.objects.create(), nickname="Bob")
