"""Round-end benchmark: what ending many rooms at once costs a process, one by one or together.

    python bench/round_end.py [--rooms 125] [--room-size 8] [--words 25] [--repeat 2]

Rooms that start together end together (a class, a tournament, a load test). This plays
``--rooms`` rooms of ``--room-size`` players on a throwaway SQLite database (the embedded
default), each player entering ``--words`` words of the board and one garbage entry, then
ends every round twice over on fresh copies: one ``games.rounds.end_rounds`` call per room
(as the watcher did before batches), and ``rounds.ROUNDS_PER_BATCH`` rooms per call (as it
does now). It prints the wall time for all the rooms (the last room's wait), the time per
room, the statements, and the size of a room's ``round.ended`` frame. Events go nowhere
(no sockets): what is measured is the ending, scoring, results and encoding.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=125)
    parser.add_argument("--room-size", type=int, default=8)
    parser.add_argument("--words", type=int, default=25, help="words entered per player")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each way")
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="boggle-round-end-"))
    try:
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "boggle_site.settings")
        os.environ["DATABASE_URL"] = f"sqlite:///{folder}/played.sqlite3"
        os.environ.setdefault("DJANGO_LOG_LEVEL", "WARNING")
        import django

        django.setup()
        _run(args, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _run(args: argparse.Namespace, folder: Path) -> None:
    from django.core.management import call_command
    from django.db import connection, connections
    from django.test.utils import CaptureQueriesContext

    from games import events, live, rounds

    call_command("migrate", verbosity=0)
    round_ids = _play(args)
    live.flush_refused()  # the garbage entries, in the database every run starts from
    connections.close_all()
    played = folder / "played.sqlite3"
    frames: list[int] = []

    def measure_frame(
        group: str,
        handler: str,
        message: dict,
        personal: events.Personal | None = None,
        attach: dict | None = None,
    ) -> None:
        layer = events.layer_message(handler, message, personal)
        # What one socket of the room sends: the event, with one player's own part.
        someone = next(iter(personal[1]), None) if personal is not None else None
        frames.append(len(events.frame_text(layer, someone).encode()))

    events._deliver = measure_frame  # no sockets here: encode the frame, send nothing
    print(
        f"{args.rooms} rooms of {args.room_size} players, {args.words} words each; "
        f"load average {_load()}"
    )
    for attempt in range(args.repeat):
        for label, batch in (("one room a call", 1), ("together", rounds.ROUNDS_PER_BATCH)):
            copy = folder / f"run-{attempt}-{batch}.sqlite3"
            shutil.copyfile(played, copy)
            connections["default"].settings_dict["NAME"] = str(copy)
            connections.close_all()
            frames.clear()
            connection.queries_log.clear()  # the capture counts from the log's length
            with CaptureQueriesContext(connection) as statements:
                started = time.perf_counter()
                for start in range(0, len(round_ids), batch):
                    rounds.end_rounds(round_ids[start : start + batch], wait=False)
                elapsed_ms = (time.perf_counter() - started) * 1000
            print(
                f"  {label:>16}: all rooms ended in {elapsed_ms:,.0f} ms "
                f"({elapsed_ms / len(round_ids):.2f} ms a room), {len(statements):,} statements, "
                f"round.ended frame median {statistics.median(frames):,.0f} bytes "
                f"({len(frames)} frames); load average {_load()}"
            )


def _play(args: argparse.Namespace) -> list[int]:
    """The rooms, each with a running round in which every player entered their words."""
    from datetime import timedelta

    from asgiref.sync import async_to_sync
    from django.utils import timezone

    from games import rooms, rounds, words
    from games.models import Round
    from web import writers

    randomness = random.Random(1)
    round_ids = []
    for number in range(args.rooms):
        room, host = rooms.do_create_room(f"Host {number}", {"round_seconds": 60})
        players = [host] + [
            rooms.do_join_room(room, f"Player {i}") for i in range(args.room_size - 1)
        ]
        round_ = rounds.do_start_round(host)
        rounds.do_prepare_round(round_.id)
        Round.objects.filter(pk=round_.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
        on_board = [entry[0] for entry in Round.objects.get(pk=round_.pk).solution]
        for player in players:
            entries = [*randomness.sample(on_board, min(args.words, len(on_board))), "qzxv"]
            for entry in entries:
                with writers.on_calling_thread():
                    async_to_sync(words.submit)(room.id, player.id, entry, "", time.time())
        round_ids.append(round_.id)
    return round_ids


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    main()
