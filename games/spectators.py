"""The read-only room websocket of a table screen: ``/ws/rooms/<code>/watch/``.

A spectator is nobody's player: the socket authenticates no one, joins only the room's
group (never a player's), is not counted in presence (no ``Connection`` row, no
``player.online``), and gets the room's state as a viewer who is not a player sees it
(``you`` null, no ``my_words``). It answers ``sync`` and ``ping``; every player message is
refused with ``not_a_player`` and anything else with ``invalid`` (docs/api.md, "Table
screen (spectators)"). Sockets opened and messages sent count against the same
per-address limits as players' sockets (``games.throttle``), and each socket has its own
message bucket, sized like a player's.
"""

from __future__ import annotations

import time
from typing import Any

from games import background, checks, consumers, events, socket_limits, state, throttle
from games.exceptions import GameError, InvalidInput, NotAPlayer, RateLimited, RoomNotFound
from games.models import Room
from games.writers import in_thread

# What a spectator may send; the rest of the player protocol is refused as not_a_player.
SPECTATOR_MESSAGES = ("ping", "sync")
PLAYER_MESSAGES = frozenset(consumers.RoomConsumer.HANDLERS) - set(SPECTATOR_MESSAGES)


def spectator_state(room_id: int) -> dict[str, Any]:
    """The room's state as a table screen sees it: everyone's part, nobody's words."""
    room = Room.objects.filter(pk=room_id).first()
    if room is None:
        raise RoomNotFound("this room is gone")
    return state.room_state(room, None)


def find_room(code: str, address: str) -> Room:
    """The room with this code, counting a miss against the address like the HTTP API
    (``games.api.find_room``): a watch socket must not be a way to guess codes."""
    throttle.check(throttle.ROOM_MISS, address)
    try:
        return checks.check_room(code)
    except RoomNotFound:
        throttle.take(throttle.ROOM_MISS, address, refuse=False)
        raise


class SpectatorConsumer(consumers.RoomConsumer):
    """One table screen's connection to one room (read-only)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # This socket's own message bucket: (tokens, when counted).
        self.bucket = (float(consumers.BURST), time.monotonic())

    async def connect(self) -> None:
        background.ensure_started()
        await self.accept()
        code = self.scope["url_route"]["kwargs"]["code"]
        self.address = throttle.scope_address(self.scope)
        try:
            throttle.take(throttle.SOCKET, self.address)
        except throttle.Throttled as error:
            await self._refuse_extra_socket(str(error))
            return
        try:
            room = await in_thread(find_room)(code, self.address)
        except GameError as error:
            await self._send({"type": "error", **error.to_dict()})
            if isinstance(error, RateLimited):
                await self.close(code=socket_limits.CLOSE_TOO_MANY_SOCKETS)
            else:
                await self.close(code=consumers.CLOSE_NO_ROOM)
            return
        self.room = room
        await self.channel_layer.group_add(events.room_group(room.code), self.channel_name)
        await self._send_state()

    async def disconnect(self, close_code: int) -> None:
        self.closed = True
        if self.room is None:
            return
        try:
            await self.channel_layer.group_discard(
                events.room_group(self.room.code), self.channel_name
            )
        except Exception:  # Redis unreachable: a stale member only costs undelivered messages
            consumers.logger.warning(
                "spectator disconnect: channel layer unreachable", exc_info=True
            )

    def take_token(self) -> bool:
        """Spend one message from this socket's bucket; False when it is empty."""
        now = time.monotonic()
        tokens, last = self.bucket
        burst = float(consumers.BURST)
        tokens = min(burst, tokens + (now - last) * consumers.RATE_PER_SECOND)
        if tokens < 1.0:
            self.bucket = (tokens, now)
            return False
        self.bucket = (tokens - 1.0, now)
        return True

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.room is None or self.closed:
            return
        request_id = None
        kind: str | None = None
        refusal: GameError | None = None
        message: dict[str, Any] = {}
        try:
            message = self._parse(text_data)
            request_id = message.get("request_id")
            kind = socket_limits.echo_type(message["type"])
        except GameError as error:
            refusal = error
        if not self.take_token() or not throttle.allows(throttle.MESSAGE, self.address):
            if self.flood.overflowing():
                await self.close(
                    code=socket_limits.CLOSE_FLOODING, reason=socket_limits.CLOSE_FLOODING_REASON
                )
                return
            refusal = RateLimited("slow down: too many messages; wait a moment and try again")
        handler = self.SPECTATOR_HANDLERS.get(message.get("type", ""))
        if refusal is None and handler is None:
            if message.get("type") in PLAYER_MESSAGES:
                refusal = NotAPlayer("a table screen only watches: join the room to play")
            else:
                known = ", ".join(SPECTATOR_MESSAGES)
                refusal = InvalidInput(
                    f"unknown message type {kind!r}; a spectator may send: {known}"
                )
        if refusal is not None:
            if request_id is None and not isinstance(refusal, RateLimited):
                request_id = socket_limits.salvage_request_id(text_data)
            await self._reply({"type": "error", **refusal.to_dict(), "request": kind}, request_id)
            return
        assert handler is not None  # refused above otherwise
        await self._answer(handler, message, kind, request_id)

    async def _send_state(self) -> None:
        room_state = await in_thread(spectator_state)(self.my_room.pk)
        await self._send({"type": "state", "state": room_state})

    async def _on_spectator_sync(self, message: dict) -> dict:
        room_state = await in_thread(spectator_state)(self.my_room.pk)
        return {"type": "state", "state": room_state}

    SPECTATOR_HANDLERS = {
        "sync": _on_spectator_sync,
        "ping": consumers.RoomConsumer._on_ping,
    }

    async def player_event(self, message: dict) -> None:
        """Never in a player's group; ignore anything addressed to one."""
