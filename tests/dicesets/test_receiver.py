"""Learning from a board the host confirmed: the receiver of photos.signals.board_confirmed
(connected in DicesetsConfig.ready) queues the work after commit and off the request's
thread, and the task re-reads the photo and keeps its dice; photos are read with the
memory of the room's set."""

from __future__ import annotations

import threading

import pytest
from django.core.files.base import ContentFile
from django.dispatch import Signal

from dicesets import receivers, services, tasks
from dicesets.models import Exemplar
from dicesets.services import memory_for_room
from games import rooms
from games.models import Room
from photos.models import BoardPhoto

pytestmark = pytest.mark.django_db(transaction=True)


def read_photo(room: Room, real_board, **result) -> BoardPhoto:
    """A stored photo of the real board, read (its result as the reading reports it)."""
    photo = BoardPhoto(room=room, status=BoardPhoto.Status.READ)
    photo.image.save("board.jpg", ContentFile(real_board.path.read_bytes()), save=False)
    photo.result = {
        "rows": real_board.rows,
        "cols": real_board.cols,
        "letters": real_board.faces,
        "corners": real_board.corners,
        **result,
    }
    photo.save()
    return photo


@pytest.fixture
def board_confirmed() -> Signal:
    """The photos app's signal, as DicesetsConfig.ready() connected it."""
    from photos.signals import board_confirmed as signal

    return signal


def test_the_app_listens_to_confirmed_boards_and_gives_photos_its_memory():
    from photos import reading
    from photos.signals import board_confirmed as signal

    assert signal.disconnect(dispatch_uid="dicesets")  # it was connected
    signal.connect(receivers.on_board_confirmed, dispatch_uid="dicesets")
    assert reading._memory_source is memory_for_room


def test_a_confirmed_board_is_learnt_after_commit(board_confirmed, embedded, real_board):
    room, _host = rooms.do_create_room("Ann")
    photo = read_photo(room, real_board)
    board_confirmed.send(sender=BoardPhoto, photo=photo, faces=real_board.faces)
    rows = list(Exemplar.objects.order_by("id"))
    assert len(rows) == 16
    assert [row.face for row in rows] == [face for row in real_board.faces for face in row]
    assert {(row.photo_id, row.room_code) for row in rows} == {(photo.pk, room.code)}


def test_nothing_happens_if_the_confirming_transaction_rolls_back(board_confirmed, real_board):
    from django.db import transaction

    room, _host = rooms.do_create_room("Ann")
    photo = read_photo(room, real_board)
    with pytest.raises(RuntimeError), transaction.atomic():
        board_confirmed.send(sender=BoardPhoto, photo=photo, faces=real_board.faces)
        raise RuntimeError("set_board failed")
    assert not Exemplar.objects.exists()


def test_the_work_runs_off_the_senders_thread(
    board_confirmed, settings, monkeypatch, real_board
) -> None:
    """Without a broker the task runs on the dice-memory thread, never the sender's."""
    settings.DICESETS_REMEMBER_IN_THREAD = True
    ran_on: list[str] = []
    done = threading.Event()

    def remember(photo_id, faces):
        ran_on.append(threading.current_thread().name)
        done.set()
        return 0

    monkeypatch.setattr(services, "remember_photo", remember)
    room, _host = rooms.do_create_room("Ann")
    photo = read_photo(room, real_board)
    board_confirmed.send(sender=BoardPhoto, photo=photo, faces=real_board.faces)
    assert done.wait(30)
    assert ran_on[0].startswith("dice-memory")
    assert ran_on[0] != threading.current_thread().name


def test_with_a_broker_the_task_is_queued(board_confirmed, settings, monkeypatch, real_board):
    settings.DICESETS_REMEMBER_IN_THREAD = False
    queued = []
    monkeypatch.setattr(tasks.remember_confirmed_board, "delay", lambda *args: queued.append(args))
    room, _host = rooms.do_create_room("Ann")
    photo = read_photo(room, real_board)
    board_confirmed.send(sender=BoardPhoto, photo=photo, faces=real_board.faces)
    assert queued == [(photo.pk, real_board.faces)]


def test_a_bad_signal_never_stops_the_sender(board_confirmed, caplog):
    board_confirmed.send(sender=BoardPhoto, photo=None, faces=None)
    assert "nothing kept" in caplog.text


@pytest.mark.parametrize(
    "result",
    [{"corners": []}, {"rows": None}, {"cols": "4"}],
    ids=["no corners", "no rows", "cols not a number"],
)
def test_a_photo_without_a_usable_reading_teaches_nothing(embedded, real_board, result):
    room, _host = rooms.do_create_room("Ann")
    photo = read_photo(room, real_board, **result)
    assert tasks.remember_confirmed_board(photo.pk, real_board.faces) == 0
    assert not Exemplar.objects.exists()


def test_a_deleted_photo_or_wrong_faces_teach_nothing(embedded, real_board):
    room, _host = rooms.do_create_room("Ann")
    photo = read_photo(room, real_board)
    assert tasks.remember_confirmed_board(photo.pk, real_board.faces[:2]) == 0
    assert tasks.remember_confirmed_board(photo.pk + 100, real_board.faces) == 0
    photo.image.delete(save=False)
    assert tasks.remember_confirmed_board(photo.pk, real_board.faces) == 0
    assert not Exemplar.objects.exists()


def test_without_consent_the_task_keeps_nothing(public, real_board):
    room, _host = rooms.do_create_room("Ann")
    photo = read_photo(room, real_board)
    assert tasks.remember_confirmed_board(photo.pk, real_board.faces) == 0
    assert not Exemplar.objects.exists()


async def test_the_host_confirming_a_read_photo_teaches_the_set(embedded, real_board):
    """End to end through the photos app: a read photo is pending, the host's set_board
    with its board (one die corrected) sends board_confirmed, and the room's set keeps the
    confirmed faces; the room hears photo_set.changed."""
    from asgiref.sync import sync_to_async

    from solver.board import from_faces
    from tests.games.ws_helpers import ask, connect, create_room, receive_until, tear_down

    try:
        ann = await create_room()
        await connect(ann)
        room = await sync_to_async(Room.objects.get)(code=ann.code)
        await sync_to_async(read_photo)(room, real_board)
        corrected = [row[:] for row in real_board.faces]
        corrected[3][3] = "qu"
        reply = await ask(ann.comm, "set_board", board=from_faces(corrected).to_text())
        assert reply["type"] == "ok", reply
        event = await receive_until(ann.comm, "photo_set.changed")
        assert event["photo_set"]["exemplars"] == 16
        faces = await sync_to_async(list)(
            Exemplar.objects.order_by("id").values_list("face", flat=True)
        )
        assert faces == [face for row in corrected for face in row]
    finally:
        await tear_down()
