"""A client written from docs/api.md alone, playing whole rounds in-process.

``DocClient`` uses only what the document promises: the HTTP endpoints, the websocket
messages, the version rules, the clock offset from ``ping``/``pong`` and resending with the
same ``client_id`` after a reconnect. If a test that plays with it fails
(tests/games/test_doc_client_*.py, test_doc_examples.py), the document or the server is
wrong. The board's words come from the public solver, as a bot's would.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from typing import Any

from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from boggle_site.asgi import application
from games import background
from solver import dictionaries, parse_board, solve

# How long any single expected message may take (seconds).
WAIT = 10.0
RICH_BOARD = "aeol iejm pdls orkf"  # 86 words in the English list


class Closed(Exception):
    """The server closed the socket; ``code`` is the close code."""

    def __init__(self, code: int | None) -> None:
        super().__init__(f"socket closed with {code}")
        self.code = code


class DocClient:
    """One player: HTTP through Django's test client, the room socket in-process."""

    _ids = itertools.count(1)

    def __init__(self, nickname: str) -> None:
        self.nickname = nickname
        self.http = Client()
        self.token: str | None = None
        self.player_id: int | None = None
        self.code: str | None = None
        self.socket: WebsocketCommunicator | None = None
        self.state: dict[str, Any] | None = None
        self.version = -1
        self.riding: list[dict] = []
        self.offset_ms = 0.0
        self.best_rtt_ms: int | None = None  # the shortest ping round trip of sync_clock
        self.seen: list[dict] = []  # every message received, in order
        self.unanswered: dict[str, str] = {}  # client_id -> word sent, no verdict yet
        self.drop_next_event = False  # tests: lose one room event to cause a gap

    # ---------------------------------------------------------------- HTTP

    async def call(self, method: str, path: str, body: Any = None, auth: bool = True):
        """One API request; returns (status, JSON body)."""
        headers: dict[str, Any] = (
            {"HTTP_AUTHORIZATION": f"Bearer {self.token}"} if auth and self.token else {}
        )
        if method == "GET":
            response = await sync_to_async(self.http.get)(path, **headers)
        else:
            response = await sync_to_async(self.http.post)(
                path, json.dumps(body or {}), content_type="application/json", **headers
            )
        return response.status_code, response.json()

    async def create_room(self, settings: dict | None = None) -> dict:
        body: dict[str, Any] = {"nickname": self.nickname}
        if settings is not None:
            body["settings"] = settings
        status, data = await self.call("POST", "/api/rooms", body)
        assert status == 201, data
        self._credentials(data)
        return data

    async def join(self, code: str) -> dict:
        status, data = await self.call(
            "POST", f"/api/rooms/{code}/join", {"nickname": self.nickname}
        )
        assert status == 201, data
        self._credentials(data)
        return data

    def _credentials(self, data: dict) -> None:
        self.token = data["player"]["token"]
        self.player_id = data["player"]["id"]
        self.code = data["room"]["code"]
        assert data["player"]["websocket_path"] == f"/ws/rooms/{self.code}/"

    # ---------------------------------------------------------------- websocket

    async def connect(self, headers: list | None = None, with_token: bool = True) -> dict:
        """Open the room socket; returns the first message (``state`` or ``error``). The
        token goes in the handshake's ``Authorization: Bearer`` header (a browser sends its
        session cookie in ``headers`` instead: ``with_token=False``)."""
        sent = list(headers or [])
        if with_token and self.token:
            sent.append((b"authorization", f"Bearer {self.token}".encode()))
        self.socket = WebsocketCommunicator(application, f"/ws/rooms/{self.code}/", headers=sent)
        connected, _ = await self.socket.connect(timeout=WAIT)
        assert connected
        first = await self.receive()
        return first

    async def disconnect(self) -> None:
        if self.socket is not None:
            await self.socket.disconnect()
            self.socket = None

    async def send(self, message: dict) -> None:
        assert self.socket is not None, "connect first"
        await self.socket.send_to(text_data=json.dumps(message))

    async def receive(self, timeout: float = WAIT) -> dict:
        """The next message, after applying the document's version rules."""
        assert self.socket is not None, "connect first"
        if self.riding:  # an event that came inside the message before (a verdict's counts)
            message = self.riding.pop(0)
        else:
            output = await self.socket.receive_output(timeout)
            if output["type"] == "websocket.close":
                raise Closed(output.get("code"))
            message = json.loads(output["text"])
            if "counts_event" in message:
                self.riding.append(message["counts_event"])
        assert isinstance(message["server_time"], int), message
        self.seen.append(message)
        await self._apply(message)
        return message

    async def _apply(self, message: dict) -> None:
        kind = message["type"]
        if kind == "state":
            self.state = message["state"]
            self.version = self.state["version"]
        elif kind == "verdict" and message.get("client_id"):
            self.unanswered.pop(message["client_id"], None)
        elif "version" in message:
            if self.drop_next_event:
                self.drop_next_event = False
                return
            if message["version"] <= self.version:
                return  # already in our state
            if message["version"] > self.version + 1:
                await self.send({"type": "sync"})  # a gap: ask for the whole state
                return
            self.version = message["version"]

    async def wait_for(self, kind: str, timeout: float = WAIT, **match: Any) -> dict:
        """Read until a message of ``kind`` (with these field values) arrives."""
        deadline = time.monotonic() + timeout
        while True:
            message = await self.receive(max(deadline - time.monotonic(), 0.01))
            if message["type"] == kind and all(message.get(k) == v for k, v in match.items()):
                return message

    async def request(self, message: dict) -> dict:
        """Send with a fresh request_id; return the answer that echoes it."""
        request_id = f"{self.nickname}-{next(self._ids)}"
        await self.send({**message, "request_id": request_id})
        return await self.wait_for_answer(request_id)

    async def wait_for_answer(self, request_id: str) -> dict:
        deadline = time.monotonic() + WAIT
        while True:
            message = await self.receive(max(deadline - time.monotonic(), 0.01))
            if message.get("request_id") == request_id:
                return message

    async def submit(self, word: str, client_id: str | None = None) -> dict:
        client_id = client_id or f"{self.nickname}-w{next(self._ids)}"
        self.unanswered[client_id] = word
        return await self.request({"type": "submit", "word": word, "client_id": client_id})

    async def resend_unanswered(self) -> list[dict]:
        return [await self.submit(word, cid) for cid, word in list(self.unanswered.items())]

    # ---------------------------------------------------------------- clock

    async def sync_clock(self, pings: int = 3) -> None:
        """Offset to the server's clock from the ping with the smallest round trip."""
        self.best_rtt_ms = None
        for _ in range(pings):
            pong = await self.request({"type": "ping", "client_time": now_ms()})
            arrived = now_ms()
            rtt = arrived - pong["client_time"]
            if self.best_rtt_ms is None or rtt < self.best_rtt_ms:
                self.best_rtt_ms = rtt
                self.offset_ms = pong["server_time"] - (pong["client_time"] + arrived) / 2

    def server_now(self) -> float:
        return now_ms() + self.offset_ms

    async def sleep_until(self, server_ms: int) -> None:
        await asyncio.sleep(max(server_ms - self.server_now(), 0) / 1000 + 0.05)


def now_ms() -> int:
    return int(time.time() * 1000)


def words_on(round_: dict) -> list[tuple[str, int]]:
    """(word, points) on the round's board, solved client-side, best first."""
    word_list = dictionaries.load(round_["dictionary"])
    solution = solve(parse_board(round_["board"]), word_list, round_["min_length"])
    return [(found.word, found.points) for found in solution.words]


def non_word_on(round_: dict) -> str:
    """Letters the round's board spells (adjacent, distinct dice, at least min_length) that
    are in no dictionary: what the document calls not_in_dictionary."""
    board = parse_board(round_["board"])
    word_list = dictionaries.load(round_["dictionary"])
    neighbours = board.neighbours()

    def paths(cell: int, used: tuple[int, ...]):
        yield used
        if len(used) < 6:
            for nb in neighbours[cell]:
                if nb not in used and board.faces[nb] != "#":
                    yield from paths(nb, (*used, nb))

    for start, face in enumerate(board.faces):
        if face == "#":
            continue
        for path in paths(start, (start,)):
            text = "".join(board.faces[cell] for cell in path)
            if len(text) >= round_["min_length"] and text.isalpha() and text not in word_list:
                return text
    raise AssertionError(f"every string on {round_['board']} is a word")


async def close_all(*clients: DocClient) -> None:
    for client in clients:
        await client.disconnect()
    await background.stop()
