"""Solo practice: a normal room, any size and length, whose first round starts at once
(the page opens on the countdown, not on a lobby with an invitation). It is marked
``practice``: its players may buy hints (games.hints), which no daily board offers."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from games import replays, rounds
from games.models import Player, Room


@transaction.atomic
def do_start_practice(
    nickname: Any, room_settings: Any, board_text: Any = None
) -> tuple[Room, Player]:
    """``games.replays.do_create_room`` (same settings, same checks; on ``board_text`` when
    given: the Solve page's "Play this board"), then start round 1."""
    room, host = replays.do_create_room(nickname, room_settings, board_text)
    room.practice = True
    room.save(update_fields=["practice"])
    rounds.do_start_round(host)
    return room, host
