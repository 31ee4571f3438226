"""What each message a player sends on a room's socket does: the handler table.

``games.consumers.RoomConsumer`` is the transport (handshake, limits, ordering, events): it
parses a frame, spends the rate limits, looks the message's ``type`` up in ``HANDLERS`` and
sends back what the handler returns (or the ``ClientError`` it raised, as an ``error``).
A handler authorises and calls the game modules (``check_*``/``do_*``, on a thread through
``in_thread``); the messages and their replies are documented in docs/api.md.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from games import (
    challenges,
    checks,
    chess_turns,
    common_words,
    counts_delivery,
    events,
    hints,
    latest_versions,
    presenters,
    reactions,
    ready,
    results_cache,
    rooms,
    rounds,
    standings,
    state,
    teams,
    waiting_room,
    words,
)
from games import live as live_rounds
from games.models import Challenge, Player, Room
from web import throttle, wire
from web.fanout import hub
from web.threads import in_thread


class RequestingSocket(Protocol):
    """What a handler may use of the socket that sent the message."""

    @property
    def me(self) -> Player:
        """The socket's player (NotAPlayer before the socket has joined)."""

    @property
    def my_room(self) -> Room: ...

    @property
    def address(self) -> str:
        """The client's address, for the per-address limits (web.throttle)."""

    @property
    def channel_name(self) -> str: ...

    @property
    def has_siblings(self) -> bool:
        """Whether the player has another socket (a tab) open beside this one."""

    @property
    def counts(self) -> counts_delivery.CountsDelivery:
        """The room's live counts held for this player's next verdict."""

    async def reply(self, reply: dict[str, Any], request_id: Any) -> int: ...

    async def close(self, code: int | None = None, reason: str | None = None) -> None: ...


Handler = Callable[[RequestingSocket, dict], Awaitable[dict | None]]

# Message type -> handler; filled by ``@handles`` below.
HANDLERS: dict[str, Handler] = {}


def handles(message_type: str) -> Callable[[Handler], Handler]:
    """Register a function as the handler of one message type."""

    def register(handler: Handler) -> Handler:
        assert message_type not in HANDLERS, f"two handlers for {message_type!r}"
        HANDLERS[message_type] = handler
        return handler

    return register


def room_state_for(room_id: int, player_id: int) -> dict:
    """A room's full state as one player sees it (on a thread: it reads the database)."""
    room = Room.objects.get(pk=room_id)
    return state.room_state(room, Player.objects.get(pk=player_id))


# ------------------------------------------------------------ words


@handles("submit")
async def submit(socket: RequestingSocket, message: dict) -> dict:
    socket.counts.typed(time.monotonic())
    result = await words.submit(
        socket.my_room.pk,
        socket.me.pk,
        message.get("word"),
        message.get("client_id") or "",
        message["received_at"],
        lane=throttle.bucket_key(socket.address),
    )
    reply: dict[str, Any] = {
        "type": "verdict",
        "word": result.word,
        "client_id": result.client_id or None,
    }
    if result.instant or result.verdict == words.ROUND_OVER:
        reply.update(verdict=result.verdict, accepted=result.accepted, reason=result.reason)
        if result.accepted:  # the page's "words left" counts it (games.common_words)
            reply["common"] = await _is_common(socket, result.word)
    else:
        reply.update(verdict="received", accepted=None, reason=None)
    if socket.has_siblings and result.verdict != words.ROUND_OVER:  # late: not kept
        _tell_my_other_sockets(socket, reply)
    counts = socket.counts.take()  # the room's newest counts ride along (counts_delivery)
    if counts is not None:
        reply["counts_event"] = wire.Encoded(events.with_server_time(counts["text"]))
    return reply


async def _is_common(socket: RequestingSocket, word: str) -> bool:
    """Whether an accepted word is a common one: from the running round in memory (no
    thread hop on the word path), else looked up."""
    live = live_rounds.cached(socket.my_room.pk)  # None when stale
    if live is not None:
        return word in live.common
    return await in_thread(common_words.is_common)(word, socket.my_room.dictionary)


def _tell_my_other_sockets(socket: RequestingSocket, verdict: dict[str, Any]) -> None:
    """The player's other tabs list the entry too: a ``my_word`` event (the verdict
    without ``request_id``) to the player's group, which this socket skips (it gets the
    verdict as its reply)."""
    message = events.layer_message(events.PLAYER_EVENT, {**verdict, "type": "my_word"})
    message["origin"] = socket.channel_name
    hub.publish(events.player_group(socket.me.pk), message)


@handles("hint")
async def hint(socket: RequestingSocket, message: dict) -> dict:
    """Solo practice rooms only (games.hints); a hint costs points."""
    shown = await in_thread(hints.do_hint)(socket.me)
    return {"type": "hint", **shown.as_dict()}


# ------------------------------------------------------------ rounds and games


@handles("start_round")
async def start_round(socket: RequestingSocket, message: dict) -> dict:
    round_ = await in_thread(rounds.do_start_round)(socket.me)
    return {"type": "ok", "request": "start_round", "round_number": round_.number}


@handles("end_round")
async def end_round(socket: RequestingSocket, message: dict) -> dict:
    await in_thread(rounds.do_end_round_now)(socket.me)
    return {"type": "ok", "request": "end_round"}


@handles("ready")
async def mark_ready(socket: RequestingSocket, message: dict) -> dict:
    await in_thread(ready.do_ready)(socket.me, message.get("round_number"))
    return {"type": "ok", "request": "ready"}


@handles("force_start")
async def force_start(socket: RequestingSocket, message: dict) -> dict:
    await in_thread(ready.do_force_start)(socket.me, message.get("round_number"))
    return {"type": "ok", "request": "force_start"}


@handles("skip_player")
async def skip_player(socket: RequestingSocket, message: dict) -> dict:
    """The host puts out a chess round's player who is away (games.chess_turns)."""
    await in_thread(chess_turns.do_skip_player)(socket.me, message.get("player_id"))
    return {"type": "ok", "request": "skip_player"}


@handles("end_game")
async def end_game(socket: RequestingSocket, message: dict) -> dict:
    final = await in_thread(standings.do_end_game)(socket.me)
    return {"type": "ok", "request": "end_game", "standing": final}


@handles("new_game")
async def new_game(socket: RequestingSocket, message: dict) -> dict:
    game = await in_thread(standings.do_new_game)(socket.me)
    return {"type": "ok", "request": "new_game", "game": game}


# ------------------------------------------------------------ the room and its players


@handles("update_settings")
async def update_settings(socket: RequestingSocket, message: dict) -> dict:
    data = await in_thread(rooms.do_update_settings)(socket.me, message.get("settings"))
    return {"type": "ok", "request": "update_settings", "settings": data}


@handles("set_board")
async def set_board(socket: RequestingSocket, message: dict) -> dict:
    board = await in_thread(rooms.do_set_next_board)(socket.me, message.get("board"))
    return {"type": "ok", "request": "set_board", "board": board or None}


@handles("transfer_host")
async def transfer_host(socket: RequestingSocket, message: dict) -> dict:
    await in_thread(rooms.do_transfer_host)(socket.me, message.get("player_id"))
    return {"type": "ok", "request": "transfer_host"}


@handles("kick")
async def kick(socket: RequestingSocket, message: dict) -> dict:
    await in_thread(rooms.do_kick)(socket.me, message.get("player_id"))
    return {"type": "ok", "request": "kick"}


@handles("unkick")
async def unkick(socket: RequestingSocket, message: dict) -> dict:
    await in_thread(rooms.do_unkick)(socket.me, message.get("player_id"))
    return {"type": "ok", "request": "unkick"}


# A locked room's newcomers wait for the host's yes (games.waiting_room).
@handles("lock_room")
async def lock_room(socket: RequestingSocket, message: dict) -> dict:
    locked = await in_thread(waiting_room.do_lock)(socket.me, message.get("locked"))
    return {"type": "ok", "request": "lock_room", "locked": locked}


@handles("admit")
async def admit(socket: RequestingSocket, message: dict) -> dict:
    player = await in_thread(waiting_room.do_admit)(socket.me, message.get("join_request_id"))
    return {"type": "ok", "request": "admit", "player_id": player.id}


@handles("refuse")
async def refuse(socket: RequestingSocket, message: dict) -> dict:
    await in_thread(waiting_room.do_refuse)(socket.me, message.get("join_request_id"))
    return {"type": "ok", "request": "refuse"}


@handles("choose_team")
async def choose_team(socket: RequestingSocket, message: dict) -> dict:
    team = await in_thread(teams.do_choose_team)(
        socket.me, message.get("team"), message.get("player_id")
    )
    return {"type": "ok", "request": "choose_team", "team": team}


@handles("leave")
async def leave(socket: RequestingSocket, message: dict) -> None:
    await in_thread(rooms.do_leave)(socket.me)
    # Sent here, not returned: the socket closes right after.
    await socket.reply({"type": "ok", "request": "leave"}, message.get("request_id"))
    await socket.close()


@handles("react")
async def react(socket: RequestingSocket, message: dict) -> dict:
    """An emoji on a word or a score, or a quick phrase, shown to the room (everyone's
    sockets, this one too, get the ``reaction`` event)."""
    reactions.spend_reaction(socket.me.pk)
    await in_thread(reactions.do_react)(socket.me, message)
    return {"type": "ok", "request": "react"}


# ------------------------------------------------------------ challenges


@handles("challenge")
async def challenge(socket: RequestingSocket, message: dict) -> dict:
    word, round_number = message.get("word"), message.get("round_number")
    return await _challenge_reply(socket, "challenge", challenges.do_challenge, word, round_number)


@handles("rule_challenge")
async def rule_challenge(socket: RequestingSocket, message: dict) -> dict:
    challenge_id, accept = message.get("challenge_id"), message.get("accept")
    return await _challenge_reply(
        socket, "rule_challenge", challenges.do_rule_challenge, challenge_id, accept
    )


@handles("vote_challenge")
async def vote_challenge(socket: RequestingSocket, message: dict) -> dict:
    challenge_id, accept = message.get("challenge_id"), message.get("accept")
    return await _challenge_reply(
        socket, "vote_challenge", challenges.do_vote_challenge, challenge_id, accept
    )


async def _challenge_reply(
    socket: RequestingSocket, request: str, action: Callable[..., Challenge], *args: Any
) -> dict:
    """Run a challenge action as this player; the reply carries the challenge."""
    challenge = await in_thread(action)(socket.me, *args)
    return {"type": "ok", "request": request, "challenge": presenters.challenge_dict(challenge)}


# ------------------------------------------------------------ state, results, clock


@handles("sync")
async def sync(socket: RequestingSocket, message: dict) -> dict:
    room_state = await in_thread(room_state_for)(socket.my_room.pk, socket.me.pk)
    return {"type": "state", "state": room_state}


@handles("results")
async def results(socket: RequestingSocket, message: dict) -> dict:
    """A round's whole results, after the scores ``round.ended`` gave (docs/api.md)."""
    number = checks.check_round_number(message.get("round_number"))
    text = await results_cache.encoded(socket.my_room.pk, number)
    return {"type": "results", "round_number": number, "results": wire.Encoded(text)}


@handles("ping")
async def ping(socket: RequestingSocket, message: dict) -> dict:
    pong = {"type": "pong", "client_time": message.get("client_time")}
    version = await latest_versions.latest_version(socket.my_room.pk)
    if version is not None:
        pong["version"] = version
    return pong | {"server_time": events.server_now_ms()}
