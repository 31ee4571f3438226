"""The host using a photo's board: once the host sets a board after the photo was read
(corrected or not), the photo is used, so a reload shows the confirmed board and not the
photo's grid; ``photos.signals.board_confirmed`` says which faces the host confirmed."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async

from photos.models import BoardPhoto
from photos.signals import board_confirmed
from tests.games.ws_helpers import ask, receive_until, tear_down, two_players
from tests.photos.helpers import png_bytes, post_corners, upload
from vision.recognize import BoardReading

pytestmark = pytest.mark.django_db(transaction=True)

READ = "cats qiex dogz went"  # what the fake reader reads


@pytest.fixture(autouse=True)
async def _close_sockets():
    yield
    await tear_down()


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PHOTOS_READ_IN_THREAD = False


@pytest.fixture
def confirmed() -> Iterator[list[tuple[int, list[list[str]]]]]:
    """The ``board_confirmed`` signals sent during the test: (photo id, faces)."""
    sent: list[tuple[int, list[list[str]]]] = []

    def receiver(sender, photo, faces, **kwargs):
        sent.append((photo.pk, faces))

    board_confirmed.connect(receiver, dispatch_uid="test_confirm")
    yield sent
    board_confirmed.disconnect(dispatch_uid="test_confirm")


async def read_photo(player) -> int:
    response = await upload(player.client, player.code, png_bytes(), name="b.png")
    photo_id = response.json()["photo"]["id"]
    await receive_until(player.comm, "board.read", photo_id=photo_id)
    return photo_id


async def test_a_corrected_board_leaves_the_state_and_is_confirmed(fake_reader, confirmed):
    """One die changed from the reading: the next sync has no photo (a reload shows the
    confirmed board, not the photo's grid), and the dice-set listeners hear the faces."""
    ann, bob = await two_players()
    photo_id = await read_photo(bob)
    assert (await ask(bob.comm, "sync"))["state"]["photo"]["status"] == "read"
    corrected = "cats quiet dogz went".replace("quiet", "qiey")  # the x was a y
    reply = await ask(ann.comm, "set_board", board=corrected)
    assert reply["type"] == "ok", reply
    for player in (ann, bob):
        state = (await ask(player.comm, "sync"))["state"]
        assert state["photo"] is None
        assert state["settings"]["next_board"] == "cats qiey dogz went"
    assert confirmed == [
        (photo_id, [list("cats"), ["qu", "i", "e", "y"], list("dogz"), list("went")])
    ]
    photo = await sync_to_async(BoardPhoto.objects.get)(pk=photo_id)
    assert photo.used_at is not None and photo.status == "read"  # still there, used
    # Used once: setting another board does not confirm this photo again.
    assert (await ask(ann.comm, "set_board", board=READ))["type"] == "ok"
    assert len(confirmed) == 1


async def test_the_unchanged_board_is_confirmed_too(fake_reader, confirmed):
    ann, _ = await two_players()
    photo_id = await read_photo(ann)
    assert (await ask(ann.comm, "set_board", board=READ))["type"] == "ok"
    assert (await ask(ann.comm, "sync"))["state"]["photo"] is None
    assert [pk for pk, _ in confirmed] == [photo_id]


async def test_clearing_the_next_board_uses_nothing(fake_reader, confirmed):
    ann, _ = await two_players()
    photo_id = await read_photo(ann)
    assert (await ask(ann.comm, "set_board", board=""))["type"] == "ok"
    assert (await ask(ann.comm, "sync"))["state"]["photo"]["id"] == photo_id
    assert confirmed == []


async def test_a_refused_board_uses_nothing(fake_reader, confirmed):
    ann, _ = await two_players()
    photo_id = await read_photo(ann)
    reply = await ask(ann.comm, "set_board", board="abcde " * 5)  # 5x5 in a 4x4 room
    assert reply["type"] == "error"
    assert (await ask(ann.comm, "sync"))["state"]["photo"]["id"] == photo_id
    assert confirmed == []


async def test_a_board_of_another_shape_uses_the_photo_without_confirming_it(
    fake_reader, confirmed
):
    """The photo shows 5x5, the room plays 4x4: the host types a 4x4 board instead. The
    photo is used (it stays out of a reload), but its dice are not the board's."""
    fake_reader.reading = BoardReading(
        rows=5,
        cols=5,
        letters=[list("abcde")] * 5,
        confidence=[[0.9] * 5] * 5,
        centers=[[[0.0, 0.0]] * 5] * 5,
    )
    ann, _ = await two_players()
    await read_photo(ann)
    assert (await ask(ann.comm, "set_board", board=READ))["type"] == "ok"
    assert (await ask(ann.comm, "sync"))["state"]["photo"] is None
    assert confirmed == []


async def test_another_board_of_the_same_size_uses_the_photo_without_confirming_it(
    fake_reader, confirmed
):
    """The host types a board mostly unlike the reading: the photo is used, but that board
    says nothing of the photo's dice (a set must not learn them as its faces)."""
    ann, _ = await two_players()
    await read_photo(ann)
    assert (await ask(ann.comm, "set_board", board="abcd efgh ijkl mnop"))["type"] == "ok"
    assert (await ask(ann.comm, "sync"))["state"]["photo"] is None
    assert confirmed == []


async def test_a_photo_still_being_read_is_not_used(fake_reader, confirmed, monkeypatch):
    from photos import api as photos_api

    monkeypatch.setattr(photos_api, "enqueue_read", lambda photo_id: None)
    ann, _ = await two_players()
    response = await upload(ann.client, ann.code, png_bytes(), name="b.png")
    photo_id = response.json()["photo"]["id"]
    assert (await ask(ann.comm, "set_board", board=READ))["type"] == "ok"
    state = (await ask(ann.comm, "sync"))["state"]
    assert state["photo"]["id"] == photo_id and state["photo"]["status"] == "uploaded"
    assert confirmed == []


async def test_a_used_photo_read_again_by_hand_is_pending_again(fake_reader, confirmed):
    """Corners placed by hand make a new reading, which the host has not used yet."""
    ann, _ = await two_players()
    photo_id = await read_photo(ann)
    corners = [[20, 20], [180, 20], [180, 180], [20, 180]]
    # Used, the photo is no longer the room's: it cannot be read again...
    assert (await ask(ann.comm, "set_board", board="abcd efgh ijkl mnop"))["type"] == "ok"
    response = await post_corners(ann.client, ann.code, photo_id, {"corners": corners, "size": 4})
    assert response.status_code == 409
    # ...but one read by hand before the host confirms is confirmed with that reading.
    photo_id = await read_photo(ann)
    response = await post_corners(ann.client, ann.code, photo_id, {"corners": corners, "size": 4})
    assert response.status_code == 202
    await receive_until(ann.comm, "board.read", photo_id=photo_id)
    assert (await ask(ann.comm, "sync"))["state"]["photo"]["corners"] == corners
    assert (await ask(ann.comm, "set_board", board=READ))["type"] == "ok"
    assert [pk for pk, _ in confirmed][-1] == photo_id


async def test_starting_a_round_uses_the_photo(fake_reader, confirmed):
    ann, _ = await two_players()
    await read_photo(ann)
    assert (await ask(ann.comm, "start_round"))["type"] == "ok"
    await receive_until(ann.comm, "round.started")
    assert (await ask(ann.comm, "sync"))["state"]["photo"] is None
    assert confirmed == []  # a rolled board: nothing confirmed


def test_the_set_board_path_never_imports_the_photos_app():
    """games offers hooks (games.signals.next_board_set) and the photos app listens."""
    games = Path(__file__).resolve().parents[2] / "games"
    for path in (games / "rooms.py", games / "signals.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            assert not any(name.split(".")[0] == "photos" for name in names), path
