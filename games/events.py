"""Sending events to the browsers in a room.

An event is encoded once and handed to ``web.fanout``: the sockets of this process get it
from memory, other processes' through the channel layer, once per process.

Every event gets the room's next version number, so a client that sees a gap knows it
missed one and asks for a full ``sync``. Events leave only after the transaction that made
them commits: nobody hears of a change that could still roll back.
"""

from __future__ import annotations

from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from games.models import Room
from web import wire
from web.fanout import hub

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


def next_version(room_id: int) -> int:
    """Bump the room's version (and its last activity) and return it: one statement."""
    return next_versions([room_id])[room_id]


def next_versions(room_ids: list[int]) -> dict[int, int]:
    """Bump several rooms' versions (rooms whose rounds end together): one statement."""
    if not room_ids:
        return {}
    table = Room._meta.db_table
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    ids = ",".join(str(int(room_id)) for room_id in room_ids)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET version = version + 1, last_active_at = %s WHERE id IN ({ids}) "
            "RETURNING id, version",
            [now],
        )
        return dict(cursor.fetchall())


def room_event(room: Room, event_type: str, data: dict[str, Any]) -> dict[str, Any]:
    """Bump the room's version and return the event carrying it, for the caller to send.

    Precondition: called inside a transaction (``transaction.atomic``).
    """
    room.version = next_version(room.pk)
    return {"type": event_type, "version": room.version, **data}


def emit_to_room(room: Room, event_type: str, data: dict[str, Any]) -> int:
    """Bump the room's version and send an event to everyone in it after commit.

    Precondition: called inside a transaction (``transaction.atomic``). Returns the version.
    """
    message = room_event(room, event_type, data)
    send_room_event_on_commit(room, message)
    return message["version"]


def send_room_event_on_commit(room: Room, message: dict[str, Any]) -> None:
    """Send an event that already has its version to everyone in the room after commit."""
    _send_on_commit(room_group(room.code), ROOM_EVENT, message)


# One part of an event that differs from player to player (``round.ended``'s ``mine``):
# the key it goes under, and its value for each player id.
Personal = tuple[str, dict[int, Any]]


def layer_message(
    handler: str,
    message: dict[str, Any],
    personal: Personal | None = None,
    attach: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The channel-layer message for an event: its JSON text, encoded once for every socket
    that receives it (``frame_text`` adds the time as each socket sends it), and its type
    and version for the consumers. ``personal``: a part each socket adds for its own player
    (``null`` for a socket of nobody in it), each player's value encoded once too; the ids
    are text, as the Redis layer's msgpack takes map keys. ``attach``: fields for the
    receiving processes, never sent on a socket (``round.ended``'s whole results)."""
    message.pop("server_time", None)
    layer = {
        **(attach or {}),
        "type": handler,
        "event_type": message["type"],
        "version": message.get("version"),
        "text": wire.encode(message),
    }
    if personal is not None:
        key, by_player = personal
        layer["personal_key"] = key
        layer["personal"] = {
            str(player_id): wire.encode(value) for player_id, value in by_player.items()
        }
    return layer


def frame_text(layer: dict[str, Any], player_id: int | None) -> str:
    """The frame a socket of ``player_id`` (``None``: a table screen's) sends for a layer
    message: the event with that player's personal part, if it has one, and the time."""
    text = layer["text"]
    personal = layer.get("personal")
    if personal is not None:
        part = personal.get(str(player_id), "null")
        text = f'{text[:-1]},"{layer["personal_key"]}":{part}}}'
    return with_server_time(text)


def with_server_time(text: str) -> str:
    """An encoded event (a JSON object) with ``server_time`` set to now: the time it leaves
    for this socket, not when it was published, which under load is seconds earlier and
    would throw off a client's clock estimate (docs/api.md, "Showing a timer in sync")."""
    return f'{text[:-1]},"server_time":{server_now_ms()}}}'


async def send_room_event(code: str, message: dict[str, Any]) -> None:
    """Send an event made by ``room_event`` from async code (after its transaction)."""
    hub.publish(room_group(code), layer_message(ROOM_EVENT, message))


def send_room_event_now(
    code: str,
    message: dict[str, Any],
    personal: Personal | None = None,
    attach: dict[str, Any] | None = None,
) -> None:
    """Send an event made with ``next_version`` from sync code, once its transaction has
    committed (the caller's responsibility); ``personal`` and ``attach`` as in
    ``layer_message``."""
    _deliver(room_group(code), ROOM_EVENT, message, personal, attach)


def send_room_events_now(sends: list[tuple[str, dict[str, Any], dict[str, Any] | None]]) -> None:
    """Send events made with ``next_version`` (or unversioned ones) to several rooms (code,
    event, ``attach`` as in ``layer_message``) from sync code, once their transactions have
    committed: the live counts of a busy process go to a hundred rooms a second."""
    _deliver_each(
        [(room_group(code), ROOM_EVENT, message, attach) for code, message, attach in sends]
    )


def emit_to_player(player_id: int, event_type: str, data: dict[str, Any]) -> None:
    """Send an event to every socket of one player after commit (no room version)."""
    _send_on_commit(player_group(player_id), PLAYER_EVENT, {"type": event_type, **data})


def _send_on_commit(group: str, handler: str, message: dict[str, Any]) -> None:
    transaction.on_commit(lambda: _deliver(group, handler, message))


def _deliver(
    group: str,
    handler: str,
    message: dict[str, Any],
    personal: Personal | None = None,
    attach: dict[str, Any] | None = None,
) -> None:
    hub.publish(group, layer_message(handler, message, personal, attach))


def _deliver_each(
    deliveries: list[tuple[str, str, dict[str, Any], dict[str, Any] | None]],
) -> None:
    """``_deliver`` for several messages (group, handler, message, attach), handed over at
    once."""
    hub.publish_many(
        [
            (group, layer_message(handler, message, attach=attach))
            for group, handler, message, attach in deliveries
        ]
    )
