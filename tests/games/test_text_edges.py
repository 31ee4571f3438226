"""Text from clients passes one check at the edge (web.text): lone surrogates, NUL and
other control characters, and over-long values are refused with ``invalid`` (or are no
room's code, no player's token), never stored where they would fail other players'
writes, never a server error. Nicknames carry at most two combining marks per character,
and the round picture keeps each nickname inside its own row."""

from __future__ import annotations

import io
import json

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from PIL import Image, ImageChops

from games import round_image
from games.nicknames import MAX_MARKS_PER_LETTER, longest_mark_run
from tests.games.test_consumer_round import end_by_host
from tests.games.ws_helpers import (
    ask,
    create_room,
    join_room,
    open_socket,
    receive_until,
    start_round,
    submit,
    tear_down,
    two_players,
)
from web import text
from web.errors import InvalidInput

# ---------------------------------------------------------------- the rule (pure)


@pytest.mark.parametrize(
    "value",
    [
        "e\ud800",  # a lone surrogate: not Unicode text
        "e\x00",  # NUL: PostgreSQL refuses it
        "a\x1bb",  # another control character
        "a\u202eb",  # a bidirectional override (format character)
        "a\u200bb",  # zero-width space
        "x" * 65,  # over the bound
    ],
)
def test_the_rule_refuses_what_cannot_be_stored_or_shown(value: str) -> None:
    assert not text.is_clean(value, 64)
    with pytest.raises(InvalidInput):
        text.check_text(value, "client_id", 64)


@pytest.mark.parametrize("value", ["", "abc-123", "élève", "日本語", "🙂", "x" * 64])
def test_the_rule_takes_any_other_text(value: str) -> None:
    assert text.check_text(value, "client_id", 64) == value


def test_joiners_are_taken_only_where_a_field_allows_them() -> None:
    rainbow_flag = "\U0001f3f3\ufe0f\u200d\U0001f308"
    assert not text.is_clean(rainbow_flag, 24)
    assert text.is_clean(rainbow_flag, 24, text.JOINERS)


# ---------------------------------------------------------------- HTTP edges


@pytest.mark.django_db
@pytest.mark.parametrize("code", ["ab%00cd", "%00", "%ED%A0%80", "%FF", "a" * 10_000])
def test_a_room_code_no_room_can_have_is_an_unknown_room(code: str) -> None:
    """404 room_not_found, as for any other unknown code; the answer echoes at most a
    short piece of the code."""
    response = Client().get(f"/api/rooms/{code}")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "room_not_found"
    assert len(response.content) < 500


@pytest.mark.django_db
def test_a_real_code_with_nul_after_it_is_an_unknown_room() -> None:
    created = Client().post("/api/rooms", {"nickname": "Ann"}, content_type="application/json")
    code = created.json()["room"]["code"]
    for path in (f"/api/rooms/{code}%00", f"/r/{code}%00/", f"/api/rooms/{code}%00/join"):
        if path.endswith("join"):
            response = Client().post(path, {"nickname": "Bob"}, content_type="application/json")
        else:
            response = Client().get(path)
        assert response.status_code == 404, path


@pytest.mark.django_db
def test_a_bearer_token_with_nul_is_no_player() -> None:
    created = Client().post("/api/rooms", {"nickname": "Ann"}, content_type="application/json")
    code = created.json()["room"]["code"]
    response = Client().get(f"/api/rooms/{code}", headers={"Authorization": "Bearer ab\x00cd"})
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "not_a_player"


@pytest.mark.django_db
def test_the_daily_nickname_query_is_checked() -> None:
    response = Client().get("/api/daily?nickname=a%00b")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"
    assert Client().get("/api/daily?nickname=Ann").status_code == 200
    assert Client().get("/daily/?nickname=a%00b").status_code == 200  # the page ignores it


# ---------------------------------------------------------------- nicknames


def join_with(nickname: str):
    created = Client().post("/api/rooms", {"nickname": "Ann"}, content_type="application/json")
    code = created.json()["room"]["code"]
    return Client().post(
        f"/api/rooms/{code}/join", json.dumps({"nickname": nickname}), "application/json"
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    "nickname",
    [
        "a" + "\u0301\u0302\u0303\u0304" * 5 + "\u0305\u0306\u0307",  # 23 accents
        "x\u0301\u0302\u0303",  # 3 marks on a letter with no precomposed form
        "B\u202eob",  # reorders the text around it
        "Bo\x00b",
        "Bo\ud800b",
    ],
)
def test_nicknames_that_would_draw_over_others_or_hide_text_are_refused(nickname: str) -> None:
    response = join_with(nickname)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "nickname",
    [
        "Nguye\u0302\u0303n",  # NFC folds both marks into one letter (ễ)
        "x\u0301\u0302",  # two marks: the bound
        "\u0e01\u0e34\u0e48",  # Thai: a vowel sign and a tone mark on one consonant
        "\U0001f3f3\ufe0f\u200d\U0001f308",  # an emoji sequence with a joiner
        "\u0645\u06cc\u200c\u0634\u0648\u062f",  # Persian with a zero-width non-joiner
    ],
)
def test_nicknames_of_real_scripts_are_taken(nickname: str) -> None:
    response = join_with(nickname)
    assert response.status_code == 201, response.content


def test_the_marks_bound_counts_after_nfc() -> None:
    assert MAX_MARKS_PER_LETTER == 2
    assert longest_mark_run("e\u0302\u0301") == 0  # ế
    assert longest_mark_run("a" + "\u0301" * 23) == 22  # á, then 22 more


def test_a_nickname_stored_before_the_bound_stays_in_its_row_of_the_picture() -> None:
    """Drawn with 23 accents (as a room of before the rule may hold), a nickname changes
    the picture only inside its own row of the ranking."""

    def picture(nickname: str) -> Image.Image:
        player = {"id": 1, "nickname": nickname, "round_points": 3, "words": []}
        other = {"id": 2, "nickname": "Bob", "round_points": 1, "words": []}
        results = {
            "round": {"number": 1, "rows": 4, "cols": 4, "grid": [list("cats")] * 4},
            "word_count": 10,
            "max_points": 20,
            "players": [other, player, dict(other, id=3, nickname="Cy", round_points=0)],
        }
        png = round_image.render_png(results, "example.org/r/x/rounds/1/")
        return Image.open(io.BytesIO(png)).convert("RGB")

    plain, piled = picture("a"), picture("a" + "\u0301" * 23)
    changed = ImageChops.difference(plain, piled).getbbox()
    assert changed is not None  # the accents are drawn...
    assert changed[3] - changed[1] <= round_image.RANKING_ROW  # ...inside one row


# ---------------------------------------------------------------- the socket


@pytest.fixture
async def sockets():
    yield
    await tear_down()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("sockets")
@pytest.mark.parametrize("client_id", ["e\ud800", "e\x00", "x" * 10_000])
async def test_a_bad_client_id_is_refused_and_other_players_words_are_kept(
    client_id: str,
) -> None:
    """Ann's entry with a client_id that cannot be stored is refused with ``invalid``; Bob's
    refused words, written in the same batches, are all in the results."""
    ann, bob = await two_players()
    await start_round(ann, bob)
    assert ann.comm is not None and bob.comm is not None
    refused = await submit(ann.comm, "zebra", client_id)
    assert refused["type"] == "error" and refused["code"] == "invalid", refused
    bobs = ["zebra", "dogz", "tac", "qqq", "cattt"]
    for index, word in enumerate(bobs):
        verdict = await submit(bob.comm, word, f"b{index}")
        assert verdict["type"] == "verdict", verdict
    accepted = await submit(ann.comm, "cats", "a1")
    assert accepted["accepted"] is True, accepted
    await end_by_host(ann, bob)
    results = await sync_to_async(Client().get)(f"/api/rooms/{ann.code}/rounds/1")
    players = {p["nickname"]: p for p in results.json()["results"]["players"]}
    assert {w["word"] for w in players["Bob"]["rejected"]} == set(bobs)
    assert [w["word"] for w in players["Ann"]["words"]] == ["cats"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("sockets")
async def test_a_challenged_word_with_nul_is_refused() -> None:
    ann, bob = await two_players()
    await start_round(ann, bob)
    assert ann.comm is not None
    assert (await ask(ann.comm, "end_round"))["type"] == "ok"
    for word in ("dog\x00z", "dog\ud800", "d" * 10_000):
        reply = await ask(ann.comm, "challenge", word=word, round_number=1)
        assert reply["type"] == "error" and reply["code"] == "invalid", reply


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("sockets")
@pytest.mark.parametrize("token", ["ab%00cd", "%ED%A0%80", "%FF", "t" * 10_000])
async def test_a_socket_with_a_token_no_player_has_is_refused(token: str) -> None:
    """The socket hears ``not_a_player`` and is closed with 4403, not 1011."""
    ann = await create_room()
    await join_room(ann.code, "Bob")
    comm = await open_socket(ann.code, token)
    error = await receive_until(comm, "error")
    assert error["code"] == "not_a_player"
    closed = await comm.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": 4403}
