"""A word answered ``accepted`` is always in its round's results with its points: 1,000 races
between words and the end of their round, on real PostgreSQL, across processes.

The promise (``games.words``, ``games.rounds``): an accepted word is one INSERT, conditional
on the round still running, which share-locks the round's row; ending the round flips it with
a conditional UPDATE and scores in the same transaction. So either the end waits for the
word (and scores it) or the word waits for the end (and is answered ``round_over``), whichever
process ends the round and however the two interleave.

How it races. Three worker processes (tests/games/verdict_race_worker.py run as a script,
Django on a throwaway PostgreSQL database, the in-memory channel layer) stand for web
processes and the Celery worker. Each trial is a room with three players and a running round whose deadline has just
passed. The workers load the round into memory (``games.live``) as a web process serving
the room does, so words are judged from memory. Then, from one common start signal, every
task of the trial runs in its own thread with its own connection after a random delay of a
few milliseconds:

- the players' words, from one worker or split over two (players on different web
  processes), each through ``games.words.submit`` itself (run from the task's thread,
  ``tests.games.words_helpers.submit_word``) or its steps without an event loop (memory,
  ``judge``, ``store``, with ``LiveRound.writing`` counted around the write): words that
  reached the server before the deadline and are written now, and a few that came late;
- one or two enders, in the same or other workers: ``do_end_round(wait=True)`` (the host's
  stop) and ``do_end_round(wait=False)`` (the deadline watchers and the end task, retried as
  the watcher would while another transaction holds the round's row).

Batches of rooms race side by side, and the next batch's rooms are set up meanwhile. Per
trial the test checks: the round ended once, with one ``round.ended``; every word answered
``accepted`` is in the results that event carried (``state.results`` of whichever process
ended the round) and stored with non-NULL points from the scoring table (0 when a duplicate
cancelled it); no other word is accepted; no word answered ``round_over`` was stored. The
plan is random: the seed is printed, and BOGGLE_RACE_SEED replays a plan (not its timing).

The parts: the worker process (verdict_race_worker.py), starting and speaking to it
(verdict_race_processes.py), the trials' plan and checks (verdict_race_trials.py); here, the
race batch by batch and the test.
"""

from __future__ import annotations

import os
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.games.verdict_race_processes import Worker, ask_all, migrate, started_workers, worker_env
from tests.games.verdict_race_trials import (
    ROOMS_PER_BATCH,
    START_DELAY,
    TRIALS,
    WORKERS,
    Tally,
    check_trial,
    count_trial,
    plan_trial,
)
from tests.servers import throwaway_postgres_database

pytestmark = pytest.mark.integration


def race(workers: list[Worker], rng: random.Random) -> Tally:
    """Race the trials batch by batch (each batch's rooms set up while the previous batch
    races); the tally of all trials."""

    def shares(items: list[int]) -> list[list[int]]:
        return [items[n::WORKERS] for n in range(WORKERS)]

    trials = list(range(TRIALS))
    batches = [
        trials[first : first + ROOMS_PER_BATCH] for first in range(0, TRIALS, ROOMS_PER_BATCH)
    ]
    made = ask_all(workers, "setup", [{"trials": share} for share in shares(batches[0])])
    rooms = [room for share in made for room in share]
    tally = Tally()
    for following in [*batches[1:], []]:
        batch = sorted(rooms, key=lambda room: room["trial"])
        round_ids = [room["round_id"] for room in batch]
        workers[0].send("deadline", round_ids=round_ids)
        deadline = workers[0].receive()
        tasks: list[list[dict[str, Any]]] = [[] for _ in workers]
        load: Counter[int] = Counter()
        same_process: set[int] = set()
        for room in batch:
            planned = plan_trial(rng, room, deadline, load)
            for worker, task in planned:
                tasks[worker].append(task)
            submitting = {worker for worker, task in planned if task["kind"] == "submit"}
            if any(task["kind"] == "end" and worker in submitting for worker, task in planned):
                same_process.add(room["trial"])
        ask_all(workers, "load", [{"tasks": worker_tasks} for worker_tasks in tasks])
        # All threads are connected and waiting: they start together, a moment from now.
        start_at = time.time() + START_DELAY
        ran = ask_all(
            workers,
            "go",
            [{"start_at": start_at, "then_set_up": share} for share in shares(following)],
        )
        errors = [error for answer in ran for error in answer["errors"]]
        assert not errors, "\n".join(errors)
        outcomes = [outcome for answer in ran for outcome in answer["outcomes"]]
        ended_events = [event for answer in ran for event in answer["ended_events"]]
        rooms = [room for answer in ran for room in answer["rooms"]]
        workers[0].send("inspect", round_ids=round_ids)
        stored = workers[0].receive()
        for room in batch:
            mine = [outcome for outcome in outcomes if outcome["trial"] == room["trial"]]
            rows = [row[1:] for row in stored["rows"] if row[0] == room["round_id"]]
            status = stored["statuses"][str(room["round_id"])]
            count_trial(tally, mine, room["trial"] in same_process)
            check_trial(tally, room, mine, ended_events, status, rows)
    return tally


def test_an_accepted_word_is_always_scored_whoever_ends_the_round(
    postgres_url: str, tmp_path: Path
) -> None:
    seed = int(os.environ.get("BOGGLE_RACE_SEED", random.randrange(1 << 32)))
    print(f"seed: {seed} (BOGGLE_RACE_SEED={seed} replays the same plan)")
    started = time.monotonic()
    with throwaway_postgres_database(postgres_url) as database_url:
        env = worker_env(database_url)
        migrate(env)
        with started_workers(env, tmp_path) as workers:
            tally = race(workers, random.Random(seed))
    print(tally.summary())
    print(f"took {time.monotonic() - started:.1f} s")
    assert tally.trials == TRIALS
    assert tally.counts["words answered accepted"] > 0
    assert tally.counts["trials where the end fell among the words"] > 0
    assert not tally.evidence, "\n".join(tally.evidence[:50])
