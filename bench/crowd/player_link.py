"""One player's link to the site: its HTTP identity (create or join a room) and its room
websocket, opened, read, kept alive and reconnected as docs/api.md says, and what it
sends. ``PlayerInbox`` (messages in) and ``Player`` (a round) build on it; the methods of
theirs it calls (``handle``, ``send_entry``, ``sync_state``) are declared here, abstract."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
import uuid
from abc import ABC, abstractmethod
from collections import Counter
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from bench.crowd.http_client import is_refused
from bench.crowd.nginx import player_address
from bench.crowd.run import Pending, Room, Run

CLOSE_NO_RECONNECT = {1000, 4001, 4400, 4403, 4404}
# "Service restart": the server drained and handed the socket over (docs/api.md). The page
# reconnects at once, after its own 0-250 ms so that a room does not arrive in one instant.
CLOSE_SERVICE_RESTART = 1012
RESTART_JITTER_SECONDS = 0.25


class PlayerLink(ABC):
    """A player's HTTP identity and websocket (``Player`` is the whole player)."""

    def __init__(self, run: Run, room: Room, index: int, base: str) -> None:
        self.run = run
        self.m = run.metrics
        self.room = room
        self.index = index
        self.base = base
        self.nickname = f"p{index}"
        # --through-nginx: the player's own loopback address, for its requests and socket
        # (nginx's per-address limits count each player apart, as phones on their networks).
        self.source: str | None = player_address(index) if run.site.through_nginx else None
        self.id: int | None = None
        self.token: str | None = None
        self.ws: ClientConnection | None = None
        self.connected = asyncio.Event()
        self.gone = False  # closed for good (refused, kicked, given up)
        self.reconnected = False
        self.reader: asyncio.Task[None] | None = None
        self.first_version: int | None = None
        self.seen: set[int] = set()
        self.max_seen = 0
        self.rounds: dict[int, dict[str, Any]] = {}
        self.round_started: dict[int, asyncio.Event] = {}
        self.round_ended_at: dict[int, float] = {}
        self.round_ended_event: dict[int, asyncio.Event] = {}
        self.round_end_given_up: set[int] = set()
        self.ends_at: dict[int, float] = {}
        self.pending: dict[str, Pending] = {}
        self.outstanding: Counter[int] = Counter()
        self.abandoned: set[str] = set()
        self.answered: set[str] = set()
        self.accepted: dict[int, set[str]] = {}
        self.waiters: dict[str, asyncio.Future[dict[str, Any] | None]] = {}
        self._request = 0
        # How and when this client learned that round n ended / was running: (wall, how).
        self.learned_end: dict[int, tuple[float, str]] = {}
        self.learned_start: dict[int, tuple[float, str]] = {}
        self.state_round: int | None = None  # the round of the latest state received
        self.typed: Counter[int] = Counter()  # entries typed, by round
        self.unanswered: dict[int, list[Pending]] = {}  # given up at the drain, by round
        self.late_round_over: dict[int, Counter[str]] = {}  # typed in time, answered round_over
        # --faults: the page's liveness rules and the client's applied version
        self.keepalive_task: asyncio.Task[None] | None = None
        self.last_heard = time.monotonic()
        self.last_ping = 0.0
        self.applied = 0  # the version of the state plus the events applied in order since
        self.ahead: set[int] = set()  # versions received past a gap
        self.gap_since: float | None = None
        self.behind: tuple[int, float] | None = None  # (pong version, when) past ours
        self.syncing = False
        self.force_reconnect = False
        self.leave_on_drop = False  # closes for good: does not reconnect
        self.left_at: float | None = None  # wall time it went away for good
        self.closed_since: float | None = None  # wall time its socket closed, while closed

    # -- what PlayerInbox and Player define

    @abstractmethod
    def handle(self, raw: str | bytes) -> Any:
        """Take one message in; returns its type (``PlayerInbox``)."""

    @abstractmethod
    async def send_entry(self, client_id: str, entry: Pending) -> bool:
        """Send one entry of a round (``Player``)."""

    @abstractmethod
    async def sync_state(self, timeout: float) -> dict[str, Any] | None:
        """Ask for the room's state (``Player``)."""

    # -- HTTP

    async def create(self, round_seconds: int) -> bool:
        body = {"nickname": self.nickname, "settings": {"round_seconds": round_seconds}}
        key = uuid.uuid4().hex  # a retry is the same request (docs/api.md, retrying)
        for _ in range(3):
            result = await self.run.http(
                "create room", "POST", "/api/rooms", body, idempotency_key=key, source=self.source
            )
            if result.ok and self._credentials(result.body):
                self.room.code = result.body["room"]["code"]
                return True
            if 400 <= result.status < 500:
                return False
            await asyncio.sleep(1)
        return False

    async def join(self) -> bool:
        body = {"nickname": self.nickname}
        path = f"/api/rooms/{self.room.code}/join"
        key = uuid.uuid4().hex
        for attempt in range(3):
            result = await self.run.http(
                "join room", "POST", path, body, idempotency_key=key, source=self.source
            )
            if result.ok and self._credentials(result.body):
                return True
            if 400 <= result.status < 500:
                if attempt and result.status == 409:
                    self.m.odd["a retried join (same Idempotency-Key) answered 409"] += 1
                return False
            await asyncio.sleep(1)
        return False

    def _credentials(self, body: Any) -> bool:
        try:
            self.id = int(body["player"]["id"])
            self.token = str(body["player"]["token"])
            return True
        except (KeyError, TypeError, ValueError):
            self.m.odd["HTTP answer without player id/token"] += 1
            return False

    # -- websocket

    def ws_url(self, base: str | None = None) -> str:
        """The room's socket; the token goes in the handshake's header (``_connect``)."""
        return (base or self.base).replace("http://", "ws://", 1).replace(
            "https://", "wss://", 1
        ) + f"/ws/rooms/{self.room.code}/"

    async def _connect(self) -> tuple[ClientConnection | None, str]:
        """Open the socket and read its first message: (socket, "") once a ``state`` came,
        else (None, why); "refused: ..." when the server said not to come back."""
        bases = [self.base]
        if self.run.fault_mode:
            # The proxy's part: a Daphne that refuses connections is skipped for the others.
            bases += [url for url in self.run.site.urls if url != self.base]
        ws: ClientConnection | None = None
        why = ""
        # passed on to create_connection: the player's own source address (--through-nginx)
        source: dict[str, Any] = {"local_addr": (self.source, 0)} if self.source else {}
        for base in bases:
            try:
                ws = await connect(
                    self.ws_url(base),
                    additional_headers={"Authorization": f"Bearer {self.token}"},
                    compression=None,  # as cheap for the client as it can be
                    open_timeout=60,
                    ping_interval=None,  # the server decides when a socket is dead
                    close_timeout=2,
                    max_size=None,
                    max_queue=1024,
                    proxy=None,
                    **source,
                )
            except Exception as error:
                why = type(error).__name__
                if isinstance(error, InvalidStatus):  # e.g. a proxy's 502 or 504
                    why += f" {error.response.status_code}"
                if isinstance(error, ConnectionRefusedError) or is_refused(str(error)):
                    continue
                return None, why
            if base != self.base:
                self.m.failovers += 1
                self.base = base
            break
        if ws is None:
            return None, why
        try:
            first = await asyncio.wait_for(ws.recv(), 60)
        except Exception as error:
            with contextlib.suppress(Exception):
                await ws.close()
            return None, f"closed before the first message: {type(error).__name__} {ws.close_code}"
        self.ws = ws
        if self.handle(first) == "state":
            return ws, ""
        with contextlib.suppress(Exception):
            await ws.close()
        self.ws = None
        return None, f"refused: {str(first)[:80]}"

    async def open(self) -> bool:
        """Connect and read the first ``state`` (three tries); True when playing."""
        for attempt in range(3):
            ws, why = await self._connect()
            if ws is not None and self.first_version is not None:
                self.connected.set()
                self.reader = asyncio.create_task(self.read())
                if self.run.fault_mode:
                    self.keepalive_task = asyncio.create_task(self.keepalive())
                return True
            self.m.connect_failures[why or "no state version"] += 1
            if why.startswith("refused"):
                return False
            await asyncio.sleep(1 + attempt)
        return False

    async def read(self) -> None:
        while True:
            ws = self.ws
            if ws is None:
                return
            try:
                async for raw in ws:
                    self.handle(raw)
            except ConnectionClosed:
                pass
            except Exception as error:
                self.m.odd[f"reader: {type(error).__name__}"] += 1
            self.connected.clear()
            if self.run.closing:
                return
            self.closed_since = time.time()
            code = ws.close_code
            forced, self.force_reconnect = self.force_reconnect, False
            if self.leave_on_drop:
                # This player left the table: nothing more from it (no reconnect).
                self.left_at = self.left_at or self.closed_since
                self.gone = True
                self.fail_waiters()
                return
            what = "closed by this client after 12 s of silence" if forced else code
            self.m.socket_drops[f"{what} ({self.run.phase})"] += 1
            self.fail_waiters()  # their answers went with the socket
            if (code in CLOSE_NO_RECONNECT and not forced) or not await self.reconnect(code):
                self.gone = True
                self.fail_waiters()
                return

    async def reconnect(self, code: int | None = None) -> bool:
        """Reconnect with backoff as docs/api.md says (1 s, 2 s, 4 s ... up to 30 s; six
        tries, for ever with --faults), the first try at once after a 1012; resend the
        current round's unanswered entries."""
        delay = 1.0
        dropped = time.time()
        attempt = 0
        while self.run.fault_mode or attempt < 6:
            attempt += 1
            if attempt == 1 and code == CLOSE_SERVICE_RESTART:
                # Not the run's seeded random: the words each player types stay the same.
                await asyncio.sleep(random.uniform(0.0, RESTART_JITTER_SECONDS))
            else:
                await asyncio.sleep(delay)
                delay = min(30.0, delay * 2)
            if self.run.closing or self.leave_on_drop:
                return False
            ws, why = await self._connect()
            if ws is None:
                self.m.reconnect_failures[why] += 1
                if why.startswith("refused"):
                    return False
                continue
            if self.leave_on_drop:
                with contextlib.suppress(Exception):
                    await ws.close()
                return False
            self.m.reconnects += 1
            self.m.reconnect_ms.append((time.time() - dropped) * 1000)
            self.closed_since = None
            self.last_heard = time.monotonic()
            self.connected.set()
            self.reconnected = True
            # docs/api.md: resend every entry of the current round (the state's) that got
            # no verdict, with the same client_id. An older round's entry is not resent: it
            # would be judged in the new round.
            for client_id, entry in list(self.pending.items()):
                if entry.round_number != self.state_round:
                    continue
                entry.resent = True
                self.m.resends_after_reconnect += 1
                await self.send_entry(client_id, entry)
            return True
        return False

    def current_round(self) -> int | None:
        numbers = [*self.rounds, *([self.state_round] if self.state_round else [])]
        return max(numbers) if numbers else None

    async def resend_later(self, client_id: str, entry: Pending, delay: float) -> None:
        """An entry answered server_error or rate_limited: send it again (same client_id)."""
        await asyncio.sleep(delay)
        if self.pending.get(client_id) is not entry or self.gone:
            return
        if entry.round_number != self.current_round() or not self.connected.is_set():
            return  # a reconnect resends it (if its round is still the current one)
        entry.resent = True
        await self.send_entry(client_id, entry)

    async def keepalive(self) -> None:
        """The site's page (docs/api.md): ping after 5 s without a message; nothing heard
        for 12 s closes the socket and reconnects; a version gap held for a second, or a
        pong whose version is past ours still a second later, sends sync."""
        while not self.run.closing and not self.gone:
            await asyncio.sleep(0.25)
            ws = self.ws
            if ws is None or not self.connected.is_set():
                continue
            now = time.monotonic()
            silent = now - self.last_heard
            if silent >= 12.0:
                self.m.keepalive_closes += 1
                self.force_reconnect = True
                self.last_heard = now
                self.run.spawn(ws.close(code=4000, reason="nothing heard for 12 s"))
                continue
            if silent >= 5.0 and now - self.last_ping >= 5.0:
                self.last_ping = now
                await self.send({"type": "ping", "client_time": int(time.time() * 1000)})
            reason = None
            if self.gap_since is not None and now - self.gap_since >= 1.0:
                reason = "version gap held 1 s"
            elif self.behind is not None and now - self.behind[1] >= 1.0:
                if self.behind[0] > self.applied:
                    reason = "pong version past ours"
                else:
                    self.behind = None
            if reason and not self.syncing:
                self.syncing = True
                self.m.syncs[reason] += 1
                self.run.spawn(self._sync_now())

    async def _sync_now(self) -> None:
        try:
            await self.sync_state(10)
        finally:
            self.syncing = False  # the state (if it came) reset the gap; a gap left re-syncs
            self.behind = None

    async def go_away(self) -> None:
        """Leave the table for good without a word (a closed tab): close, never come back."""
        self.leave_on_drop = True
        self.left_at = time.time()
        self.gone = True
        ws = self.ws
        if ws is not None and self.connected.is_set():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(code=1001), 5)

    async def send(self, message: dict[str, Any]) -> bool:
        ws = self.ws
        if ws is None or not self.connected.is_set():
            return False
        try:
            text = json.dumps(message)
            await ws.send(text)
            self.m.ws_frames_out += 1
            self.m.ws_bytes_out += len(text)  # json.dumps escapes to ASCII: chars = bytes
            return True
        except Exception:
            return False

    async def request(self, message: dict[str, Any], timeout: float) -> dict[str, Any] | None:
        """Send a message with a request_id; its direct answer, or None."""
        self._request += 1
        request_id = f"r{self._request}"
        future: asyncio.Future[dict[str, Any] | None] = asyncio.get_running_loop().create_future()
        self.waiters[request_id] = future
        try:
            if not await self.send({**message, "request_id": request_id}):
                return None
            return await asyncio.wait_for(future, max(0.1, timeout))
        except TimeoutError:
            return None
        finally:
            self.waiters.pop(request_id, None)

    def fail_waiters(self) -> None:
        for future in self.waiters.values():
            if not future.done():
                future.set_result(None)
