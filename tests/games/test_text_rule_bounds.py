"""The edges of the one text rule (web.text) that the other tests do not reach: DEL (0x7F)
is a control character like NUL; a control character in text that is not ASCII (which is
checked by Unicode category, not by the ASCII shortcut) is refused too; and a room code
longer than any room's (16) is never looked up."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from games import checks
from games.exceptions import RoomNotFound
from web import text
from web.errors import InvalidInput

# A control character in ASCII text and in text with a letter outside ASCII: the rule
# takes two ways to the same answer, and both must refuse.
CONTROLS = ["a\x7fb", "\x7f", "c\x00t", "é\x7f", "日本\x7f", "café\x00", "ça\x00t", "é\x1b"]


@pytest.mark.parametrize("value", CONTROLS)
def test_del_and_nul_are_refused_in_any_text(value: str) -> None:
    assert text.text_problem(value, 64) == "control"
    assert not text.is_clean(value, 64)
    with pytest.raises(InvalidInput, match="control"):
        text.check_text(value, "word", 64)


@pytest.mark.parametrize("value", ["ab~", "café", "日本語", "a b"])
def test_the_printable_neighbours_of_the_refused_characters_are_taken(value: str) -> None:
    """The tilde (0x7E) is just below DEL; letters outside ASCII go the slow way."""
    assert text.check_text(value, "word", 64) == value


@pytest.mark.django_db
@pytest.mark.parametrize("word", ["ça\x00t", "c\x7ft", "été\x7f"])
def test_a_paper_games_word_with_nul_or_del_is_refused(word: str) -> None:
    body = {"board": "aeol iejm pdls orkf", "players": [{"name": "Ann", "words": [word]}]}
    response = Client().post("/api/solve/check", json.dumps(body), content_type="application/json")
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "invalid"
    assert "words[0]" in response.json()["error"]["message"]


@pytest.mark.django_db
@pytest.mark.parametrize("nickname", ["Bo\x7fb", "Zoë\x7f", "Zoë\x00"])
def test_a_nickname_with_del_or_nul_is_refused(nickname: str) -> None:
    response = Client().post(
        "/api/rooms", json.dumps({"nickname": nickname}), content_type="application/json"
    )
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "invalid"


# ---------------------------------------------------------------- room codes


def test_room_codes_are_at_most_sixteen_characters() -> None:
    assert text.looks_like_room_code("a" * 16)
    assert text.looks_like_room_code(" ABCD2345 ")  # trimmed, any case
    for code in ("a" * 17, "a" * 64, "", "ab-cd", "ab\x00cd"):
        assert not text.looks_like_room_code(code), code


@pytest.mark.django_db
@pytest.mark.parametrize("length", [17, 64])
def test_a_code_longer_than_any_room_s_is_never_looked_up(
    length: int, django_assert_num_queries
) -> None:
    with django_assert_num_queries(0), pytest.raises(RoomNotFound):
        checks.check_room("a" * length)
