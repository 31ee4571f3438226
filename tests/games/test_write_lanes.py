"""Word-path writes go in batches (web.writers.GroupCommit) that take turns per client
address: one address's backlog waits behind itself, not in front of other players' words,
and one item's failure is that item's alone."""

from __future__ import annotations

import asyncio
import threading

import pytest
from django.db import DataError

from web import writers


class Recorder:
    """A batch writer that records its batches; the first batch waits for ``release``."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.release = threading.Event()
        self.started = threading.Event()

    def __call__(self, items: list[str]) -> list[str | Exception]:
        self.started.set()
        if not self.batches:
            self.release.wait(10)
        self.batches.append(list(items))
        return [item.upper() for item in items]


async def _wait_for(event: threading.Event) -> None:
    await asyncio.get_running_loop().run_in_executor(None, event.wait, 10)


async def test_items_waiting_together_go_in_one_batch_and_each_gets_its_outcome() -> None:
    recorder = Recorder()
    commit: writers.GroupCommit[str, str] = writers.GroupCommit(recorder)
    first = asyncio.create_task(commit.write(None, "first"))
    await _wait_for(recorder.started)  # the first batch is on a thread: the rest wait
    rest = [asyncio.create_task(commit.write(None, f"w{index}")) for index in range(5)]
    await asyncio.sleep(0)
    assert commit.waiting() == 5
    recorder.release.set()
    assert await first == "FIRST"
    assert await asyncio.gather(*rest) == [f"W{index}" for index in range(5)]
    assert recorder.batches == [["first"], [f"w{index}" for index in range(5)]]


async def test_a_batch_takes_at_most_its_share_of_one_address() -> None:
    recorder = Recorder()
    commit: writers.GroupCommit[str, str] = writers.GroupCommit(recorder, per_lane=2)
    blocker = asyncio.create_task(commit.write("someone", "blocker"))
    await _wait_for(recorder.started)
    mob = [asyncio.create_task(commit.write("mob", f"mob{index}")) for index in range(6)]
    await asyncio.sleep(0)
    other = asyncio.create_task(commit.write("other", "other"))
    recorder.release.set()
    await asyncio.gather(blocker, other, *mob)
    # The mob's six words in batches of two, the other address's word in the first of them.
    assert recorder.batches[1] == ["mob0", "mob1", "other"]
    assert recorder.batches[2:] == [["mob2", "mob3"], ["mob4", "mob5"]]
    assert commit.waiting() == 0


async def test_one_items_error_is_its_own() -> None:
    def write(items: list[str]) -> list[str | Exception]:
        return [ValueError(item) if item == "bad" else item for item in items]

    commit: writers.GroupCommit[str, str] = writers.GroupCommit(write)
    good, bad = commit.write(None, "good"), commit.write(None, "bad")
    outcomes = await asyncio.gather(good, bad, return_exceptions=True)
    assert outcomes[0] == "good"
    assert isinstance(outcomes[1], ValueError)


async def test_a_batch_the_database_refuses_is_written_item_by_item() -> None:
    """A value the database will not store fails its own entry, not the batch's others."""
    batches: list[list[str]] = []
    gate, started = threading.Event(), threading.Event()

    def write(items: list[str]) -> list[str | Exception]:
        started.set()
        if not batches:
            gate.wait(10)
        batches.append(list(items))
        if "poison" in items:
            raise DataError("invalid byte sequence")
        return list(items)

    commit: writers.GroupCommit[str, str] = writers.GroupCommit(write)
    first = asyncio.create_task(commit.write(None, "first"))
    await _wait_for(started)
    rest = [asyncio.create_task(commit.write(None, item)) for item in ["a", "poison", "b"]]
    await asyncio.sleep(0)
    gate.set()
    assert await first == "first"
    assert await rest[0] == "a" and await rest[2] == "b"
    with pytest.raises(DataError):
        await rest[1]
    assert batches[1:] == [["a", "poison", "b"], ["a"], ["poison"], ["b"]]
