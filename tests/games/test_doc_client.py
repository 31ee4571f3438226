"""A client written from docs/api.md alone, playing whole rounds in-process.

``DocClient`` uses only what the document promises: the HTTP endpoints, the websocket
messages, the version rules, the clock offset from ``ping``/``pong`` and resending with the
same ``client_id`` after a reconnect. If one of these tests fails, the document or the
server is wrong. The board's words come from the public solver, as a bot's would.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from boggle_site.asgi import application
from games import background
from solver import dictionaries, parse_board, solve

pytestmark = pytest.mark.django_db(transaction=True)

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
        self.offset_ms = 0.0
        self.seen: list[dict] = []  # every message received, in order
        self.unanswered: dict[str, str] = {}  # client_id -> word sent, no verdict yet
        self.drop_next_event = False  # tests: lose one room event to cause a gap

    # ---------------------------------------------------------------- HTTP

    async def call(self, method: str, path: str, body: Any = None, auth: bool = True):
        """One API request; returns (status, JSON body)."""
        headers = {"HTTP_AUTHORIZATION": f"Bearer {self.token}"} if auth and self.token else {}
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
        """Open the room socket; returns the first message (``state`` or ``error``)."""
        query = f"?token={self.token}" if with_token else ""
        self.socket = WebsocketCommunicator(
            application, f"/ws/rooms/{self.code}/{query}", headers=headers
        )
        connected, _ = await self.socket.connect(timeout=WAIT)
        assert connected
        first = await self.receive()
        return first

    async def disconnect(self) -> None:
        if self.socket is not None:
            await self.socket.disconnect()
            self.socket = None

    async def send(self, message: dict) -> None:
        await self.socket.send_to(text_data=json.dumps(message))

    async def receive(self, timeout: float = WAIT) -> dict:
        """The next message, after applying the document's version rules."""
        output = await self.socket.receive_output(timeout)
        if output["type"] == "websocket.close":
            raise Closed(output.get("code"))
        message = json.loads(output["text"])
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
        best_rtt = None
        for _ in range(pings):
            pong = await self.request({"type": "ping", "client_time": now_ms()})
            arrived = now_ms()
            rtt = arrived - pong["client_time"]
            if best_rtt is None or rtt < best_rtt:
                best_rtt = rtt
                self.offset_ms = pong["server_time"] - (pong["client_time"] + arrived) / 2

    def server_now(self) -> float:
        return now_ms() + self.offset_ms

    async def sleep_until(self, server_ms: int) -> None:
        await asyncio.sleep(max(server_ms - self.server_now(), 0) / 1000 + 0.05)


def now_ms() -> int:
    return int(time.time() * 1000)


def words_on(round_: dict) -> list[tuple[str, int]]:
    """(word, points) on the round's board, solved client-side, best first."""
    lexicon = dictionaries.load(round_["dictionary"])
    solution = solve(parse_board(round_["board"]), lexicon, round_["min_length"])
    return [(found.word, found.points) for found in solution.words]


def non_word_on(round_: dict) -> str:
    """Letters the round's board spells (adjacent, distinct dice, at least min_length) that
    are in no dictionary: what the document calls not_in_dictionary."""
    board = parse_board(round_["board"])
    lexicon = dictionaries.load(round_["dictionary"])
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
            if len(text) >= round_["min_length"] and text.isalpha() and text not in lexicon:
                return text
    raise AssertionError(f"every string on {round_['board']} is a word")


async def close_all(*clients: DocClient) -> None:
    for client in clients:
        await client.disconnect()
    await background.stop()


async def test_doc_client_plays_a_round() -> None:
    """Create, join, start an untimed round, play (with a reconnect and a late joiner), end it
    and read the same results over the socket and HTTP."""
    ann, bob, carl = DocClient("Ann"), DocClient("Bob"), DocClient("Carl")
    created = await ann.create_room({"round_seconds": None})
    assert created["room"]["host_id"] == ann.player_id == created["room"]["you"]
    assert created["room"]["settings"]["round_seconds"] is None
    await bob.join(ann.code)
    # Joining again with the token is a rejoin: 200 and the same player.
    status, again = await bob.call("POST", f"/api/rooms/{ann.code}/join", {"nickname": "x"})
    assert status == 200 and again["player"]["id"] == bob.player_id
    try:
        assert (await ann.connect())["type"] == "state"
        assert (await bob.connect())["type"] == "state"
        assert bob.state["you"] == bob.player_id
        await ann.sync_clock()
        assert abs(ann.offset_ms) < 1000  # same machine

        assert (await bob.request({"type": "start_round"}))["code"] == "not_host"
        for number in range(1, 6):  # one rolled board in a thousand has under 6 words
            ok = await ann.request({"type": "start_round"})
            assert ok == {**ok, "type": "ok", "request": "start_round", "round_number": number}
            started = (await bob.wait_for("round.started"))["round"]
            await ann.wait_for("round.started")
            assert started["status"] == "running" and started["ends_at"] is None  # untimed
            words = words_on(started)
            if len(words) >= 6:
                break
            assert (await ann.request({"type": "end_round"}))["type"] == "ok"
        assert len(words) >= 6, started["board"]

        # Before starts_at, the countdown: words are refused with wrong_round_state. On a
        # slow machine the countdown may be over when this one arrives: then it is judged
        # (the docs' rule either way; a word that cannot count, so the game is unchanged).
        early = await ann.submit("zzzqx")
        if early["type"] == "error":
            assert early["code"] == "wrong_round_state", early
        else:
            assert early["type"] == "verdict" and early["server_time"] >= started["starts_at"]
        await ann.sleep_until(started["starts_at"])

        (shared, shared_pts), (a_word, a_pts), (b_word, b_pts) = words[:3]
        (b_late, b_late_pts), (c_word, c_pts) = words[3:5]
        for word in (shared, a_word):
            verdict = await ann.submit(word)
            assert verdict["verdict"] == "accepted" and verdict["accepted"] is True, verdict
        assert (await ann.submit(a_word))["verdict"] == "already_entered"
        assert (await bob.submit(shared, "b-1"))["accepted"] is True
        non_word = non_word_on(started)  # on the board, in no dictionary
        refused = await bob.submit(non_word.upper())
        assert refused["word"] == non_word and refused["verdict"] == "not_in_dictionary"
        assert refused["reason"] == "not in the dictionary"
        off_board = await bob.submit("Zzzqx")  # letters the board does not have
        assert off_board["word"] == "zzzqx" and off_board["verdict"] == "not_on_board"
        assert off_board["reason"] == "not on the board"

        # Bob's connection drops with b_word sent but unanswered; he reconnects and resends.
        bob.unanswered["b-2"] = b_word
        await bob.send({"type": "submit", "word": b_word, "client_id": "b-2"})
        await bob.disconnect()
        state = await bob.connect()
        assert state["type"] == "state"
        assert "b-1" in {entry["client_id"] for entry in state["state"]["my_words"]}
        resent = await bob.resend_unanswered()
        assert [(v["client_id"], v["verdict"]) for v in resent] == [("b-2", "accepted")]
        assert (await bob.submit(b_word, "b-2"))["verdict"] == "accepted"  # stored, not judged
        assert (await bob.submit(b_late))["accepted"] is True

        # Carl joins mid-round and plays the rest of it.
        await carl.join(ann.code)
        joined = await ann.wait_for("player.joined")
        assert joined["player"] == {
            "id": carl.player_id,
            "nickname": "Carl",
            "online": False,
            "is_host": False,
            "total_points": 0,
        }
        state = await carl.connect()
        assert state["state"]["round"]["status"] == "running"
        assert (await carl.submit(c_word))["accepted"] is True
        expected = {str(ann.player_id): 2, str(bob.player_id): 3, str(carl.player_id): 1}
        counts = await ann.wait_for("round.counts", counts=expected)
        assert counts["version"] == ann.version

        assert (await ann.request({"type": "end_round"}))["type"] == "ok"
        ended = [(await c.wait_for("round.ended"))["results"] for c in (ann, bob, carl)]
        assert ended[0] == ended[1] == ended[2]
        results = ended[0]
        status, over_http = await carl.call(
            "GET", f"/api/rooms/{ann.code}/rounds/{number}", auth=False
        )
        assert status == 200 and over_http["results"] == results

        players = {p["nickname"]: p for p in results["players"]}
        assert players["Ann"]["round_points"] == a_pts
        assert players["Bob"]["round_points"] == b_pts + b_late_pts
        assert players["Carl"]["round_points"] == c_pts
        for name in ("Ann", "Bob"):
            mine = {w["word"]: w for w in players[name]["words"]}
            assert mine[shared]["cancelled"] is True and mine[shared]["points"] == 0
        assert {
            "word": non_word,
            "verdict": "not_in_dictionary",
            "reason": "not in the dictionary",
        } in players["Bob"]["rejected"]
        assert {
            "word": "zzzqx",
            "verdict": "not_on_board",
            "reason": "not on the board",
        } in players["Bob"]["rejected"]
        solution = {entry["word"]: entry for entry in results["solution"]}
        assert sorted(solution[shared]["found_by"]) == sorted([ann.player_id, bob.player_id])
        assert solution[shared]["points"] == shared_pts  # what it would have scored alone
        assert results["word_count"] == len(words)
        assert results["max_points"] == sum(points for _, points in words)
        ranked = [p["round_points"] for p in results["players"]]
        assert ranked == sorted(ranked, reverse=True)

        # After the end: a new entry is round_over; the room state holds the results.
        late = await carl.submit(words[5][0])
        assert late["verdict"] == "round_over" and late["accepted"] is False
        status, room = await bob.call("GET", f"/api/rooms/{ann.code}")
        assert status == 200 and room["room"]["results"] == results
        assert room["room"]["you"] == bob.player_id
        totals = {p["id"]: p["total_points"] for p in room["room"]["players"]}
        assert totals[bob.player_id] == b_pts + b_late_pts
    finally:
        await close_all(ann, bob, carl)


async def test_doc_client_host_tools_hidden_verdicts_and_sync() -> None:
    """Settings, a set board, hidden verdicts, a version gap healed by sync, host transfer,
    kick and leave, with the close codes the document gives."""
    ann, bob, carl = DocClient("Ann"), DocClient("Bob"), DocClient("Carl")
    await ann.create_room()
    await bob.join(ann.code)
    await carl.join(ann.code)
    try:
        for client in (ann, bob, carl):
            assert (await client.connect())["type"] == "state"
        bad = await ann.request({"type": "update_settings", "settings": {"round_seconds": 5}})
        assert (
            bad["type"] == "error"
            and bad["code"] == "invalid"
            and bad["request"] == "update_settings"
        )
        ok = await ann.request(
            {
                "type": "update_settings",
                "settings": {"round_seconds": None, "instant_verdicts": False},
            }
        )
        assert ok["settings"]["instant_verdicts"] is False
        ok = await ann.request({"type": "set_board", "board": "AEOLIEJMPDLSORKF"})
        assert ok["board"] == RICH_BOARD
        changed = await bob.wait_for("settings.changed")
        while changed["settings"]["next_board"] != RICH_BOARD:  # the earlier change first
            changed = await bob.wait_for("settings.changed")

        await ann.request({"type": "start_round"})
        started = (await bob.wait_for("round.started"))["round"]
        assert started["board"] == RICH_BOARD and started["instant_verdicts"] is False
        wrong = await ann.request({"type": "update_settings", "settings": {"min_length": 4}})
        assert wrong["code"] == "wrong_round_state"
        await bob.sleep_until(started["starts_at"])
        words = words_on(started)

        hidden = await bob.submit(words[0][0], "x1")
        assert (hidden["verdict"], hidden["accepted"], hidden["reason"]) == ("received", None, None)
        assert (await bob.submit("hello", "x2"))["verdict"] == "received"

        # Bob loses one event; the next one shows a gap, his client syncs.
        # (Counts go out in batches: Carl waits for each, so two events follow.)
        bob.drop_next_event = True
        counts = {str(bob.player_id): 2, str(carl.player_id): 1}
        assert (await carl.submit(words[1][0]))["verdict"] == "received"
        await carl.wait_for("round.counts", counts=counts)
        assert (await carl.submit(words[2][0]))["verdict"] == "received"
        state = (await bob.wait_for("state"))["state"]
        assert bob.version == state["version"]
        assert (await bob.request({"type": "sync"}))["state"]["version"] == state["version"]
        assert state["my_words"] == [
            {"word": words[0][0], "client_id": "x1", "verdict": "received"},
            {"word": "hello", "client_id": "x2", "verdict": "received"},
        ]
        assert state["counts"][str(carl.player_id)] == 2

        # Hosting passes to Bob; Ann can no longer end the round, Bob can.
        assert (await ann.request({"type": "transfer_host", "player_id": bob.player_id}))[
            "type"
        ] == "ok"
        assert (await carl.wait_for("host.changed"))["host_id"] == bob.player_id
        assert (await ann.request({"type": "end_round"}))["code"] == "not_host"
        assert (await bob.request({"type": "end_round"}))["type"] == "ok"
        results = (await carl.wait_for("round.ended"))["results"]
        bob_row = next(p for p in results["players"] if p["id"] == bob.player_id)
        assert [w["word"] for w in bob_row["words"]] == [words[0][0]]
        assert bob_row["rejected"] == [
            {"word": "hello", "verdict": "not_on_board", "reason": "not on the board"}
        ]
        status, room = await bob.call("GET", f"/api/rooms/{ann.code}")
        assert room["room"]["my_words"][0]["verdict"] == "accepted"  # told after the end

        # Bob kicks Carl: Carl hears it and is closed with 4001, his token stops working.
        assert (await bob.request({"type": "kick", "player_id": carl.player_id}))["type"] == "ok"
        assert (await carl.wait_for("kicked"))["message"]
        with pytest.raises(Closed) as closed:
            await carl.receive()
        assert closed.value.code == 4001
        left = await ann.wait_for("player.left")
        assert left["player_id"] == carl.player_id and left["kicked"] is True
        first = await carl.connect()
        assert first["type"] == "error" and first["code"] == "not_a_player"
        with pytest.raises(Closed) as closed:
            await carl.receive()
        assert closed.value.code == 4403
        status, error = await carl.call("GET", f"/api/rooms/{ann.code}")
        assert status == 403 and error["error"]["code"] == "not_a_player"

        # Ann leaves: ok, then a normal close.
        answer = await ann.request({"type": "leave"})
        assert answer["type"] == "ok" and answer["request"] == "leave"
        with pytest.raises(Closed) as closed:
            await ann.receive()
        assert closed.value.code in (None, 1000)
        await bob.wait_for("player.left", player_id=ann.player_id)
    finally:
        await close_all(ann, bob, carl)


async def test_doc_http_errors_and_browser_session() -> None:
    """The error shape and status codes; a browser's session cookie and the Origin rule."""
    browser = DocClient("Dee")
    status, error = await browser.call("POST", "/api/rooms", {"nickname": ""})
    assert status == 400 and set(error["error"]) == {"code", "message"}
    assert error["error"]["code"] == "invalid"
    status, error = await browser.call("GET", "/api/rooms/zzzzzzzz")
    assert status == 404 and error["error"]["code"] == "room_not_found"
    await browser.create_room()
    status, error = await DocClient("dee").call(
        "POST", f"/api/rooms/{browser.code}/join", {"nickname": "DEE"}
    )
    assert status == 409 and error["error"]["code"] == "nickname_taken"
    status, error = await browser.call("GET", f"/api/rooms/{browser.code}/rounds/1")
    assert status == 404 and error["error"]["code"] == "round_not_found"
    status, listed = await browser.call("GET", "/api/dictionaries")
    assert (
        status == 200
        and {"name": "english", "title": listed["dictionaries"][0]["title"]}
        in listed["dictionaries"]
    )

    cookie = browser.http.cookies["sessionid"].value
    # As a browser sends them: the page's origin is the address the socket goes to.
    session = [
        (b"cookie", f"sessionid={cookie}".encode()),
        (b"host", b"localhost"),
        (b"origin", b"http://localhost"),
    ]
    try:
        first = await browser.connect(headers=session, with_token=False)
        assert first["type"] == "state" and first["state"]["you"] == browser.player_id
        await browser.disconnect()
        foreign = WebsocketCommunicator(
            application,
            f"/ws/rooms/{browser.code}/?token={browser.token}",
            headers=[(b"origin", b"http://evil.example")],
        )
        connected, _ = await foreign.connect(timeout=WAIT)
        assert not connected
    finally:
        await close_all(browser)


async def test_doc_client_qu_rules_retries_and_fixed_results() -> None:
    """The board text and Qu rules, a client_id reused for another word, an oversized
    message still answered with its request_id, the documented answers to repeated
    messages (docs: "Retrying a message"), and an ended round's results staying fixed."""
    ann, bob = DocClient("Ann"), DocClient("Bob")
    await ann.create_room({"round_seconds": None})
    await bob.join(ann.code)
    try:
        for client in (ann, bob):
            assert (await client.connect())["type"] == "state"
        # In a run each character is a die: "q" the Qu die, then a U die of its own.
        ok = await ann.request({"type": "set_board", "board": "catsqiuxdogzwent"})
        assert ok["board"] == "cats qiux dogz went"
        # "qu" where letters alone make no board (17 characters): the Qu die.
        ok = await ann.request({"type": "set_board", "board": "CATS QUIUX DOGZ WENT"})
        assert ok["board"] == "cats qiux dogz went"
        assert (await ann.request({"type": "start_round"}))["type"] == "ok"
        again = await ann.request({"type": "start_round"})
        assert (again["type"], again["code"]) == ("error", "wrong_round_state")
        started = (await bob.wait_for("round.started"))["round"]
        assert started["grid"][1] == ["qu", "i", "u", "x"]
        await bob.sleep_until(started["starts_at"])

        quit_ = await bob.submit("quit", "b1")
        assert quit_["verdict"] == "accepted"
        assert (await bob.submit("qit"))["verdict"] == "not_on_board"  # a lone q: no die
        assert (await bob.submit("wego"))["verdict"] == "not_in_dictionary"  # on the board
        reused = await bob.submit("cats", "b1")
        assert (reused["type"], reused["code"]) == ("error", "invalid")
        assert "client_id 'b1' was already used for 'quit'" in reused["message"]
        assert (await bob.submit(" QUIT ", "b1"))["verdict"] == "accepted"  # a resend

        huge = await bob.request({"type": "submit", "word": "x" * 5000})
        assert (huge["type"], huge["code"], huge["request"]) == ("error", "invalid", None)

        assert (await ann.request({"type": "end_round"}))["type"] == "ok"
        again = await ann.request({"type": "end_round"})
        assert (again["type"], again["code"]) == ("error", "wrong_round_state")
        ended = (await bob.wait_for("round.ended"))["results"]
        assert {p["nickname"] for p in ended["players"]} == {"Ann", "Bob"}

        # Repeats of done messages, as the retry table says.
        assert (await bob.request({"type": "challenge", "word": "wego", "round_number": 1}))[
            "type"
        ] == "ok"
        again = await bob.request({"type": "challenge", "word": "wego", "round_number": 1})
        assert again["code"] == "invalid" and "already challenged" in again["message"]
        challenge_id = (await ann.wait_for("challenge.opened"))["challenge"]["id"]
        ruled = {"type": "rule_challenge", "challenge_id": challenge_id, "accept": False}
        assert (await ann.request(ruled))["type"] == "ok"
        again = await ann.request(ruled)
        assert again["code"] == "invalid" and "already declined" in again["message"]
        settings = {"type": "update_settings", "settings": {"min_length": 4}}
        assert (await ann.request(settings))["type"] == (await ann.request(settings))["type"]
        refused = await ann.request({"type": "update_settings", "settings": {"min_length": 2}})
        assert refused["code"] == "invalid" and "3 to 8" in refused["message"]
        handover = {"type": "transfer_host", "player_id": bob.player_id}
        assert (await ann.request(handover))["type"] == "ok"
        assert (await ann.request(handover))["code"] == "not_host"

        # A later joiner and later leavers change nothing in round 1's results.
        carl = DocClient("Carl")
        await carl.join(ann.code)
        kick = {"type": "kick", "player_id": carl.player_id}
        assert (await bob.request(kick))["type"] == "ok"
        assert (await bob.request(kick))["code"] == "invalid"
        status, fixed = await bob.call("GET", f"/api/rooms/{ann.code}/rounds/1")
        assert status == 200
        assert fixed["results"]["players"] == ended["players"]
    finally:
        await close_all(ann, bob)


async def test_unknown_websocket_path_is_answered_as_documented() -> None:
    socket = WebsocketCommunicator(application, "/ws/elsewhere/")
    connected, _ = await socket.connect(timeout=WAIT)
    assert connected
    error = json.loads(await socket.receive_from(WAIT))
    assert (error["type"], error["code"]) == ("error", "room_not_found")
    close = await socket.receive_output(WAIT)
    assert (close["type"], close["code"]) == ("websocket.close", 4404)


def test_every_error_code_the_server_sends_is_documented() -> None:
    """Every error code in the apps' code (error classes, literal error bodies, the body
    limit's raw answers) appears in docs/api.md as `code`."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    patterns = [
        r'\bcode = "([a-z_]+)"',  # GameError subclasses and their kin
        r'"code":\s*"([a-z_]+)"',  # error bodies written out
        r'(?:send_error\(send, \d+|raw_error\(b"[^"]*"), "([a-z_]+)"',  # boggle_site.body_limit
    ]
    codes: set[str] = set()
    for folder in ("games", "photos", "boggle_site", "dictionaries", "daily", "definitions"):
        for source in (root / folder).glob("*.py"):
            text = source.read_text()
            for pattern in patterns:
                codes.update(re.findall(pattern, text))
    codes.discard("error")  # GameError's placeholder, never sent
    # The scan finds codes of every kind (so it can fail).
    assert {"invalid", "photo_not_found", "too_many_connections", "too_large"} <= codes
    document = (root / "docs" / "api.md").read_text()
    missing = sorted(code for code in codes if f"`{code}`" not in document)
    assert missing == []
