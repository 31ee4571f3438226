"""The worker processes of tests/games/test_verdict_race.py: this file run as a script,
Django on the race's throwaway PostgreSQL database, stands for a web process (or the Celery
worker). It answers the test's commands (JSON lines on stdin, ``worker_main``): set rooms
up, move their deadline, load a batch's tasks into threads, run them from a common start,
and read the rounds back. ``verdict_race_processes.Worker`` starts and speaks to it.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from games.words import SubmitResult

# The board of the other game tests (192 English words on it).
BOARD = "cats qiex dogz went"
PLAYERS = ("Ann", "Bob", "Cy")
# Bound on any one answer from a worker (seconds): a hung worker fails the test at last.
WAIT = 120.0
# How long a wait=False ender keeps retrying a round whose row stays locked (seconds).
ENDER_RETRY_SECONDS = 30.0


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

        def capture(
            code: str,
            message: dict[str, Any],
            personal: events.Personal | None = None,
            attach: dict[str, Any] | None = None,
        ) -> None:
            if message.get("type") == "round.ended":
                assert personal is not None  # each player's own words
                entries = scored_entries(personal[1])
                with self._events_lock:
                    self.ended_events.append({"code": code, "entries": entries})
            send(code, message, personal, attach)

        events.send_room_event_now = capture

    # -- commands

    def setup(self, trials: list[int]) -> list[dict[str, Any]]:
        """A room with three players and a round on BOARD per trial. Tasks run eagerly here,
        so each round is prepared (solved, counting down) when ``do_start_round`` returns."""
        from django.db import transaction

        from games import rooms, rounds
        from games.models import Round

        made: list[dict[str, Any]] = []
        for trial in trials:
            with transaction.atomic():  # one commit for the room and its players
                room, host = rooms.do_create_room(PLAYERS[0])
                players = [host, *(rooms.do_join_room(room, name) for name in PLAYERS[1:])]
            rooms.do_set_next_board(host, BOARD)  # a whole action: its own transaction
            round_ = rounds.do_start_round(host)  # prepared once it returns
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
            Round.objects.filter(pk__in=[set_up["round_id"] for set_up in made]).values_list(
                "id", "solution"
            )
        )
        for set_up in made:
            set_up["solution"] = [entry[0] for entry in solutions[set_up["round_id"]]]
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
    """``games.words.submit`` itself, the socket's coroutine, run from this thread
    (``tests.games.words_helpers.submit_word``: its database work on this thread's
    connection)."""
    from tests.games.words_helpers import submit_word

    return submit_word(player, entry, client_id, received_at=received_at)


def submit_like_socket(player: Any, entry: str, client_id: str, received_at: float) -> SubmitResult:
    """``games.words.submit``'s steps without an event loop: the round from memory (rebuilt
    when missing), ``judge``, then ``store`` with the write counted in ``LiveRound.writing``."""
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
        entry_to_write = words.Entry(round_, player.id, outcome, client_id, None)
        (answer,) = words.store([entry_to_write])
        if isinstance(answer, Exception):
            raise answer
        return answer
    finally:
        round_.writing -= 1


def scored_entries(own_results: dict[int, dict[str, Any]]) -> list[list[Any]]:
    """The accepted words of ``round.ended``'s players' own results (its ``mine``, by
    player id): [player id, word, points, cancelled]."""
    return [
        [player_id, word["word"], word["points"], word["cancelled"]]
        for player_id, mine in own_results.items()
        for word in mine["words"]
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


if __name__ == "__main__":
    worker_main()
