"""A new room on a given board ("Play this board again"): ``POST /api/rooms`` with
``board``. The room is created as usual, its size taken from the board, and the board is
its ``next_board``: the first round plays it."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from games import checks, rooms
from games.models import Player, Room
from web.errors import InvalidInput


def do_create_room(
    nickname: Any, room_settings: Any = None, board_text: Any = None
) -> tuple[Room, Player]:
    """``rooms.do_create_room``, then ``board_text`` (if given) as the next board. A
    ``board_size`` in the settings must be the board's; without one it is the board's."""
    if board_text is None:
        return rooms.do_create_room(nickname, room_settings)
    board = checks.check_board(board_text)
    if room_settings is None:
        room_settings = {}
    if not isinstance(room_settings, dict):
        raise InvalidInput("settings are an object of name: value")
    size = room_settings.get("board_size", board.size)
    if size != board.size:
        raise InvalidInput(f"board is {board.size} but settings.board_size is {size!r}")
    with transaction.atomic():
        room, host = rooms.do_create_room(nickname, {**room_settings, "board_size": board.size})
        room.next_board = board.to_text()
        room.save(update_fields=["next_board"])
    return room, host
