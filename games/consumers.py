"""The room websocket: ``/ws/rooms/<code>/``, its transport.

Accepts and authenticates the socket, parses each frame, spends the rate limits and hands
the message to its handler (``games.socket_requests``, which calls the game modules), in
turn or side by side; delivers the room's and the player's events. The protocol is
documented in docs/api.md. Every error goes back as an ``error`` message and the socket
stays open, except for a client that keeps flooding or opens too many sockets
(``web.socket_limits``).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import math
import time
from collections.abc import Callable
from typing import Any

from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _

from games import (
    background,
    checks,
    counts_delivery,
    draining,
    events,
    presence,
    results_cache,
    socket_auth,
    socket_requests,
)
from games import live as live_rounds
from games import metrics as game_metrics
from games.access import find_room_from
from games.exceptions import NotAPlayer, RoomNotFound, TokenInUrl
from games.models import Player, Room
from games.sessions import player_id_from_session, socket_session
from games.socket_requests import HANDLERS, Handler
from web import i18n, socket_limits, throttle, wire
from web.errors import ClientError, InvalidInput, RateLimited
from web.fanout import hub
from web.threads import in_thread

logger = logging.getLogger(__name__)

# Largest message a client may send, in characters: a word, a board or a settings object.
MAX_MESSAGE_CHARS = 4096
# Close codes (4000-4999 are the application's): the client should not reconnect.
CLOSE_NO_ROOM = 4404
CLOSE_NOT_A_PLAYER = 4403
CLOSE_KICKED = 4001
# A token in the socket's address (``?token=``): refused, never read (games.socket_auth).
CLOSE_TOKEN_IN_URL = 4400
CLOSE_LEFT = 1000
# Requests answered side by side, each in its own task, so a slow database write does not
# hold up the socket's next frames or the room's events; others are answered in order.
SIDE_BY_SIDE = frozenset({"submit", "ping"})
# Beyond this many unanswered side-by-side requests a socket's frames wait their turn again
# (the rate limit keeps honest clients far below it).
MAX_IN_FLIGHT = 32

# Room events after which this process reloads the room's running round (games.live).
ROUND_CHANGES = frozenset({"round.preparing", "round.started", "round.time_up", "round.ended"})
# Events after which a round's results may read differently (games.results_cache).
RESULTS_CHANGES = frozenset(
    {"challenge.opened", "challenge.voted", "challenge.ruled", "round.rescored"}
)
# Replies that can be large (a room's state, a round's whole results): they spend the
# socket's byte budget (socket_limits.SyncBudget).
LARGE_REPLIES = frozenset({"sync", "results"})


class RoomConsumer(AsyncWebsocketConsumer):
    """One player's connection to one room."""

    room: Room | None = None
    player: Player | None = None
    kicked = False  # set when the host removes this player: ignore anything further
    # Set once the socket is closed (we closed it, its disconnect came, or a send found it
    # gone): events still queued for it (the player.left of a ``leave``, say) are dropped,
    # as Daphne raises on a send to a closed socket.
    closed: bool = False
    # The token this socket is counted under (socket_limits.claim_token), until it closes.
    claimed_token: str | None = None
    # The client's address, for the per-address limits (web.throttle); set on connect.
    address: str = ""
    # The interface language of the page that opened the socket (its cookie or
    # Accept-Language, as LocaleMiddleware chooses for pages); error messages use it.
    language: str | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.in_flight: set[asyncio.Task[None]] = set()  # submits being judged and written
        self.flood = socket_limits.FloodGuard()
        self.sync_budget = socket_limits.SyncBudget()  # bytes of state sent for ``sync``
        # Whether the player has had another socket (a tab) open beside this one: only then
        # are entries passed on to them (``my_word``), an event per word.
        self.has_siblings = False
        # Events that came while one of this socket's own requests was being answered in
        # turn (connect, sync, start_round...): sent after its reply, as they would be had
        # they queued behind it (``deliver``).
        self.held: collections.deque[dict] = collections.deque()
        self.answering = False
        # The room's live counts, held for this player's next verdict while they type.
        self.counts = counts_delivery.CountsDelivery()
        self.counts_timer: asyncio.TimerHandle | None = None
        self.counts_task: asyncio.Task[None] | None = None  # sending what the timer released

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        """Channels' consumer loop without a channel-layer channel of its own: events come
        from this process's memory (``web.fanout``), not one Redis message per socket."""
        self.scope = scope
        self.channel_layer = None
        self.channel_name = hub.socket_name()
        self.base_send = send
        try:
            while True:
                await self.dispatch(await receive())
        except StopConsumer:
            pass
        finally:  # also when it ended without a disconnect (a connect that failed midway)
            hub.forget(self)

    async def deliver(self, message: dict) -> None:
        """An event of one of this socket's groups (``web.fanout``): handled now, or after
        the request this socket is answering in turn."""
        if self.answering:
            self.held.append(message)
            return
        await self._handle(message)

    @property
    def me(self) -> Player:
        """The player of this socket; handlers run only once it is known."""
        if self.player is None:
            raise NotAPlayer(_("join the room with a nickname first"))
        return self.player

    @property
    def my_room(self) -> Room:
        if self.room is None:
            raise NotAPlayer(_("join the room with a nickname first"))
        return self.room

    async def dispatch(self, message: dict) -> None:
        """A frame of the socket (or its opening, its close): events that come meanwhile
        wait for it (``deliver``)."""
        self.answering = True
        try:
            await self._handle(message)
        finally:
            try:
                while self.held:
                    await self._handle(self.held.popleft())
            finally:
                self.answering = False

    async def _handle(self, message: dict) -> None:
        """Channels' dispatch, minus its per-message ``aclose_old_connections``: that is a hop
        to the process's single sync thread for every frame and every event, which queues a
        crowd's messages behind each other. Handlers here do their database work on threads
        that manage their own connections (``in_thread``, ``web.writers``)."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        if self.language is None:
            self.language = i18n.language_from_scope(self.scope)
        if self.language == settings.LANGUAGE_CODE:
            # Nothing activates another language in a socket's context: the default is
            # already active, and every broadcast event reaches every socket through here.
            await handler(message)
            return
        # Tasks started by the handler (submits) copy the context, language included.
        with translation.override(self.language):
            await handler(message)

    async def _open(self) -> str | None:
        """Accept the handshake within the address's socket limit; the room code it asks
        for, or None when refused (and closed)."""
        background.ensure_started()
        await self.accept()
        draining.hold(self)  # a process that stops sends it elsewhere first (1012)
        self.address = throttle.scope_address(self.scope)
        try:
            throttle.take(throttle.SOCKET, self.address)
        except throttle.Throttled as error:
            await self._refuse_extra_socket(str(error))
            return None
        try:
            socket_auth.refuse_secret_in_url(self.scope)
        except TokenInUrl as error:
            await self._refuse_join(error)
            return None
        return self.scope["url_route"]["kwargs"]["code"]

    async def _refuse_join(self, error: ClientError) -> None:
        """Tell why the socket cannot join (no such room, not a player, a token in its
        address, too many unknown room codes from the address) and close it."""
        await self._send({"type": "error", **error.to_dict()})
        close = CLOSE_NO_ROOM if error.code == "room_not_found" else CLOSE_NOT_A_PLAYER
        if isinstance(error, TokenInUrl):
            close = CLOSE_TOKEN_IN_URL
        if isinstance(error, RateLimited):  # the address's unknown room codes are used up
            close = socket_limits.CLOSE_TOO_MANY_SOCKETS
        await self.close(code=close)

    async def _leave_groups(self, groups: list[str]) -> None:
        try:
            for group in groups:
                await hub.leave(group, self)
        except Exception:  # Redis unreachable: a stale member only costs undelivered messages
            logger.warning("websocket disconnect: channel layer unreachable", exc_info=True)

    async def connect(self) -> None:
        code = await self._open()
        if code is None:
            return
        token = socket_auth.handshake_token(self.scope)
        if token is not None:
            if not socket_limits.claim_token(token):
                await self._refuse_extra_socket()
                return
            self.claimed_token = token
        try:
            await self._join(code, token)
        except BaseException:  # the socket is gone without a disconnect: uncount it here
            self._release_token()
            raise

    async def _join(self, code: str, token: str | None) -> None:
        """Authenticate, hold the socket in presence and the groups, send the state."""
        try:
            self.room, self.player = await self._authenticate(code, token)
        except ClientError as error:
            await self._refuse_join(error)
            return
        # Counted and held with no await between: sockets opened together are all counted.
        if presence.sockets_of(self.player.id) >= socket_limits.MAX_SOCKETS_PER_PLAYER:
            await self._refuse_extra_socket()
            return
        presence.hold(self.channel_name, self.player.id)
        try:
            await hub.join(events.room_group(self.room.code), self)
            await hub.join(events.player_group(self.player.id), self)
            self.has_siblings = await in_thread(presence.do_connect)(self.player, self.channel_name)
            if self.has_siblings:  # the player's other sockets learn they have one more
                hub.publish(
                    events.player_group(self.player.id),
                    {"type": "player.sibling", "origin": self.channel_name},
                )
        except BaseException:  # the beat deletes a row written after all, and says so
            presence.forget(self.channel_name)
            raise
        await self._send_state()

    def _release_token(self) -> None:
        if self.claimed_token is not None:
            socket_limits.release_token(self.claimed_token)
            self.claimed_token = None

    async def _refuse_extra_socket(self, message: str = "") -> None:
        limit = socket_limits.MAX_SOCKETS_PER_PLAYER
        error = {
            "type": "error",
            "code": "too_many_connections",
            "message": message
            or _("too many connections: close another tab (at most %(count)s)") % {"count": limit},
        }
        self.room = self.player = None  # never joined the groups: nothing to discard
        # Sockets opened by the hundred are often dropped by their client before this
        # answer (Daphne raises on a send to a closed socket): nothing to tell them then.
        with contextlib.suppress(Exception):
            await self._send(error)
            await self.close(code=socket_limits.CLOSE_TOO_MANY_SOCKETS)

    async def disconnect(self, close_code: int) -> None:
        # Words still being written finish (a resend with their client_id gets the verdict);
        # their replies have nowhere to go.
        self.closed = True
        if self.counts_timer is not None:
            self.counts_timer.cancel()
        # No database work here: the presence beat records the close (games.presence).
        presence.forget(self.channel_name)
        self._release_token()
        if self.room is None or self.player is None:
            return
        await self._leave_groups(
            [events.room_group(self.room.code), events.player_group(self.player.id)]
        )

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # When the entry reached the server: what decides whether a word came in time.
        received_at = time.time()
        if not self._listening():
            return
        request_id = None
        kind: str | None = None  # echoed in replies: cut to socket_limits.MAX_ECHO_CHARS
        refusal: ClientError | None = None
        message: dict[str, Any] = {}
        try:
            message = self._parse(text_data)
            request_id = message.get("request_id")
            kind = socket_limits.echo_type(message["type"])
        except ClientError as error:
            refusal = error
        # Every frame, readable or not, spends the rate limits.
        if not self._spend_message():
            if self.flood.overflowing():
                # Replies to a client that keeps flooding (and may never read them) would
                # pile up in the server's memory: close instead.
                await self.close(
                    code=socket_limits.CLOSE_FLOODING, reason=socket_limits.CLOSE_FLOODING_REASON
                )
                return
            refusal = RateLimited(_("slow down: too many messages; wait a moment and try again"))
        handler: Handler | None = None
        if refusal is None:
            try:
                handler = self._handler_for(message.get("type", ""), kind)
            except ClientError as error:
                refusal = error
        if refusal is not None:
            if request_id is None and not isinstance(refusal, RateLimited):
                request_id = socket_limits.salvage_request_id(text_data)
            await self.reply({"type": "error", **refusal.to_dict(), "request": kind}, request_id)
            return
        assert handler is not None  # refused above otherwise
        message["received_at"] = received_at
        answer = self._answer(handler, message, kind, request_id)
        if kind in SIDE_BY_SIDE and len(self.in_flight) < MAX_IN_FLIGHT:
            # Not awaited: this socket's next frames (their arrival times) and the room's
            # events do not wait for this word's write.
            task = asyncio.get_running_loop().create_task(answer)
            self.in_flight.add(task)
            task.add_done_callback(self.in_flight.discard)
        else:
            await answer

    def _listening(self) -> bool:
        """Whether this socket's frames are read: a player's, still in the room."""
        return self.player is not None and not self.kicked and not self.closed

    def _spend_message(self) -> bool:
        """Spend one message of the limits: the player's, then the address's (shared by
        every player joined from it); False when one is used up."""
        assert self.player is not None  # _listening
        return throttle.spend(
            throttle.PLAYER_MESSAGE, f"player:{self.player.id}"
        ) and throttle.allows(throttle.MESSAGE, self.address)

    def _handler_for(self, message_type: str, kind: str | None) -> Handler:
        """The handler of a message type, or the ClientError that refuses it."""
        handler = HANDLERS.get(message_type)
        if handler is None:
            known = ", ".join(sorted(HANDLERS))
            raise InvalidInput(f"unknown message type {kind!r}; known: {known}")
        return handler

    async def _answer(
        self, handler: Handler, message: dict, kind: str | None, request_id: Any
    ) -> None:
        """Run a handler and send its reply, or the error it raised."""
        reply: dict[str, Any] | None
        try:
            if kind in LARGE_REPLIES:
                self._check_sync_budget()
            reply = await handler(self, message)
        except ClientError as error:
            reply = {"type": "error", **error.to_dict(), "request": kind}
        except Exception:  # a bug must not cost the player their connection
            logger.exception("websocket message %r failed", kind)
            reply = {
                "type": "error",
                "code": "server_error",
                "message": _(
                    "the server could not handle that; it may not have been done: check, then try again"
                ),
                "request": kind,
            }
        if reply is not None:
            sent = await self.reply(reply, request_id)
            if kind in LARGE_REPLIES and reply.get("type") != "error":
                self.sync_budget.spend(sent)
        game_metrics.answered(kind, reply, message["received_at"])  # verdicts, server_error

    def _check_sync_budget(self) -> None:
        """Refuse a ``sync`` or ``results`` while this socket's large replies are over their
        byte budget (socket_limits.SyncBudget): a large state or results asked for again and
        again would cost the server a database read or its send buffer each time."""
        wait = self.sync_budget.wait_seconds()
        if wait > 0.0:
            raise RateLimited(
                _("slow down: too many state or results requests; try again in %(seconds)s s")
                % {"seconds": max(1, math.ceil(min(wait, 3600.0)))}
            )

    async def reply(self, reply: dict[str, Any], request_id: Any) -> int:
        """Send a reply; returns its size in bytes."""
        if request_id is not None:
            reply["request_id"] = request_id
        return await self._send(reply)

    # ------------------------------------------------------------ group events

    async def room_event(self, message: dict) -> None:
        """An event for everyone in the room, already encoded (see games.events), with this
        socket's player's own part where it has one (``round.ended``'s ``mine``); the live
        counts wait for this player's next verdict while they type (``counts_delivery``)."""
        is_counts = message["event_type"] == counts_delivery.COUNTS_EVENT
        if is_counts and self.counts.hold(message, time.monotonic()):
            self._release_counts_later()
            return
        if message["event_type"] in ROUND_CHANGES:
            self.counts.drop()
            if self.room is not None:
                live_rounds.mark_stale(self.room.pk)
        if self.room is not None and message["event_type"] in RESULTS_CHANGES:
            results_cache.forget_room(self.room.pk, message["version"])
        if self.room is not None and "results" in message:  # round.ended's whole results
            results_cache.keep(
                self.room.pk, message["round_number"], message["results"], message["version"]
            )
        player_id = None if self.player is None else self.player.id
        await self._send_text(events.frame_text(message, player_id))

    def _release_counts_later(self) -> None:
        """Send the held counts on their own if no verdict has taken them within
        ``HOLD_SECONDS`` (through ``deliver``, in turn with the room's events)."""
        if self.counts_timer is not None:
            return  # armed by counts held before: these newer ones leave in their place
        self.counts_timer = asyncio.get_running_loop().call_later(
            counts_delivery.HOLD_SECONDS, self._on_counts_timer
        )

    def _on_counts_timer(self) -> None:
        self.counts_timer = None
        if self.counts.held is not None and not self.closed:
            loop = asyncio.get_running_loop()
            self.counts_task = loop.create_task(self.deliver({"type": "counts.due"}))

    async def counts_due(self, message: dict) -> None:
        """Held counts that no verdict took: on their own."""
        counts = self.counts.take()
        if counts is not None:
            await self._send_text(events.frame_text(counts, None))

    async def player_sibling(self, message: dict) -> None:
        """Another socket of this player opened: entries are passed on from now on."""
        if message.get("origin") != self.channel_name:
            self.has_siblings = True

    async def player_event(self, message: dict) -> None:
        """An event for this player only; ``kicked`` and ``left`` also close the socket."""
        if self.closed or message.get("origin") == self.channel_name:
            return
        await self._send_text(events.frame_text(message, None))
        if message["event_type"] == "kicked":
            self.kicked = True
            await self.close(code=CLOSE_KICKED)
        elif message["event_type"] == "left":
            self.kicked = True  # ignore anything still coming from this socket
            await self.close(code=CLOSE_LEFT)

    # ------------------------------------------------------------ helpers

    def _parse(self, text_data: str | None) -> dict[str, Any]:
        if text_data is None:
            raise InvalidInput("send JSON text messages")
        if len(text_data) > MAX_MESSAGE_CHARS:
            raise InvalidInput(f"message too large (over {MAX_MESSAGE_CHARS} characters)")
        try:
            message = json.loads(text_data)
        except ValueError:
            raise InvalidInput("malformed JSON") from None
        except RecursionError:  # nested deeper than the parser recurses: not a message
            raise InvalidInput(socket_limits.TOO_DEEP) from None
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            raise InvalidInput('a message is a JSON object with a "type"')
        return message

    async def close(self, code: int | None = None, reason: str | None = None) -> None:
        self.closed = True
        await super().close(code=code, reason=reason)

    async def _send(self, data: dict) -> int:
        """Send a message; returns its size in bytes."""
        data.setdefault("server_time", events.server_now_ms())
        encoded = wire.encode_bytes(data)
        await self._send_text(encoded.decode())
        return len(encoded)

    async def _send_text(self, text: str) -> None:
        if self.closed:
            return
        try:
            await self.send(text_data=text)
        except Exception:
            # The socket closed before its disconnect reached us (the client left, or we
            # closed it while a word was still being judged): Daphne raises on a send to it.
            # Nobody is there to read this; the disconnect follows.
            logger.debug("send on a closed websocket dropped", exc_info=True)
            self.closed = True

    async def _send_state(self) -> None:
        room_state = await in_thread(socket_requests.room_state_for)(self.my_room.pk, self.me.pk)
        await self._send({"type": "state", "state": room_state})

    async def _authenticate(self, code: str, token: str | None) -> tuple[Room, Player]:
        return await in_thread(_authenticate)(code, token, self.scope, self.address)


def _authenticate(code: str, token: str | None, scope: dict, address: str) -> tuple[Room, Player]:
    room = find_room_from(code, address)  # a miss counts against the address's budget
    player_id = None if token else player_id_from_session(socket_session(scope), room)
    return room, checks.check_player(room, token=token, player_id=player_id)


class UnknownPathConsumer(AsyncWebsocketConsumer):
    """Answers websockets opened on a path that is not a room's: an error, then close."""

    async def connect(self) -> None:
        await self.accept()
        error = {
            "type": "error",
            # As for a room that does not exist: one code, one close code (4404).
            "code": RoomNotFound.code,
            "message": "no room at this path; rooms are at /ws/rooms/<code>/",
            "server_time": events.server_now_ms(),
        }
        await self.send(text_data=wire.encode(error))
        await self.close(code=CLOSE_NO_ROOM)
