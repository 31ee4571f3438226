"""Sending events to the browsers in a room.

Every event gets the room's next version number, so a client that sees a gap knows it
missed one and asks for a full ``sync``. Events leave only after the transaction that made
them commits: nobody hears of a change that could still roll back.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from games.models import Room

# The handler name in consumers: Channels maps "room.event" to ``room_event``.
ROOM_EVENT = "room.event"
PLAYER_EVENT = "player.event"


def room_group(code: str) -> str:
    return f"room_{code}"


def player_group(player_id: int) -> str:
    return f"player_{player_id}"


def server_now_ms() -> int:
    """The server's clock in milliseconds since the epoch, as every event carries it."""
    return int(timezone.now().timestamp() * 1000)


def room_event(room: Room, event_type: str, data: dict[str, Any]) -> dict[str, Any]:
    """Bump the room's version and return the event carrying it, for the caller to send.

    Precondition: called inside a transaction (``transaction.atomic``).
    """
    Room.objects.filter(pk=room.pk).update(version=F("version") + 1, last_active_at=timezone.now())
    version = Room.objects.values_list("version", flat=True).get(pk=room.pk)
    room.version = version
    return {"type": event_type, "version": version, **data}


def emit_to_room(room: Room, event_type: str, data: dict[str, Any]) -> int:
    """Bump the room's version and send an event to everyone in it after commit.

    Precondition: called inside a transaction (``transaction.atomic``). Returns the version.
    """
    message = room_event(room, event_type, data)
    _send_on_commit(room_group(room.code), ROOM_EVENT, message)
    return message["version"]


async def send_room_event(code: str, message: dict[str, Any]) -> None:
    """Send an event made by ``room_event`` from async code (after its transaction)."""
    message["server_time"] = server_now_ms()
    await get_channel_layer().group_send(room_group(code), {"type": ROOM_EVENT, "event": message})


def emit_to_player(player_id: int, event_type: str, data: dict[str, Any]) -> None:
    """Send an event to every socket of one player after commit (no room version)."""
    _send_on_commit(player_group(player_id), PLAYER_EVENT, {"type": event_type, **data})


def _send_on_commit(group: str, handler: str, message: dict[str, Any]) -> None:
    def send() -> None:
        message["server_time"] = server_now_ms()
        async_to_sync(get_channel_layer().group_send)(group, {"type": handler, "event": message})

    transaction.on_commit(send)
