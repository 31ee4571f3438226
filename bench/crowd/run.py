"""The shared state of one load run: its options, site, counters (``Metrics``), HTTP with a
proxy's failover, the boards' solutions, and the rooms (``Room``) and entries waiting for
a verdict (``Pending``) of its players."""

from __future__ import annotations

import argparse
import asyncio
import functools
import random
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from bench.crowd.http_client import HttpResult, HttpTally, http_call, is_refused
from bench.crowd.site import Site
from solver import WordList, dictionaries, parse_board, solve

# The floor for verdict p99 (issue 30): the report says when in the round slower ones were sent.
SLOW_VERDICT_MS = 50
IN_TIME_MARGIN_SECONDS = 0.05  # a word sent this long before ends_at arrived in time


# ------------------------------------------------------------------------ the players


@dataclass
class Pending:
    word: str
    round_number: int
    sent_perf: float  # time.perf_counter() when the player meant to send it
    first_sent_wall: float | None = None  # when a send first went out on a socket
    resent: bool = False  # sent again after a reconnect or a server_error
    typed_wall: float = field(default_factory=time.time)  # when the player typed it
    retries: int = 0  # resends after server_error / rate_limited


@dataclass
class Metrics:
    verdict_ms: list[float] = field(default_factory=list)
    # seconds after ends_at (negative: before) at which a verdict slower than SLOW_VERDICT_MS was sent
    slow_verdict_sent: list[float] = field(default_factory=list)
    # From sending an entry to the server's stamp on its verdict (server_time), ms: the
    # server's share of the latency, the rest being the way back and the client's own delays
    # (one clock: the site on this machine). All verdicts, and those slower than SLOW_VERDICT_MS.
    verdict_until_answer_ms: list[float] = field(default_factory=list)
    slow_verdict_until_answer_ms: list[float] = field(default_factory=list)
    slow_verdict_after_answer_ms: list[float] = field(default_factory=list)
    verdicts: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)  # every error reply, by code
    submit_errors: Counter[str] = field(default_factory=Counter)
    words_sent: Counter[str] = field(default_factory=Counter)
    words_unsent: int = 0  # meant to be sent while the socket was down, sent later
    send_lag_ms: list[float] = field(default_factory=list)
    round_ended_ms: list[float] = field(default_factory=list)
    # when each socket of a room got round.ended (ms after ends_at), by (room code, round)
    round_ended_by_room: dict[tuple[str, int], list[float]] = field(default_factory=dict)
    round_ended_never: int = 0
    round_ended_by_sync: int = 0
    round_ended_not_even_sync: int = 0
    round_ended_later: int = 0  # arrived as an event after the wait
    # the whole results asked for after round.ended (ms after ends_at), and failures
    results_read_ms: list[float] = field(default_factory=list)
    results_read_failed: int = 0
    in_time_round_over: int = 0
    in_time_round_over_examples: list[str] = field(default_factory=list)
    resent_round_over: int = 0
    lost_missing: int = 0
    lost_missing_examples: list[str] = field(default_factory=list)
    never_answered: int = 0
    never_sent: int = 0  # of those, never went out (the socket was down)
    answered_after_drain: int = 0
    in_results_not_seen_accepted: int = 0
    results_unavailable: int = 0
    missed_events: int = 0
    missed_events_reconnected: int = 0  # of those, on clients that reconnected
    clients_with_gaps: int = 0
    missed_by_type: Counter[str] = field(default_factory=Counter)
    received: Counter[Any] = field(default_factory=Counter)  # messages by type
    out_of_order: int = 0
    duplicate_events: int = 0
    connect_failures: Counter[str] = field(default_factory=Counter)
    socket_drops: Counter[str] = field(default_factory=Counter)
    reconnects: int = 0
    reconnect_failures: Counter[str] = field(default_factory=Counter)
    odd: Counter[str] = field(default_factory=Counter)
    round_started_missed: int = 0  # client had to sync to learn the round had started
    round_never_started_for_client: int = 0
    rounds_not_started: list[str] = field(default_factory=list)
    accepted_in_window: int = 0
    accepted_total: int = 0
    # --faults: what the documented client did to recover
    resends_after_error: Counter[str] = field(default_factory=Counter)
    resends_after_reconnect: int = 0
    reconnect_ms: list[float] = field(default_factory=list)  # drop -> next state
    syncs: Counter[str] = field(default_factory=Counter)  # why the client sent sync
    keepalive_closes: int = 0  # nothing heard for 12 s: closed and reconnected
    failovers: int = 0  # a connection refused by one Daphne went to another (the proxy)
    # what the sockets carried (payload bytes, without the websocket framing): for the costs
    ws_frames_in: int = 0
    ws_frames_out: int = 0
    ws_bytes_in: int = 0
    ws_bytes_out: int = 0
    ws_bytes_in_by_type: Counter[str] = field(default_factory=Counter)
    event_frames: int = 0  # frames with a room version (each socket's copy of an event)
    room_events: int = 0  # distinct room events: (room, version) first seen by any client


class Run:
    """Shared state of one load run."""

    def __init__(self, args: argparse.Namespace, site: Site) -> None:
        self.args = args
        self.site = site
        self.metrics = Metrics()
        self.game_http = HttpTally()
        self.burst_http = HttpTally()
        self.rng = random.Random(args.seed)
        self.window_open = False
        self.closing = False
        self.phase = "setting up"
        self.pool = ThreadPoolExecutor(max_workers=64, thread_name_prefix="http")
        self.word_lists: dict[str, WordList] = {}
        self.solutions: dict[tuple[str, str, int], list[str]] = {}
        self._next_url = 0
        # --faults: the client behaves like the site's own page (pings, syncs on gaps,
        # reconnects for ever), a refused connection goes to another Daphne (the proxy's
        # job), and every HTTP answer and error reply is logged with its time.
        self.fault_mode = bool(getattr(args, "faults", None))
        self.http_log: list[tuple[float, str, HttpResult]] = []
        self.error_log: list[tuple[float, str, str]] = []
        self.background: set[asyncio.Task[Any]] = set()

    def spawn(self, coroutine: Any) -> asyncio.Task[Any]:
        """A task kept referenced until it is done."""
        task = asyncio.create_task(coroutine)
        self.background.add(task)
        task.add_done_callback(self.background.discard)
        return task

    def url(self) -> str:
        url = self.site.urls[self._next_url % len(self.site.urls)]
        self._next_url += 1
        return url

    async def http(
        self,
        what: str,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        token: str | None = None,
        base: str | None = None,
        idempotency_key: str | None = None,
        source: str | None = None,
    ) -> HttpResult:
        """``source``: the local address to send from (a player's, --through-nginx)."""
        loop = asyncio.get_running_loop()
        routed = base is None
        base = base or self.url()
        sent = time.time()
        result = await loop.run_in_executor(
            self.pool,
            lambda: http_call(
                base, method, path, body, token, idempotency_key=idempotency_key, source=source
            ),
        )
        if routed and self.fault_mode and is_refused(result.error):
            # A proxy sends a request whose backend refused the connection to another one.
            for other in self.site.urls:
                if other == base:
                    continue
                call = functools.partial(
                    http_call, other, method, path, body, token, idempotency_key=idempotency_key
                )
                result = await loop.run_in_executor(self.pool, call)
                if not is_refused(result.error):
                    break
        self.game_http.record(what, result)
        if self.fault_mode:
            self.http_log.append((sent, what, result))
        return result

    def solution(self, round_: dict[str, Any]) -> list[str]:
        """The words the round's board spells, by the repository's solver (cached)."""
        key = (
            str(round_.get("board")),
            str(round_.get("dictionary")),
            int(round_.get("min_length") or 3),
        )
        words = self.solutions.get(key)
        if words is None:
            try:
                word_list = self.word_list(key[1])
                words = [
                    found.word for found in solve(parse_board(key[0]), word_list, key[2]).words
                ]
            except Exception as error:
                self.metrics.odd[f"could not solve the board: {type(error).__name__}"] += 1
                words = []
            self.solutions[key] = words
        return words

    def word_list(self, name: str) -> WordList:
        word_list = self.word_lists.get(name)
        if word_list is None:
            word_list = self.word_lists[name] = dictionaries.load(name)
        return word_list


class Member(Protocol):
    """What a room needs of its players (``bench.crowd.player.Player``)."""

    @property
    def id(self) -> int | None: ...


MemberT = TypeVar("MemberT", bound=Member)


class Room(Generic[MemberT]):
    """One room of the crowd, as its players' clients saw it."""

    def __init__(self, index: int, size: int) -> None:
        self.index = index
        self.size = size
        self.code: str | None = None
        self.players: list[MemberT] = []
        self.host: MemberT | None = None
        self.max_version = 0
        self.version_types: dict[int, str] = {}  # as some client of the room saw it
        self.round_info: dict[int, dict[str, Any]] = {}
        self.round_seen: dict[int, asyncio.Event] = {}
        self.start_settled: dict[int, asyncio.Event] = {}
        self.start_failed: dict[int, str] = {}
        self.host_id: int | None = None  # as the latest state or host.changed said
        # player.online events as the room's clients first got them: version -> (id, online,
        # wall time)
        self.presence_events: dict[int, tuple[int, bool, float]] = {}
        self.results: dict[int, dict[str, Any] | None] = {}  # read over HTTP (--faults)

    def current_host(self) -> MemberT | None:
        """The player the server names host (a host who was away may have handed over)."""
        if self.host_id is not None:
            for player in self.players:
                if player.id == self.host_id:
                    return player
        return self.host

    def seen_event(self, number: int) -> asyncio.Event:
        return self.round_seen.setdefault(number, asyncio.Event())

    def settled_event(self, number: int) -> asyncio.Event:
        return self.start_settled.setdefault(number, asyncio.Event())

    def note_round(self, round_: dict[str, Any]) -> None:
        number = round_.get("number")
        if isinstance(number, int) and number not in self.round_info:
            self.round_info[number] = round_
            self.seen_event(number).set()
