"""A player's round: waiting for it to start, sending words at the set pace (mostly words
the board spells, some garbage, some repeats), waiting for its end and for the last
verdicts. ``Player`` is the whole player: link, inbox and round."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from typing import Any

from bench.crowd.player_inbox import PlayerInbox
from bench.crowd.run import Pending

GARBAGE_LETTERS = "bcdfghjklmnpqrstvwxz"


class Player(PlayerInbox):
    """One player: an HTTP identity and one websocket."""

    # -- a round

    def started_event(self, number: int) -> asyncio.Event:
        return self.round_started.setdefault(number, asyncio.Event())

    def ended_event(self, number: int) -> asyncio.Event:
        return self.round_ended_event.setdefault(number, asyncio.Event())

    async def sync_state(self, timeout: float) -> dict[str, Any] | None:
        answer = await self.request({"type": "sync"}, timeout)
        if answer is None or answer.get("type") != "state":
            return None
        state = answer.get("state")
        return state if isinstance(state, dict) else None

    async def wait_round_started(self, number: int) -> dict[str, Any] | None:
        deadline = time.monotonic() + 120
        synced = False
        event = self.started_event(number)
        while not self.gone:
            if number in self.rounds:
                return self.rounds[number]
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), 0.5)
            if number in self.rounds:
                return self.rounds[number]
            known = self.room.round_info.get(number)
            if (
                known
                and not synced
                and isinstance(known.get("starts_at"), int)
                and time.time() > known["starts_at"] / 1000 + 1
            ):
                # Others have the round and it has started: this client missed the event.
                synced = True
                self.m.round_started_missed += 1
                state = await self.sync_state(30)
                round_ = state.get("round") if state else None
                if isinstance(round_, dict) and round_.get("number") == number:
                    self.rounds.setdefault(number, round_)
                    return round_
            if time.monotonic() > deadline:
                break
        self.m.round_never_started_for_client += 1
        return None

    async def play_round(self, number: int) -> None:
        await self.room.settled_event(number).wait()
        if number in self.room.start_failed or self.gone:
            return
        round_ = await self.wait_round_started(number)
        if round_ is None:
            return
        starts_at, ends_at = round_.get("starts_at"), round_.get("ends_at")
        if not isinstance(starts_at, int) or not isinstance(ends_at, int):
            self.m.odd["running round without starts_at/ends_at"] += 1
            return
        starts, ends = starts_at / 1000, ends_at / 1000
        self.ends_at[number] = ends
        await self.send_words(number, round_, starts, ends)
        await self.wait_round_end(number, ends)
        await self.drain(number, ends)

    async def send_words(
        self, number: int, round_: dict[str, Any], starts: float, ends: float
    ) -> None:
        args = self.run.args
        rng = self.run.rng
        fresh = list(self.run.solution(round_))
        rng.shuffle(fresh)
        used: list[str] = []
        interval = 1.0 / args.words_per_second
        scheduled = starts + rng.uniform(0.0, interval)
        k = 0
        while scheduled < ends and not self.gone:
            delay = scheduled - time.time()
            if delay > 0:
                await asyncio.sleep(delay)
            now = time.time()
            if now >= ends:
                break
            self.m.send_lag_ms.append((now - scheduled) * 1000)
            draw = rng.random()
            if draw < args.garbage_share or not (fresh or used):
                kind, word = "garbage", self.garbage(rng)
            elif (draw < args.garbage_share + args.repeat_share and used) or not fresh:
                kind, word = "repeat", rng.choice(used)
            else:
                kind, word = "real", fresh.pop()
                used.append(word)
            client_id = f"{self.id}-{number}-{k}"
            k += 1
            entry = Pending(word, number, time.perf_counter())
            self.pending[client_id] = entry
            self.typed[number] += 1
            self.outstanding[number] += 1
            self.m.words_sent[kind] += 1
            if not await self.send_entry(client_id, entry):
                self.m.words_unsent += 1
            scheduled += interval

    @staticmethod
    def garbage(rng: random.Random) -> str:
        letters = "".join(rng.choice(GARBAGE_LETTERS) for _ in range(rng.randint(4, 7)))
        return letters if rng.random() < 0.8 else letters[:2] + "1" + letters[2:]

    async def send_entry(self, client_id: str, entry: Pending) -> bool:
        now = time.time()
        sent = await self.send(
            {"type": "submit", "word": entry.word, "client_id": client_id, "request_id": client_id}
        )
        if sent and entry.first_sent_wall is None:
            entry.first_sent_wall = now
        return sent

    async def wait_round_end(self, number: int, ends: float) -> None:
        wait_until = ends + self.run.args.round_end_wait
        event = self.ended_event(number)
        while not event.is_set() and self.left_at is None and time.time() < wait_until:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), min(1.0, max(0.0, wait_until - time.time())))
        if self.left_at is not None:
            return  # left the table: learns nothing more
        arrived = self.round_ended_at.get(number)
        if arrived is not None and arrived <= wait_until:
            self.m.round_ended_ms.append((arrived - ends) * 1000)
            room_round = (self.room.code or "", number)
            self.m.round_ended_by_room.setdefault(room_round, []).append((arrived - ends) * 1000)
            await self.read_whole_results(number, ends)
            return
        self.round_end_given_up.add(number)
        self.m.round_ended_never += 1
        knew = number in self.learned_end
        state = await self.sync_state(max(5.0, ends + self.run.args.drain_seconds - time.time()))
        if not knew and number in self.learned_end:
            when, _ = self.learned_end[number]
            self.learned_end[number] = (
                when,
                f"the bench's own sync {self.run.args.round_end_wait:g} s after ends_at",
            )
        round_ = state.get("round") if state else None
        if (
            isinstance(round_, dict)
            and round_.get("number") == number
            and round_.get("status") == "ended"
        ):
            self.m.round_ended_by_sync += 1
        else:
            self.m.round_ended_not_even_sync += 1

    async def read_whole_results(self, number: int, ends: float) -> None:
        """Ask for the whole results after round.ended, as the room page does (docs/api.md,
        "round.ended"), and time the answer from the deadline."""
        answer = await self.request({"type": "results", "round_number": number}, 30)
        results = answer.get("results") if answer is not None else None
        if isinstance(results, dict) and isinstance(results.get("solution"), list):
            self.m.results_read_ms.append((time.time() - ends) * 1000)
        else:
            self.m.results_read_failed += 1

    async def drain(self, number: int, ends: float) -> None:
        deadline = ends + self.run.args.drain_seconds
        while self.outstanding[number] > 0 and time.time() < deadline and not self.gone:
            await asyncio.sleep(0.2)
        for client_id, entry in list(self.pending.items()):
            if entry.round_number == number:
                del self.pending[client_id]
                self.abandoned.add(client_id)
                self.unanswered.setdefault(number, []).append(entry)
                self.m.never_answered += 1
                if entry.first_sent_wall is None:
                    self.m.never_sent += 1
        self.outstanding[number] = 0
