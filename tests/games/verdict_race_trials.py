"""The plan of tests/games/test_verdict_race.py's trials and what each must show: which
worker runs which task when (``plan_trial``), what happened (``count_trial``) and every
broken promise with its evidence (``check_trial``), tallied (``Tally``).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from solver.scoring import word_points

TRIALS = 1000
ROOMS_PER_BATCH = 8
WORKERS = 3
# Each task holds a connection while its batch runs: this bounds the test's connections
# (WORKERS x TASKS_PER_WORKER, plus one per worker) well under PostgreSQL's 100.
TASKS_PER_WORKER = 10
# Each trial draws a pool of words from the board's solution and each player enters some of
# them: players share words, so cancelled duplicates are scored too.
WORD_POOL = 10
WORDS_PER_PLAYER = 5
# Share of entries that reach the server after the deadline (answered round_over unjudged).
LATE_SHARE = 0.1
# Random delays after the start signal (seconds): the first word, between words, the enders.
FIRST_WORD_WITHIN = 0.03
WORD_GAP_WITHIN = 0.006
END_WITHIN = 0.05
TWO_ENDERS_SHARE = 1 / 3
TWO_SUBMITTERS_SHARE = 1 / 2
# From the start signal to the common start instant (seconds): the signal reaches every worker.
START_DELAY = 0.03


def pick_workers(rng: random.Random, load: Counter[int], count: int) -> list[int]:
    """``count`` distinct workers at random, among those with fewer than TASKS_PER_WORKER
    tasks in the batch while there are enough of them; counted in ``load``."""
    under = [worker for worker in range(WORKERS) if load[worker] < TASKS_PER_WORKER]
    if len(under) < count:
        under = sorted(range(WORKERS), key=lambda worker: load[worker])[:count]
    picked = rng.sample(under, count)
    load.update(picked)
    return picked


def plan_trial(
    rng: random.Random, room: dict[str, Any], deadline: float, load: Counter[int]
) -> list[tuple[int, dict[str, Any]]]:
    """The trial's tasks, each with the worker that runs it: the players' words from one
    worker or two, then one or two enders anywhere, every one after its own delay."""
    trial = room["trial"]
    pool = rng.sample(room["solution"], WORD_POOL)
    submitters = pick_workers(rng, load, 2 if rng.random() < TWO_SUBMITTERS_SHARE else 1)
    steps_by_worker: dict[int, list[dict[str, Any]]] = {worker: [] for worker in submitters}
    for index, player in enumerate(room["players"]):
        for word in rng.sample(pool, WORDS_PER_PLAYER):
            steps_by_worker[submitters[index % len(submitters)]].append(
                {
                    "player": player,
                    "word": word,
                    "client_id": f"{trial}-{player}-{word}",
                    "late": rng.random() < LATE_SHARE,
                }
            )
    tasks: list[tuple[int, dict[str, Any]]] = []
    for worker, steps in steps_by_worker.items():
        rng.shuffle(steps)  # the players' words interleave
        at = rng.uniform(0, FIRST_WORD_WITHIN)
        for step in steps:
            step["at"] = at
            at += rng.uniform(0, WORD_GAP_WITHIN)
        tasks.append(
            (
                worker,
                {
                    "kind": "submit",
                    "trial": trial,
                    "room_id": room["room_id"],
                    "deadline": deadline,
                    "socket_path": rng.random() < 0.5,
                    "steps": steps,
                },
            )
        )
    # Alternate the first ender's kind; a second one (of either kind) races it at times.
    waits = [trial % 2 == 0]
    if rng.random() < TWO_ENDERS_SHARE:
        waits.append(rng.random() < 0.5)
    for wait in waits:
        ender = {
            "kind": "end",
            "trial": trial,
            "room_id": room["room_id"],
            "round_id": room["round_id"],
            "wait": wait,
            "at": rng.uniform(0, END_WITHIN),
        }
        tasks.append((pick_workers(rng, load, 1)[0], ender))
    return tasks


class Broken(StrEnum):
    """What check_trial looks for; the summary prints each count, zeros included."""

    MISSING_FROM_RESULTS = "accepted words missing from the round.ended results"
    NOT_STORED = "accepted words not stored"
    UNSCORED = "accepted words stored with NULL points"
    MISCORED = "accepted words scored off the scoring table"
    LATE_STORED = "round_over words stored as accepted"
    NOT_ACCEPTED = "words accepted in the results or rows but not answered accepted"
    POINTS_DIFFER = "words whose points in the results differ from the stored ones"
    NOT_ENDED = "rounds not ended after their enders returned"
    NOT_ENDED_ONCE = "rounds ended more or less than once"
    NOT_ONE_EVENT = "rounds with more or less than one round.ended event"


@dataclass
class Tally:
    """What the trials did, and every broken promise found with its evidence."""

    trials: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    broken: Counter[Broken] = field(default_factory=lambda: Counter(dict.fromkeys(Broken, 0)))
    evidence: list[str] = field(default_factory=list)

    def summary(self) -> str:
        lines = [f"trials: {self.trials}"]
        lines += [f"  {name}: {count}" for name, count in sorted(self.counts.items())]
        lines.append("broken promises:")
        lines += [f"  {kind.value}: {count}" for kind, count in self.broken.items()]
        return "\n".join(lines)


def count_trial(tally: Tally, outcomes: list[dict[str, Any]], same_process_ender: bool) -> None:
    """What happened in a trial: how its words were answered, when against the end, by
    which enders."""
    words = [o for o in outcomes if o["kind"] == "word"]
    enders = [o for o in outcomes if o["kind"] == "end"]
    in_time = [o for o in words if not o["late"]]
    tally.trials += 1
    tally.counts["words entered"] += len(words)
    tally.counts["words answered accepted"] += sum(o["verdict"] == "accepted" for o in words)
    tally.counts["accepted words judged from memory"] += sum(
        o["in_memory"] for o in words if o["verdict"] == "accepted"
    )
    tally.counts["late words answered round_over"] += sum(
        o["verdict"] == "round_over" for o in words if o["late"]
    )
    verdicts = {o["verdict"] for o in in_time}
    if {"accepted", "round_over"} <= verdicts:
        tally.counts["trials where the end fell among the words"] += 1
    tally.counts[f"trials with {len(enders)} ender(s)"] += 1
    if same_process_ender:
        tally.counts["trials with an ender in a submitting process"] += 1
    for ender in (o for o in enders if o["ended"]):
        tally.counts[f"trials ended by wait={ender['wait']}"] += 1
        # When each in-time word was answered, against the call that ended the round (one
        # machine, one clock).
        for o in in_time:
            if o["finished_at"] < ender["started_at"]:
                when = "answered before the end was called"
            elif o["started_at"] > ender["finished_at"]:
                when = "sent after the end returned"
            else:
                when = "overlapping the end"
            tally.counts[f"in-time words answered {o['verdict']} ({when})"] += 1


def check_trial(
    tally: Tally,
    room: dict[str, Any],
    outcomes: list[dict[str, Any]],
    ended_events: list[dict[str, Any]],
    status: str,
    rows: list[list[Any]],
) -> None:
    """Every word answered accepted is in the results the ending process sent (its
    ``state.results``) and stored with its points from the scoring table; no other word is
    accepted; the round ended once, with one round.ended."""

    def broken(kind: Broken, detail: str) -> None:
        tally.broken[kind] += 1
        tally.evidence.append(f"trial {room['trial']} (round {room['round_id']}): {detail}")

    words = [o for o in outcomes if o["kind"] == "word"]
    enders = [o for o in outcomes if o["kind"] == "end"]
    accepted = {(o["player"], o["word"]) for o in words if o["verdict"] == "accepted"}
    round_over = {(o["player"], o["word"]) for o in words if o["verdict"] == "round_over"}
    if status != "ended":
        broken(Broken.NOT_ENDED, f"the round is {status!r}")
    if sum(o["ended"] for o in enders) != 1:
        broken(Broken.NOT_ENDED_ONCE, f"its enders returned {[o['ended'] for o in enders]}")
    sent = [event for event in ended_events if event["code"] == room["code"]]
    if len(sent) != 1:
        broken(Broken.NOT_ONE_EVENT, f"{len(sent)} round.ended events")

    stored = {
        (player, word): (points, cancelled)
        for player, word, verdict, points, cancelled in rows
        if verdict == "accepted"
    }
    finders = Counter(word for _, word in stored)
    for player, word in sorted(accepted - set(stored)):
        broken(Broken.NOT_STORED, f"{word!r} of player {player}: accepted, not stored")
    for player, word in sorted(round_over & set(stored)):
        broken(Broken.LATE_STORED, f"{word!r} of player {player}: round_over, stored")
    for player, word in sorted(set(stored) - accepted - round_over):
        broken(Broken.NOT_ACCEPTED, f"{word!r} of player {player}: stored, never answered")
    for (player, word), (points, cancelled) in sorted(stored.items()):
        cancel = finders[word] > 1
        expected = (0 if cancel else word_points(len(word)), cancel)
        if points is None:
            broken(Broken.UNSCORED, f"{word!r} of player {player}: stored with NULL points")
        elif (points, cancelled) != expected:
            broken(Broken.MISCORED, f"{word!r} of player {player}: {points, cancelled}")

    shown = (
        {(player, word): points for player, word, points, _ in sent[0]["entries"]} if sent else {}
    )
    for player, word in sorted(accepted - set(shown)):
        broken(Broken.MISSING_FROM_RESULTS, f"{word!r} of player {player}: accepted, not shown")
    for player, word in sorted(set(shown) - accepted):
        broken(Broken.NOT_ACCEPTED, f"{word!r} of player {player}: shown, not accepted")
    for key, points in sorted(shown.items()):
        if key in stored and stored[key][0] != points:
            broken(Broken.POINTS_DIFFER, f"{key}: {points} shown, {stored[key][0]} stored")
