"""The messages a player takes in (every frame goes through ``handle``): events in version
order, states, round starts and ends, verdicts (timed against their sending) and error
replies (an entry resent after server_error or rate_limited)."""

from __future__ import annotations

import asyncio
import time
from abc import abstractmethod
from collections import Counter
from typing import Any

import orjson

from bench.crowd.player_link import PlayerLink
from bench.crowd.run import IN_TIME_MARGIN_SECONDS, SLOW_VERDICT_MS

KNOWN_TYPES = {
    "player.joined",
    "player.left",
    "player.online",
    "host.changed",
    "settings.changed",
    "round.preparing",
    "round.counts",
    "challenge.opened",
    "challenge.ruled",
    "round.rescored",
    "board.reading",
    "board.read",
    "board.unreadable",
    "ok",
    "pong",
    "kicked",
    "results",
}


class PlayerInbox(PlayerLink):
    """What a player makes of the messages it receives."""

    @abstractmethod
    def started_event(self, number: int) -> asyncio.Event:
        """Set when round ``number`` is known to run (``Player``)."""

    @abstractmethod
    def ended_event(self, number: int) -> asyncio.Event:
        """Set when round ``number`` is known to have ended (``Player``)."""

    # -- messages in (keep it small: this runs for every frame)

    def handle(self, raw: str | bytes) -> Any:
        """Take one message in; returns its type."""
        try:
            # orjson: this one process parses the frames of a thousand phones (a results
            # frame is some 30 kB); json's parser stalled its event loop for hundreds of ms
            # at the rounds' end, and the stall counted in the latencies it measured.
            message = orjson.loads(raw)
        except ValueError:
            self.m.odd["unparseable message"] += 1
            return None
        if not isinstance(message, dict):
            self.m.odd["message not an object"] += 1
            return None
        kind = message.get("type")
        self.m.received[kind] += 1
        size = len(raw) if isinstance(raw, bytes) else len(raw.encode())
        self.m.ws_frames_in += 1
        self.m.ws_bytes_in += size
        self.m.ws_bytes_in_by_type[str(kind)] += size
        self.last_heard = time.monotonic()
        version = message.get("version")
        if version is not None and kind not in ("state", "pong"):
            self.note_version(version, kind)
        request_id = message.get("request_id")
        if kind == "verdict":
            self.on_verdict(message)
            if "counts_event" in message:  # the room's live counts, riding on the verdict
                self.m.received["round.counts (with a verdict)"] += 1
        elif kind == "round.counts":
            pass
        elif kind == "pong":
            if isinstance(version, int) and version > self.applied:
                if self.behind is None or self.behind[0] < version:
                    self.behind = (version, time.monotonic())
            else:
                self.behind = None
        elif kind == "host.changed":
            host_id = message.get("host_id")
            self.room.host_id = host_id if isinstance(host_id, int) else None
        elif kind == "player.online":
            player_id, online = message.get("player_id"), message.get("online")
            if isinstance(version, int) and isinstance(player_id, int):
                self.room.presence_events.setdefault(
                    version, (player_id, online is True, time.time())
                )
        elif kind == "state":
            self.on_state(message)
        elif kind == "round.started":
            self.on_round(message.get("round"))
        elif kind == "round.ended":
            self.on_round_ended(message)
        elif kind == "error":
            self.on_error(message)
        elif kind not in KNOWN_TYPES:
            self.m.odd[f"unknown message type {kind!r}"] += 1
        if request_id is not None and kind != "verdict":
            future = self.waiters.get(str(request_id))
            if future is not None and not future.done():
                future.set_result(message)
        return kind

    def note_version(self, version: Any, kind: Any) -> None:
        if not isinstance(version, int):
            self.m.odd["event version not an integer"] += 1
            return
        if version > self.applied:
            # docs/api.md: apply in order; past a gap, hold (a sync comes after a second).
            self.ahead.add(version)
            while self.applied + 1 in self.ahead:
                self.applied += 1
                self.ahead.discard(self.applied)
            if not self.ahead:
                self.gap_since = None
            elif self.gap_since is None:
                self.gap_since = time.monotonic()
        self.m.event_frames += 1
        if version in self.seen:
            self.m.duplicate_events += 1
            return
        self.seen.add(version)
        if version not in self.room.version_types:
            self.m.room_events += 1
            self.room.version_types[version] = str(kind)
        if self.first_version is not None and self.first_version < version < self.max_seen:
            self.m.out_of_order += 1
        if version > self.max_seen:
            self.max_seen = version
            if version > self.room.max_version:
                self.room.max_version = version

    def on_state(self, message: dict[str, Any]) -> None:
        state = message.get("state")
        if not isinstance(state, dict) or not isinstance(state.get("version"), int):
            self.m.odd["state without a version"] += 1
            return
        version = state["version"]
        if self.first_version is None:
            self.first_version = version
            self.max_seen = max(self.max_seen, version)
        self.room.max_version = max(self.room.max_version, version)
        # A fresh state replaces the client's: its version is the one applied.
        self.applied = version
        self.ahead = {v for v in self.ahead if v > version}
        self.gap_since = None if not self.ahead else time.monotonic()
        if isinstance(state.get("host_id"), int):
            self.room.host_id = state["host_id"]
        round_ = state.get("round")
        if not isinstance(round_, dict) or not isinstance(round_.get("number"), int):
            return
        number = round_["number"]
        how = "sync" if message.get("request_id") is not None else "state on (re)connect"
        self.state_round = number
        status = round_.get("status")
        for earlier in range(1, number):
            self.learn_end(earlier, how)
        if status == "ended":
            self.learn_end(number, how)
        elif status == "running":
            self.room.note_round(round_)
            if number not in self.rounds:
                self.rounds[number] = round_
                self.learned_start.setdefault(number, (time.time(), how))
                self.started_event(number).set()

    def learn_end(self, number: int, how: str) -> None:
        if number not in self.learned_end:
            self.learned_end[number] = (time.time(), how)
            self.ended_event(number).set()

    def on_round(self, round_: Any) -> None:
        if not isinstance(round_, dict) or not isinstance(round_.get("number"), int):
            self.m.odd["round.started without a round"] += 1
            return
        number = round_["number"]
        self.rounds.setdefault(number, round_)
        self.learned_start.setdefault(number, (time.time(), "event"))
        self.started_event(number).set()
        self.room.note_round(round_)

    def on_round_ended(self, message: dict[str, Any]) -> None:
        now = time.time()
        try:
            number = int(message["scores"]["round"]["number"])
        except (KeyError, TypeError, ValueError):
            self.m.odd["round.ended without scores.round.number"] += 1
            return
        self.learn_end(number, "event")
        if number in self.round_ended_at:
            return
        self.round_ended_at[number] = now
        if number in self.round_end_given_up:
            self.m.round_ended_later += 1
        self.ended_event(number).set()

    def on_verdict(self, message: dict[str, Any]) -> None:
        client_id = message.get("client_id")
        entry = self.pending.pop(client_id, None) if isinstance(client_id, str) else None
        if entry is None:
            if client_id in self.abandoned:
                self.m.answered_after_drain += 1
            elif client_id not in self.answered:
                self.m.odd["verdict for an unknown client_id"] += 1
            return
        self.answered.add(str(client_id))
        self.outstanding[entry.round_number] -= 1
        verdict_ms = (time.perf_counter() - entry.sent_perf) * 1000
        self.m.verdict_ms.append(verdict_ms)
        sent_wall = time.time() - verdict_ms / 1000
        server_time = message.get("server_time")
        until_answer = None
        if isinstance(server_time, int) and not self.run.args.url:  # one clock: same machine
            until_answer = min(max(server_time - sent_wall * 1000, 0.0), verdict_ms)
            self.m.verdict_until_answer_ms.append(until_answer)
        ends_at = self.ends_at.get(entry.round_number)
        if verdict_ms > SLOW_VERDICT_MS and ends_at is not None:
            self.m.slow_verdict_sent.append(sent_wall - ends_at)
            if until_answer is not None:
                self.m.slow_verdict_until_answer_ms.append(until_answer)
                self.m.slow_verdict_after_answer_ms.append(verdict_ms - until_answer)
        verdict = message.get("verdict")
        self.m.verdicts[str(verdict)] += 1
        if verdict == "accepted":
            self.accepted.setdefault(entry.round_number, set()).add(str(message.get("word")))
            self.m.accepted_total += 1
            if self.run.window_open:
                self.m.accepted_in_window += 1
        elif verdict == "round_over":
            ends_at = self.ends_at.get(entry.round_number)
            if ends_at is not None and entry.typed_wall <= ends_at - IN_TIME_MARGIN_SECONDS:
                late = self.late_round_over.setdefault(entry.round_number, Counter())
                late["resent" if entry.resent else "first send"] += 1
            sent = entry.first_sent_wall
            if ends_at is None or sent is None or sent > ends_at - IN_TIME_MARGIN_SECONDS:
                return
            if entry.resent:
                # Maybe lost with the dropped socket, resent late: round_over is then right.
                self.m.resent_round_over += 1
                return
            self.m.in_time_round_over += 1
            if len(self.m.in_time_round_over_examples) < 5:
                answered = time.time() - ends_at
                self.m.in_time_round_over_examples.append(
                    f"{entry.word!r} sent {ends_at - sent:.2f} s before ends_at,"
                    f" answered {answered:+.2f} s after it"
                )

    def on_error(self, message: dict[str, Any]) -> None:
        code = str(message.get("code"))
        self.m.errors[code] += 1
        if self.run.fault_mode:
            self.run.error_log.append((time.time(), code, str(message.get("request"))))
        request_id = message.get("request_id")
        entry = self.pending.get(request_id) if isinstance(request_id, str) else None
        if entry is not None and code in ("server_error", "rate_limited") and not self.gone:
            # docs/api.md: server_error "try again", rate_limited "resend later": the same
            # entry again, with its client_id, after a pause (1, 2, 4, 8 s).
            self.m.resends_after_error[code] += 1
            entry.retries += 1
            delay = min(8.0, 2.0 ** (entry.retries - 1))
            self.run.spawn(self.resend_later(str(request_id), entry, delay))
            return
        if entry is not None:
            del self.pending[str(request_id)]
            self.answered.add(str(request_id))
            self.outstanding[entry.round_number] -= 1
            self.m.submit_errors[code] += 1
