"""The honest players of bench/abuse.py: a well-behaved ``Player`` that times its verdicts,
the ``HonestTable`` of eight playing an untimed round throughout, and the words a board
spells (the repository's solver)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
import uuid
from collections import Counter
from collections.abc import Callable
from typing import Any

from websockets.asyncio.client import ClientConnection

from bench.attacks.client import Credentials, create_room, join_room, open_socket, ws_url
from bench.crowd.figures import log

HONEST_PLAYERS = 8


def ms_since(start: float) -> float:
    return (time.monotonic() - start) * 1000


class Player:
    """A well-behaved player: reads everything, times its verdicts."""

    def __init__(self, base: str, me: Credentials) -> None:
        self.base = base
        self.me = me
        self.ws: ClientConnection | None = None
        self.sent: dict[str, float] = {}  # client_id -> monotonic time sent
        self.latencies: list[tuple[float, float]] = []  # (sent at, ms)
        self.errors: Counter[str] = Counter()
        self.waiters: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.round: dict[str, Any] | None = None
        self.round_started = asyncio.Event()
        self.close_code: int | None = None
        self._reader: asyncio.Task[None] | None = None

    async def open(self) -> None:
        self.ws = await open_socket(ws_url(self.base, self.me.code), self.me.token)
        self._reader = asyncio.create_task(self._read(self.ws))

    async def _read(self, ws: ClientConnection) -> None:
        try:
            async for raw in ws:
                self._handle(json.loads(raw))
        except Exception:
            pass
        self.close_code = ws.close_code

    def _handle(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "verdict":
            sent = self.sent.pop(str(message.get("client_id")), None)
            if sent is not None:
                self.latencies.append((sent, ms_since(sent)))
        elif kind == "error":
            self.errors[str(message.get("code"))] += 1
        elif kind in ("round.started", "state"):
            round_ = message.get("round") if kind == "round.started" else message["state"]["round"]
            if isinstance(round_, dict) and round_.get("status") == "running":
                self.round = round_
                self.round_started.set()
        request_id = message.get("request_id")
        if request_id is not None:
            future = self.waiters.pop(str(request_id), None)
            if future is not None and not future.done():
                future.set_result(message)

    async def send(self, message: dict[str, Any]) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.send(json.dumps(message))

    async def request(
        self, message: dict[str, Any], timeout: float = 15.0
    ) -> dict[str, Any] | None:
        request_id = uuid.uuid4().hex[:12]
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiters[request_id] = future
        await self.send({**message, "request_id": request_id})
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            return None

    async def submit(self, word: str) -> None:
        client_id = uuid.uuid4().hex[:16]
        self.sent[client_id] = time.monotonic()
        await self.send({"type": "submit", "word": word, "client_id": client_id})

    async def play(self, words: list[str], per_second: float, until: Callable[[], bool]) -> None:
        rng = random.Random()
        await asyncio.sleep(rng.random() / per_second)
        while not until():
            await self.submit(rng.choice(words))
            await asyncio.sleep(1 / per_second)

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        if self._reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._reader, 3)


class HonestTable:
    """Eight players in one room playing an untimed round, one word a second each."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.players: list[Player] = []
        self.words: list[str] = []
        self.stopping = False
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def host(self) -> Player:
        return self.players[0]

    @property
    def code(self) -> str:
        return self.host.me.code

    async def start(self) -> None:
        host = await create_room(self.base, "honest0", {"round_seconds": None})
        self.players.append(Player(self.base, host))
        for index in range(1, HONEST_PLAYERS):
            result, me = await join_room(self.base, host.code, f"honest{index}")
            if me is None:
                raise SystemExit(f"abuse: an honest join failed: {result.status} {result.error}")
            self.players.append(Player(self.base, me))
        for player in self.players:
            await player.open()
        answer = await self.host.request({"type": "start_round"})
        if answer is None or answer.get("type") == "error":
            raise SystemExit(f"abuse: start_round failed: {answer}")
        await asyncio.wait_for(self.host.round_started.wait(), 30)
        round_ = self.host.round or {}
        self.words = solve_words(round_)
        wait = (int(round_.get("starts_at") or 0) - time.time() * 1000) / 1000
        log(f"honest room {self.code}: board {round_.get('board')!r}, {len(self.words)} words")
        await asyncio.sleep(max(0.0, wait) + 0.2)
        self._tasks = [
            asyncio.create_task(player.play(self.words, 1.0, lambda: self.stopping))
            for player in self.players
        ]

    def latencies(self, since: float, until: float) -> list[float]:
        return [ms for player in self.players for at, ms in player.latencies if since <= at < until]

    def unanswered(self, since: float, until: float) -> int:
        return sum(1 for p in self.players for at in p.sent.values() if since <= at < until)

    def errors(self) -> Counter[str]:
        total: Counter[str] = Counter()
        for player in self.players:
            total.update(player.errors)
        return total

    async def stop(self) -> None:
        self.stopping = True
        for task in self._tasks:
            task.cancel()
        for player in self.players:
            await player.close()


def solve_words(round_: dict[str, Any]) -> list[str]:
    from solver import dictionaries, parse_board, solve

    word_list = dictionaries.load(str(round_.get("dictionary")))
    board = parse_board(str(round_.get("board")))
    found = solve(board, word_list, int(round_.get("min_length") or 3)).words
    return [word.word for word in found] or ["zzzz"]
