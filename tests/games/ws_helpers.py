"""Helpers for the websocket and HTTP tests of the games app (in-process, embedded settings).

Rooms are created through the HTTP API with a Django test ``Client``; players talk to
``boggle_site.asgi.application`` through Channels' ``WebsocketCommunicator``. Every round
uses ``BOARD`` (set by the host before it starts), so tests know which words are on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from datetime import timedelta
from typing import Any

from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.utils import timezone

from boggle_site.asgi import application
from games import background, latest_versions
from games.models import Round
from web import throttle

# A 4x4 board with one Qu die:
#   c a t s
#   qu i e x
#   d o g z
#   w e n t
BOARD = "cats qiex dogz went"
# English words on BOARD (each spelled by a path of adjacent, distinct dice).
ON_BOARD = ("cat", "cats", "dog", "went", "quit", "quiet", "diet")
# In the English list, but not on BOARD.
NOT_ON_BOARD = "zebra"
# On BOARD (d-o-g-z), on no list. (A word the board does not spell, on a list or not, is
# not_on_board: the board is checked before the dictionary.)
NOT_A_DICTIONARY_WORD = "dogz"

# How long a test waits for a message before it fails (seconds): generous, since CI
# machines are small and busy; a passing test never waits this long.
PATIENCE = 20.0

# Sockets opened by the running test, closed by ``tear_down``.
_open_sockets: list[WebsocketCommunicator] = []


class Player:
    """A player seen from a test: credentials, the HTTP client that made them, a socket."""

    def __init__(self, data: dict, client: Client) -> None:
        self.id: int = data["player"]["id"]
        self.token: str = data["player"]["token"]
        self.nickname: str = data["player"]["nickname"]
        self.code: str = data["room"]["code"]
        self.client = client
        self.comm: WebsocketCommunicator | None = None


async def post_json(client: Client, url: str, data: Any) -> Any:
    """POST ``data`` as JSON with the test client (in a thread, like a real request)."""
    return await sync_to_async(client.post)(url, json.dumps(data), content_type="application/json")


async def create_room(nickname: str = "Ann", settings: dict | None = None) -> Player:
    """Create a room over HTTP; returns its host."""
    client = Client()
    body: dict[str, Any] = {"nickname": nickname}
    if settings is not None:
        body["settings"] = settings
    response = await post_json(client, "/api/rooms", body)
    assert response.status_code == 201, response.content
    return Player(response.json(), client)


async def join_room(code: str, nickname: str) -> Player:
    """Join a room over HTTP from a fresh browser (client)."""
    client = Client()
    response = await post_json(client, f"/api/rooms/{code}/join", {"nickname": nickname})
    assert response.status_code == 201, response.content
    return Player(response.json(), client)


async def open_socket(
    code: str, token: str | None = None, headers: list | None = None
) -> WebsocketCommunicator:
    """A connected communicator for the room (the server has accepted the handshake). The
    token goes in the ``Authorization: Bearer`` header, as docs/api.md asks of API clients."""
    sent = list(headers or [])
    if token:
        sent.append((b"authorization", f"Bearer {token}".encode("utf-8", "surrogateescape")))
    comm = WebsocketCommunicator(application, f"/ws/rooms/{code}/", headers=sent)
    _open_sockets.append(comm)
    connected, _ = await comm.connect()
    assert connected
    return comm


async def connect(player: Player) -> dict:
    """Open the player's socket and return the ``state`` it gets first."""
    player.comm = await open_socket(player.code, player.token)
    message = await receive(player.comm)
    assert message["type"] == "state", message
    return message["state"]


async def receive(comm: WebsocketCommunicator, timeout: float = PATIENCE) -> dict:
    return json.loads(await comm.receive_from(timeout=timeout))


async def receive_until(
    comm: WebsocketCommunicator, kind: str, timeout: float = PATIENCE, **match: Any
) -> dict:
    """Read messages until one of type ``kind`` (with the ``match`` fields) arrives; return
    it. Messages before it are dropped."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        message = await receive(comm, timeout=max(end - loop.time(), 0.01))
        if message["type"] == kind and all(message.get(k) == v for k, v in match.items()):
            return message


async def collect(comm: WebsocketCommunicator, quiet: float = 0.3) -> list[dict]:
    """Every message that arrives until the socket has been quiet for ``quiet`` seconds."""
    messages = []
    while not await comm.receive_nothing(timeout=quiet):
        messages.append(await receive(comm))
    return messages


async def send(comm: WebsocketCommunicator, kind: str, **fields: Any) -> None:
    await comm.send_to(text_data=json.dumps({"type": kind, **fields}))


async def ask(comm: WebsocketCommunicator, kind: str, **fields: Any) -> dict:
    """Send a message with a request_id and return the reply that carries it."""
    request_id = f"r{id(fields)}-{asyncio.get_running_loop().time()}"
    await send(comm, kind, request_id=request_id, **fields)
    loop = asyncio.get_running_loop()
    end = loop.time() + PATIENCE
    while True:
        message = await receive(comm, timeout=max(end - loop.time(), 0.01))
        if message.get("request_id") == request_id:
            return message


async def submit(comm: WebsocketCommunicator, word: str, client_id: str | None = None) -> dict:
    """Submit a word and return the reply (a ``verdict`` or an ``error``)."""
    fields: dict[str, Any] = {"word": word}
    if client_id is not None:
        fields["client_id"] = client_id
    return await ask(comm, "submit", **fields)


async def start_round(host: Player, *watchers: Player, board: str = BOARD) -> Round:
    """Set the board, start a round, wait for round.started on every socket, and skip the
    countdown (starts_at = now). Returns the running round."""
    assert host.comm is not None
    reply = await ask(host.comm, "set_board", board=board)
    assert reply["type"] == "ok", reply
    reply = await ask(host.comm, "start_round")
    assert reply["type"] == "ok", reply
    for player in (host, *watchers):
        assert player.comm is not None
        started = await receive_until(player.comm, "round.started")
    round_ = await sync_to_async(Round.objects.get)(
        room__code=host.code, number=started["round"]["number"]
    )
    await set_round_times(round_, starts_at=timezone.now())
    return round_


async def set_round_times(round_: Round, **times: Any) -> None:
    """Update a round's starts_at / ends_at in the database (and on ``round_``)."""
    await sync_to_async(Round.objects.filter(pk=round_.pk).update)(**times)
    for name, value in times.items():
        setattr(round_, name, value)


def seconds_from_now(seconds: float):
    return timezone.now() + timedelta(seconds=seconds)


async def tear_down() -> None:
    """Disconnect every socket a test opened, stop this loop's deadline watcher and forget
    the rate-limit buckets (player ids are per test)."""
    while _open_sockets:
        comm = _open_sockets.pop()
        # A receive that timed out cancelled the app already: disconnecting it would raise
        # CancelledError, which pytest does not catch in teardown (later tests would then
        # run with this test's patches and settings still in place).
        if comm.future.done():
            continue
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await comm.disconnect(timeout=2)
    await background.stop()
    throttle.reset()
    latest_versions.clear()


async def two_players(**settings):
    """Ann (host) and Bob, both connected; ``settings`` go to the new room."""
    ann = await create_room(settings=settings or None)
    bob = await join_room(ann.code, "Bob")
    await connect(ann)
    await connect(bob)
    return ann, bob


async def whole_results(
    comm: WebsocketCommunicator, ended: dict, player_id: int | None = None
) -> dict:
    """The whole results of the round a ``round.ended`` event ended, asked for on the socket
    that got it (``results``) as a page does, after checking that the event's ``scores`` and
    ``mine`` are those results' (the scores: each player's entry less the word lists; mine:
    the lists of the player whose socket got it, ``player_id`` when given, or null)."""
    number = ended["scores"]["round"]["number"]
    reply = await ask(comm, "results", round_number=number)
    assert reply["type"] == "results" and reply["round_number"] == number, reply
    results = reply["results"]
    lists = ("words", "rejected")
    assert ended["scores"] == {
        "round": results["round"],
        "players": [
            {key: value for key, value in entry.items() if key not in lists}
            for entry in results["players"]
        ],
        **{
            key: results[key]
            for key in (
                "max_points",
                "word_count",
                "common_max_points",
                "common_word_count",
                "team",
                "teams",
            )
        },
    }
    own = {entry["id"]: {key: entry[key] for key in lists} for entry in results["players"]}
    if player_id is None:
        assert ended["mine"] is None or ended["mine"] in own.values()
    else:
        assert ended["mine"] == own[player_id]
    return results
