"""A phone on the simulated Wi-Fi, as a script run inside its host's network namespace
(netlab): it reaches the site only at the address the test gives it, the Wi-Fi's gateway
where nginx listens (or, for the attacker, a Daphne's port there).

    phone.py create BASE NICKNAME
        creates a room; prints one JSON list: [status, the room's code or the answer, retries].
    phone.py joins BASE CODE COUNT NAME [--forwarded-for ADDRESS]
        COUNT joins of room CODE sent at once (one thread each), nicknames NAME0, NAME1, ...;
        prints one JSON list: [status, error code or null, Retry-After or null, retries] per
        join (retries: nginx answered 502/503/504, no Daphne reached, and the join was sent
        again with the same Idempotency-Key).
    phone.py agent BASE ORIGIN NAME
        a player driven by the test: commands come as JSON lines on stdin, what happens goes
        out as JSON lines on stdout (see ``Agent``). Its websocket behaves as docs/api.md asks
        of clients: reconnect after a drop (same URL), then resend every entry that has no
        verdict yet with the same client_id.

Only the standard library and ``websockets``: it imports nothing of the site.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException
from websockets.typing import Origin

HTTP_TIMEOUT = 60.0
# Close codes after which a client does not reconnect (docs/api.md, "Close codes").
FINAL_CLOSE_CODES = {1000, 4001, 4400, 4403, 4404}
RECONNECT_SECONDS = 0.5
# A submit refused with these error codes is resent after a pause (docs/api.md: "the
# message is dropped, resend later"; server_error: "may or may not have been done").
RESEND_ERRORS = {"rate_limited", "server_error"}
RESEND_PAUSE_SECONDS = 1.0
# nginx's answers when it reached no Daphne: retried (a few times, a pause between).
PROXY_ERRORS = {502, 503, 504}
PROXY_RETRIES = 10
PROXY_RETRY_SECONDS = 0.5


def http_once(
    base: str, method: str, path: str, data: bytes | None, headers: dict[str, str]
) -> tuple[int, Any, dict[str, str]]:
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    for name, value in headers.items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT) as response:
            status, raw, answer_headers = response.status, response.read(), response.headers
    except urllib.error.HTTPError as error:
        status, raw, answer_headers = error.code, error.read(), error.headers
    text = raw.decode("utf-8", "replace")
    try:
        parsed: Any = json.loads(text)
    except ValueError:
        parsed = text
    return status, parsed, {name.lower(): value for name, value in answer_headers.items()}


def http(
    base: str, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, Any, dict[str, str], int]:
    """One request: (status, JSON body or the text of a body that is not JSON, headers,
    retries). An answer of the proxy with no Daphne behind it (502, 503, 504) is retried,
    as docs/api.md asks of clients ("Retrying a request"): a POST with the same
    Idempotency-Key, so that a copy that did reach the site is answered, not done again."""
    data = None if body is None else json.dumps(body).encode()
    headers = dict(headers or {})
    if method == "POST":
        headers["Idempotency-Key"] = uuid.uuid4().hex
    for retries in range(PROXY_RETRIES + 1):
        status, parsed, answer_headers = http_once(base, method, path, data, headers)
        if status not in PROXY_ERRORS or retries == PROXY_RETRIES:
            break
        time.sleep(PROXY_RETRY_SECONDS)
    return status, parsed, answer_headers, retries


def create(base: str, nickname: str) -> None:
    status, body, _, retries = http(base, "POST", "/api/rooms", {"nickname": nickname})
    print(json.dumps([status, body["room"]["code"] if status == 201 else body, retries]))


def joins(base: str, code: str, count: int, name: str, forwarded_for: str | None) -> None:
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else {}

    def join(index: int) -> list[Any]:
        status, body, answer_headers, retries = http(
            base, "POST", f"/api/rooms/{code}/join", {"nickname": f"{name}{index}"}, headers
        )
        error = body.get("error", {}).get("code") if isinstance(body, dict) else None
        return [status, error, answer_headers.get("retry-after"), retries]

    with ThreadPoolExecutor(max_workers=count) as pool:
        print(json.dumps(list(pool.map(join, range(count)))), flush=True)


@dataclass
class Entry:
    """One word typed: its verdicts (a resend is answered again), and how often sent."""

    word: str
    verdicts: list[str] = field(default_factory=list)
    sends: int = 0
    # Sent again after a reconnect (it had no verdict when the new socket's state came).
    resent_after_reconnect: bool = False


class Agent:
    """A player. Commands (stdin, one JSON object a line, ``op`` naming it):

    - ``create`` (``nickname``, ``settings``), ``join`` (``code``, ``nickname``): over HTTP;
      answered ``{"ev": "player", "status", "body"}``.
    - ``connect``: open the room's websocket, reconnecting after drops; every ``state``
      is told as ``{"ev": "state", "connects", "round"}``, every drop as ``{"ev": "closed"}``.
    - ``send`` (``message``): a message as it is; its ``ok``/``error`` come back as
      ``{"ev": "msg", "message"}``, as do ``round.started`` and ``round.ended``.
    - ``play`` (``words``, ``starts_at``, ``interval``): from ``starts_at`` on, submit the
      words one every ``interval`` seconds (client ids NAME-0, NAME-1, ...); each verdict is
      told as ``{"ev": "verdict"}``, and once every entry has one, ``{"ev": "played",
      "entries"}``.
    - ``get`` (``path``): a GET over HTTP, answered ``{"ev": "got", "status", "body"}``.
    - ``quit``.
    """

    def __init__(self, base: str, origin: str, name: str) -> None:
        self.base = base
        self.origin = origin
        self.name = name
        self.code = ""
        self.token = ""
        self.ws: ClientConnection | None = None
        self.connects = 0
        self.entries: dict[str, Entry] = {}
        self.stopping = False
        self.tasks: set[asyncio.Task[None]] = set()
        self.changed = asyncio.Event()

    def emit(self, event: str, **fields: Any) -> None:
        print(json.dumps({"ev": event, "at": time.time(), **fields}), flush=True)

    def spawn(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        task.add_done_callback(self._report_crash)

    def _report_crash(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            self.emit("crashed", error=repr(task.exception()))

    # ------------------------------------------------------------ commands

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        commands: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

        def read_stdin() -> None:
            for line in sys.stdin:
                if line.strip():
                    loop.call_soon_threadsafe(commands.put_nowait, json.loads(line))
            loop.call_soon_threadsafe(commands.put_nowait, None)

        threading.Thread(target=read_stdin, daemon=True).start()
        self.emit("ready")
        while (command := await commands.get()) is not None and command["op"] != "quit":
            self.spawn(self.handle(command))
        self.stopping = True
        if self.ws is not None:
            await self.ws.close()
        for task in list(self.tasks):
            task.cancel()

    async def handle(self, command: dict[str, Any]) -> None:
        op = command["op"]
        if op in ("create", "join"):
            path = "/api/rooms" if op == "create" else f"/api/rooms/{command['code']}/join"
            body = {"nickname": command["nickname"], "settings": command.get("settings")}
            if op == "join" or body["settings"] is None:
                body.pop("settings")
            status, answer, _, retries = await asyncio.to_thread(
                http, self.base, "POST", path, body
            )
            if status in (200, 201):
                self.code = answer["room"]["code"]
                self.token = answer["player"]["token"]
            self.emit("player", status=status, body=answer, retries=retries)
        elif op == "connect":
            self.spawn(self.socket())
        elif op == "send":
            sent = await self.send(command["message"])
            if not sent:
                self.emit("unsent", message=command["message"])
        elif op == "play":
            await self.play(command["words"], command["starts_at"], command["interval"])
        elif op == "get":
            # As the player, when it is one: its token in the header, never in the path.
            auth = {"Authorization": f"Bearer {self.token}"} if self.token else None
            status, answer, _, retries = await asyncio.to_thread(
                http, self.base, "GET", command["path"], None, auth
            )
            self.emit("got", status=status, body=answer, retries=retries)
        else:
            self.emit("unknown", command=command)

    # ------------------------------------------------------------ websocket

    @property
    def ws_url(self) -> str:
        """The room's socket; the token goes in the handshake's header, never here."""
        return f"ws://{self.base.split('://', 1)[1]}/ws/rooms/{self.code}/"

    async def socket(self) -> None:
        """The room's socket, reopened after every drop (same URL: nginx picks a Daphne)."""
        while not self.stopping:
            code: int | None = None
            try:
                async with connect(
                    self.ws_url,
                    origin=Origin(self.origin),
                    additional_headers={"Authorization": f"Bearer {self.token}"},
                    open_timeout=30,
                    close_timeout=2,
                ) as ws:
                    self.ws = ws
                    try:
                        async for raw in ws:
                            self.receive(json.loads(raw))
                    finally:
                        self.ws = None
                        code = ws.close_code
            except (OSError, WebSocketException, TimeoutError) as error:
                self.emit("socket_error", error=repr(error))
            self.ws = None
            self.emit("closed", code=code)
            self.changed.set()
            if code in FINAL_CLOSE_CODES:
                return
            await asyncio.sleep(RECONNECT_SECONDS)

    async def send(self, message: dict[str, Any]) -> bool:
        ws = self.ws
        if ws is None:
            return False
        try:
            await ws.send(json.dumps(message))
        except ConnectionClosed:
            return False
        return True

    def receive(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "state":
            self.connects += 1
            self.emit("state", connects=self.connects, round=message["state"].get("round"))
            if self.connects > 1:
                # docs/api.md, "Reconnecting": resend every entry without a verdict, with
                # the same client_id (the server answers a stored one as it did before).
                for client_id, entry in self.entries.items():
                    if not entry.verdicts:
                        entry.resent_after_reconnect = True
                        self.spawn(self.submit(client_id))
        elif kind == "verdict":
            answered = str(message.get("client_id"))
            judged = self.entries.get(answered)
            if judged is None:
                self.emit("stray_verdict", message=message)
                return
            judged.verdicts.append(message["verdict"])
            self.emit("verdict", client_id=answered, word=judged.word, verdict=message["verdict"])
            self.changed.set()
        elif kind == "error" and message.get("request") == "submit":
            client_id = str(message.get("request_id"))
            self.emit("submit_error", client_id=client_id, code=message.get("code"))
            if client_id in self.entries and message.get("code") in RESEND_ERRORS:
                self.spawn(self.submit(client_id, pause=RESEND_PAUSE_SECONDS))
        elif kind in ("ok", "error", "round.started", "round.ended"):
            self.emit("msg", message=message)

    # ------------------------------------------------------------ playing

    async def submit(self, client_id: str, pause: float = 0.0) -> None:
        if pause:
            await asyncio.sleep(pause)
        entry = self.entries[client_id]
        if entry.verdicts:
            return
        message = {
            "type": "submit",
            "word": entry.word,
            "client_id": client_id,
            "request_id": client_id,
        }
        if await self.send(message):
            entry.sends += 1
        # Not sent (the socket is down): the next state's resend takes it.

    async def play(self, words: list[str], starts_at: int, interval: float) -> None:
        await asyncio.sleep(max(0.0, starts_at / 1000 - time.time()) + 0.2)
        for index, word in enumerate(words):
            client_id = f"{self.name}-{index}"
            self.entries[client_id] = Entry(word)
            await self.submit(client_id)
            await asyncio.sleep(interval)
        while any(not entry.verdicts for entry in self.entries.values()):
            self.changed.clear()
            await self.changed.wait()
        self.emit(
            "played",
            entries={
                client_id: {
                    "word": entry.word,
                    "verdicts": entry.verdicts,
                    "sends": entry.sends,
                    "resent_after_reconnect": entry.resent_after_reconnect,
                }
                for client_id, entry in self.entries.items()
            },
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    creating = commands.add_parser("create")
    creating.add_argument("base")
    creating.add_argument("nickname")
    joining = commands.add_parser("joins")
    joining.add_argument("base")
    joining.add_argument("code")
    joining.add_argument("count", type=int)
    joining.add_argument("name")
    joining.add_argument("--forwarded-for")
    agent = commands.add_parser("agent")
    agent.add_argument("base")
    agent.add_argument("origin")
    agent.add_argument("name")
    args = parser.parse_args()
    if args.command == "create":
        create(args.base, args.nickname)
    elif args.command == "joins":
        joins(args.base, args.code, args.count, args.name, args.forwarded_for)
    else:
        asyncio.run(Agent(args.base, args.origin, args.name).run())


if __name__ == "__main__":
    main()
