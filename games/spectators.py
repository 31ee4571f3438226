"""The read-only room websocket of a table screen: ``/ws/rooms/<code>/watch/``.

A spectator is nobody's player: the socket authenticates no one, joins only the room's
group (never a player's), is not counted in presence (no ``Connection`` row, no
``player.online``), and gets the room's state as a viewer who is not a player sees it
(``you`` null, no ``my_words``). It answers ``sync``, ``results`` and ``ping``; every
player message is refused with ``not_a_player`` and anything else with ``invalid``
(docs/api.md, "Table screen (spectators)"). Sockets opened and messages sent count against the same
per-address limits as players' sockets (``web.throttle``), and each socket has its own
message bucket, sized like a player's.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from games import consumers, events, socket_requests, state
from games.access import find_room_from
from games.exceptions import NotAPlayer, RoomNotFound
from games.models import Room
from web import throttle
from web.errors import ClientError, InvalidInput
from web.fanout import hub
from web.threads import in_thread

# What a spectator may send; the rest of the player protocol is refused as not_a_player.
SPECTATOR_MESSAGES = ("ping", "results", "sync")
PLAYER_MESSAGES = frozenset(socket_requests.HANDLERS) - set(SPECTATOR_MESSAGES)


def spectator_state(room_id: int) -> dict[str, Any]:
    """The room's state as a table screen sees it: everyone's part, nobody's words."""
    room = Room.objects.filter(pk=room_id).first()
    if room is None:
        raise RoomNotFound(_("this room is gone"))
    return state.room_state(room, None)


async def spectator_sync(socket: socket_requests.RequestingSocket, message: dict) -> dict:
    room_state = await in_thread(spectator_state)(socket.my_room.pk)
    return {"type": "state", "state": room_state}


SPECTATOR_HANDLERS: dict[str, socket_requests.Handler] = {
    "sync": spectator_sync,
    "ping": socket_requests.ping,
    "results": socket_requests.results,
}


class SpectatorConsumer(consumers.RoomConsumer):
    """One table screen's connection to one room (read-only)."""

    async def connect(self) -> None:
        code = await self._open()
        if code is None:
            return
        try:
            # A miss counts against the address like the HTTP API's: no way to guess codes.
            room = await in_thread(find_room_from)(code, self.address)
        except ClientError as error:
            await self._refuse_join(error)
            return
        self.room = room
        await hub.join(events.room_group(room.code), self)
        await self._send_state()

    async def disconnect(self, close_code: int) -> None:
        self.closed = True
        if self.room is not None:
            await self._leave_groups([events.room_group(self.room.code)])

    def _listening(self) -> bool:
        return self.room is not None and not self.closed

    def _spend_message(self) -> bool:
        """This socket's own bucket (sized like a player's), then the address's limit."""
        return throttle.spend(
            throttle.PLAYER_MESSAGE, f"socket:{self.channel_name}"
        ) and throttle.allows(throttle.MESSAGE, self.address)

    def _handler_for(self, message_type: str, kind: str | None) -> socket_requests.Handler:
        handler = SPECTATOR_HANDLERS.get(message_type)
        if handler is not None:
            return handler
        if message_type in PLAYER_MESSAGES:
            raise NotAPlayer(_("a table screen only watches: join the room to play"))
        known = ", ".join(SPECTATOR_MESSAGES)
        raise InvalidInput(f"unknown message type {kind!r}; a spectator may send: {known}")

    async def _send_state(self) -> None:
        room_state = await in_thread(spectator_state)(self.my_room.pk)
        await self._send({"type": "state", "state": room_state})

    async def player_event(self, message: dict) -> None:
        """Never in a player's group; ignore anything addressed to one."""
