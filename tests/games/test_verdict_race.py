"""A word answered ``accepted`` is always in its round's results with its points: 1,000 races
between words and the end of their round, on real PostgreSQL, across processes.

The promise (``games.words``, ``games.rounds``): an accepted word is one INSERT, conditional
on the round still running, which share-locks the round's row; ending the round flips it with
a conditional UPDATE and scores in the same transaction. So either the end waits for the
word (and scores it) or the word waits for the end (and is answered ``round_over``), whichever
process ends the round and however the two interleave.

How it races. Three worker processes (this file run as a script, Django on a throwaway
PostgreSQL database, the in-memory channel layer) stand for web processes and the Celery
worker. Each trial is a room with three players and a running round whose deadline has just
passed. The workers load the round into memory (``games.live``) as a web process serving
the room does, so words are judged from memory. Then, from one common start signal, every
task of the trial runs in its own thread with its own connection after a random delay of a
few milliseconds:

- the players' words, from one worker or split over two (players on different web
  processes), each through ``do_submit_word`` or the socket path's own steps (memory,
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
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import select
import subprocess
import sys
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from solver.scoring import word_points
from tests.servers import throwaway_postgres_database

if TYPE_CHECKING:
    from games.words import SubmitResult

pytestmark = pytest.mark.integration

REPO_ROOT = Path(__file__).resolve().parents[2]

TRIALS = 1000
ROOMS_PER_BATCH = 8
WORKERS = 3
# Each task holds a connection while its batch runs: this bounds the test's connections
# (WORKERS x TASKS_PER_WORKER, plus one per worker) well under PostgreSQL's 100.
TASKS_PER_WORKER = 10
# The board of the other game tests (192 English words on it).
BOARD = "cats qiex dogz went"
PLAYERS = ("Ann", "Bob", "Cy")
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
# Bound on any one answer from a worker (seconds): a hung worker fails the test at last.
WAIT = 120.0
# How long a wait=False ender keeps retrying a round whose row stays locked (seconds).
ENDER_RETRY_SECONDS = 30.0


# ---------------------------------------------------------------- the worker processes


class RaceWorker:
    """One worker process: sets rooms up, runs its share of each batch's tasks in threads,
    and reads results back. Its methods are the commands the test sends (JSON lines)."""

    def __init__(self) -> None:
        self.ended_events: list[dict[str, Any]] = []
        self._events_lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._outcomes: list[dict[str, Any]] = []
        self._errors: list[str] = []
        self._go = threading.Event()
        self._start_at = 0.0
        self._capture_round_ended()

    def _capture_round_ended(self) -> None:
        """Keep the results of every round.ended this process sends (then send it)."""
        from games import events

        send = events.send_room_event_now

        def capture(code: str, message: dict[str, Any]) -> None:
            if message.get("type") == "round.ended":
                entries = scored_entries(message["results"])
                with self._events_lock:
                    self.ended_events.append({"code": code, "entries": entries})
            send(code, message)

        events.send_room_event_now = capture

    # -- commands

    def setup(self, trials: list[int]) -> list[dict[str, Any]]:
        """A room with three players and a round on BOARD per trial. Tasks run eagerly here,
        so each round is prepared (solved, counting down) when ``do_start_round`` returns."""
        from django.db import transaction

        from games import rooms, rounds
        from games.models import Round

        made = []
        for trial in trials:
            with transaction.atomic():  # one commit; the round is prepared after it
                room, host = rooms.do_create_room(PLAYERS[0])
                players = [host, *(rooms.do_join_room(room, name) for name in PLAYERS[1:])]
                rooms.do_set_next_board(host, BOARD)
                round_ = rounds.do_start_round(host)
            made.append(
                {
                    "trial": trial,
                    "room_id": room.pk,
                    "code": room.code,
                    "round_id": round_.id,
                    "players": [player.id for player in players],
                }
            )
        solutions = dict(
            Round.objects.filter(pk__in=[room["round_id"] for room in made]).values_list(
                "id", "solution"
            )
        )
        for room in made:
            room["solution"] = [entry[0] for entry in solutions[room["round_id"]]]
        return made

    def deadline(self, round_ids: list[int]) -> float:
        """The rounds' countdown is over and their deadline is now; returns it (epoch
        seconds)."""
        from datetime import timedelta

        from django.utils import timezone

        from games.models import Round

        now = timezone.now()
        running = Round.objects.filter(pk__in=round_ids, status=Round.Status.RUNNING)
        updated = running.update(starts_at=now - timedelta(seconds=5), ends_at=now)
        assert updated == len(round_ids), f"{updated} of {len(round_ids)} rounds running"
        return now.timestamp()

    def load(self, tasks: list[dict[str, Any]]) -> int:
        """Hold each task's round in memory, as a web process serving the room does, and
        start one thread per task: it connects, then waits for ``go``."""
        from games import words
        from games.live import LiveRound

        for room_id in {task["room_id"] for task in tasks}:
            assert isinstance(words.running_round(room_id), LiveRound), room_id
        self._go.clear()
        self._outcomes, self._errors = [], []
        with self._events_lock:
            self.ended_events = []
        connected = threading.Barrier(len(tasks) + 1)
        self._threads = [
            threading.Thread(target=self._run_task, args=(task, connected), daemon=True)
            for task in tasks
        ]
        for thread in self._threads:
            thread.start()
        try:
            connected.wait(timeout=WAIT)
        except threading.BrokenBarrierError:
            raise AssertionError("\n".join(self._errors) or "a task did not connect") from None
        return len(tasks)

    def go(self, start_at: float, then_set_up: list[int]) -> dict[str, Any]:
        """Run the loaded tasks from ``start_at`` (epoch seconds) and meanwhile set up the
        rooms of ``then_set_up`` (the next batch: this process is busy with other rooms, as
        a web process is); the tasks' outcomes, the round.ended results sent, the rooms."""
        self._start_at = start_at
        self._go.set()
        made = self.setup(then_set_up)
        for thread in self._threads:
            thread.join(timeout=WAIT)
            assert not thread.is_alive(), "a task did not finish"
        with self._events_lock:
            ended = list(self.ended_events)
        return {
            "outcomes": self._outcomes,
            "errors": self._errors,
            "ended_events": ended,
            "rooms": made,
        }

    def inspect(self, round_ids: list[int]) -> dict[str, Any]:
        """The rounds as stored now: each one's status, and their entries as rows of
        [round id, player id, word, verdict, points, cancelled]."""
        from games.models import Round, Submission

        statuses = Round.objects.filter(pk__in=round_ids).values_list("id", "status")
        rows = Submission.objects.filter(round_id__in=round_ids).values_list(
            "round_id", "player_id", "word", "verdict", "points", "cancelled"
        )
        return {"statuses": dict(statuses), "rows": [list(row) for row in rows]}

    # -- the threads

    def _run_task(self, task: dict[str, Any], connected: threading.Barrier) -> None:
        from django.db import connection, connections

        try:
            connection.ensure_connection()
            connected.wait(timeout=WAIT)
            self._go.wait(timeout=WAIT)
            outcomes = self._submit(task) if task["kind"] == "submit" else [self._end(task)]
            self._outcomes.extend(outcomes)  # list.extend is atomic under the GIL
        except BaseException:
            self._errors.append(traceback.format_exc())
            connected.abort()  # the batch fails at once instead of waiting for this thread
        finally:
            connections.close_all()

    def _sleep_until(self, offset: float) -> None:
        delay = self._start_at + offset - time.time()
        if delay > 0:
            time.sleep(delay)

    def _submit(self, task: dict[str, Any]) -> list[dict[str, Any]]:
        from games import live, words
        from games.models import Player

        deadline = task["deadline"]
        submit = submit_like_socket if task["socket_path"] else submit_synchronously
        outcomes = []
        for step in task["steps"]:
            self._sleep_until(step["at"])
            # Came in time (just before the deadline, written only now), or came late.
            received_at = time.time() if step["late"] else deadline - 0.01
            in_memory = live.cached(task["room_id"]) is not None
            started_at = time.time()
            player = Player(id=step["player"], room_id=task["room_id"])
            result = submit(player, step["word"], step["client_id"], received_at)
            assert result.verdict in {"accepted", words.ROUND_OVER}, result
            outcomes.append(
                {
                    "kind": "word",
                    "trial": task["trial"],
                    "player": step["player"],
                    "word": result.word,
                    "verdict": result.verdict,
                    "late": step["late"],
                    "in_memory": in_memory,
                    "started_at": started_at,
                    "finished_at": time.time(),
                }
            )
        return outcomes

    def _end(self, task: dict[str, Any]) -> dict[str, Any]:
        from games import rounds
        from games.models import Round

        self._sleep_until(task["at"])
        started_at = time.time()
        if task["wait"]:
            ended = rounds.do_end_round(task["round_id"], wait=True)
        else:
            # As the deadline watcher does: a round whose row another transaction holds is
            # left for now, and the next check ends it unless someone else did.
            ended = rounds.do_end_round(task["round_id"], wait=False)
            retry_until = time.monotonic() + ENDER_RETRY_SECONDS
            while not ended and time.monotonic() < retry_until:
                running = Round.objects.filter(pk=task["round_id"], status=Round.Status.RUNNING)
                if not running.exists():
                    break
                time.sleep(0.002)
                ended = rounds.do_end_round(task["round_id"], wait=False)
        return {
            "kind": "end",
            "trial": task["trial"],
            "wait": task["wait"],
            "ended": ended,
            "started_at": started_at,
            "finished_at": time.time(),
        }


def submit_synchronously(
    player: Any, entry: str, client_id: str, received_at: float
) -> SubmitResult:
    """``do_submit_word``: the path for synchronous callers."""
    from games import words

    return words.do_submit_word(player, entry, client_id, received_at=received_at)


def submit_like_socket(player: Any, entry: str, client_id: str, received_at: float) -> SubmitResult:
    """``games.words.submit`` without the event loop: the round from memory (rebuilt when
    missing), ``judge``, then ``store`` with the write counted in ``LiveRound.writing``."""
    from games import live, words

    entry, client_id = words.check_entry(entry, client_id)
    round_ = live.cached(player.room_id) or words.running_round(player.room_id)
    if round_ is None:
        return words.round_over(entry, client_id)
    outcome = words.judge(round_, player.id, entry, client_id, received_at)
    if isinstance(outcome, words.SubmitResult):
        return outcome
    round_.writing += 1
    try:
        return words.store(round_, player.id, outcome, client_id)
    finally:
        round_.writing -= 1


def scored_entries(results: dict[str, Any]) -> list[list[Any]]:
    """The accepted words in a round's results: [player id, word, points, cancelled]."""
    return [
        [player["id"], word["word"], word["points"], word["cancelled"]]
        for player in results["players"]
        for word in player["words"]
    ]


def worker_main() -> None:
    """Answer the test's commands, one JSON line each, until stdin closes."""
    import django

    django.setup()
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # anything else printed goes to the log, not among the replies
    worker = RaceWorker()
    commands: dict[str, Callable[..., Any]] = {
        "setup": worker.setup,
        "deadline": worker.deadline,
        "load": worker.load,
        "go": worker.go,
        "inspect": worker.inspect,
    }
    replies.write(json.dumps({"ok": os.getpid()}) + "\n")
    for line in sys.stdin:
        request = json.loads(line)
        try:
            reply = {"ok": commands[request["cmd"]](**request["args"])}
        except BaseException:
            reply = {"error": traceback.format_exc()}
        replies.write(json.dumps(reply) + "\n")


# ---------------------------------------------------------------- the test's side


class Worker:
    """A worker subprocess, spoken to in JSON lines; its stderr goes to a log file."""

    def __init__(self, name: str, env: dict[str, str], log: Path) -> None:
        self.name = name
        self.log = log
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, str(Path(__file__).resolve())],
                cwd=REPO_ROOT,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=out,
            )
        self._buffer = b""

    def send(self, cmd: str, **args: Any) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write((json.dumps({"cmd": cmd, "args": args}) + "\n").encode())
        self.process.stdin.flush()

    def receive(self) -> Any:
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        give_up = time.monotonic() + WAIT
        while b"\n" not in self._buffer:
            remaining = give_up - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"{self.name}: no answer within {WAIT} s\n{self.output()}")
            readable, _, _ = select.select([fd], [], [], remaining)
            if readable:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise AssertionError(f"{self.name} exited:\n{self.output()}")
                self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        reply = json.loads(line)
        if "error" in reply:
            raise AssertionError(f"{self.name} failed:\n{reply['error']}")
        return reply["ok"]

    def stop(self) -> None:
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-5000:]


def ask_all(workers: list[Worker], cmd: str, args: list[dict[str, Any]]) -> list[Any]:
    """Send each worker its command, then collect the answers (the workers run in parallel)."""
    for worker, worker_args in zip(workers, args, strict=True):
        worker.send(cmd, **worker_args)
    return [worker.receive() for worker in workers]


@contextlib.contextmanager
def started_workers(env: dict[str, str], logs: Path) -> Iterator[list[Worker]]:
    workers = [Worker(f"worker-{n}", env, logs / f"worker-{n}.log") for n in range(WORKERS)]
    try:
        for worker in workers:
            worker.receive()  # Django is set up
        yield workers
    finally:
        for worker in workers:
            worker.stop()
        for worker in workers:
            print(f"--- {worker.name} log (end)\n{worker.output()}")


def worker_env(database_url: str) -> dict[str, str]:
    """Production's database with the embedded rest: in-memory channel layer, eager tasks
    (so no end task is scheduled: only this test's enders end rounds)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "BOGGLE_", "REDIS_", "DATABASE_"))
    }
    return env | {
        "DATABASE_URL": database_url,
        # Room for every thread of a batch, even past TASKS_PER_WORKER: no task waits for a
        # pooled connection.
        "DATABASE_POOL_SIZE": str(4 * ROOMS_PER_BATCH + 1),
        "DJANGO_SECRET_KEY": "test-only-key",
        "DJANGO_SETTINGS_MODULE": "boggle_site.settings",
        "DJANGO_LOG_LEVEL": "WARNING",
        "BOGGLE_DICTIONARY_DIR": str(REPO_ROOT / "var" / "dictionaries"),
        "PYTHONPATH": str(REPO_ROOT),
        "PYTHONUNBUFFERED": "1",
    }


def migrate(env: dict[str, str]) -> None:
    result = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert result.returncode == 0, f"migrate failed:\n{result.stdout}\n{result.stderr}"


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


if __name__ == "__main__":
    worker_main()
