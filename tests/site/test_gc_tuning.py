"""web.gc_tuning.collection_paused: no cyclic collection inside, in any thread, until the
last of several overlapping blocks ends; the collector's state before is what comes back."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from web.gc_tuning import collection_paused


@pytest.fixture(autouse=True)
def collector_restored() -> Iterator[None]:
    was_enabled = gc.isenabled()
    yield
    if was_enabled:
        gc.enable()
    else:
        gc.disable()


def test_the_collector_is_paused_inside_and_runs_again_after() -> None:
    gc.enable()
    with collection_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_failing_block_restores_the_collector() -> None:
    gc.enable()
    with pytest.raises(ValueError), collection_paused():
        raise ValueError("the block failed")
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    with collection_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_overlapping_blocks_in_two_threads_resume_it_when_the_last_ends() -> None:
    gc.enable()
    inside, release = threading.Event(), threading.Event()
    seen_in_thread: list[bool] = []

    def other_block() -> None:
        with collection_paused():
            inside.set()
            release.wait(timeout=30)
            seen_in_thread.append(gc.isenabled())

    thread = threading.Thread(target=other_block)
    thread.start()
    assert inside.wait(timeout=30)
    with collection_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()  # the other thread's block still runs
    release.set()
    thread.join(timeout=30)
    assert seen_in_thread == [False]
    assert gc.isenabled()
