"""The word path's INSERT: CPU per statement with the parameters quoted into the SQL text
(Django's psycopg cursor) and sent apart (``web.bound_cursor``, as the site runs it).

    python bench/word_insert.py [--batches 2000] [--sizes 1,2,4,8] [--repeat 2]

Why: the batched INSERT of accepted words (``games.words._insert_if_running``) runs hundreds
of times a second per web process at 1,000 players, and psycopg's client-side quoting of its
parameters showed in the web processes' profiles (docs/performance.md). This creates a
throwaway PostgreSQL database on ``--postgres-url`` (its own name, dropped at the end;
nothing else is touched), migrates it, starts a round in each of a few rooms, and writes
``--batches`` batches of each size through the site's own function, once with each cursor,
alternating ``--repeat`` times; it prints the process's CPU per statement and per word
(``time.process_time``: the client's side, which is the web process's cost) and the wall
time, with the load average.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import sys
import time
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

BOARD = "cats qiex dogz went"
ROOMS = 8


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=2000, help="statements per measurement")
    parser.add_argument("--sizes", default="1,2,4,8", help="words per statement")
    parser.add_argument("--repeat", type=int, default=2, help="alternations of the two cursors")
    parser.add_argument(
        "--postgres-url",
        default="postgresql://postgres@127.0.0.1:5432/postgres",
        help="where to create (and drop) the throwaway database",
    )
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]

    import psycopg
    from psycopg import sql

    name = f"boggle_word_insert_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(args.postgres_url, autocommit=True, connect_timeout=5) as conn:
        conn.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
    try:
        os.environ.update(
            DJANGO_SETTINGS_MODULE="boggle_site.settings",
            DATABASE_URL=args.postgres_url.rsplit("/", 1)[0] + "/" + name,
            DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
            DJANGO_LOG_LEVEL="WARNING",
            CELERY_TASK_ALWAYS_EAGER="1",
        )
        os.environ.pop("REDIS_URL", None)
        import django

        django.setup()
        _run(sizes, args.batches, args.repeat)
    finally:
        from django.db import connections

        connections.close_all()
        with psycopg.connect(args.postgres_url, autocommit=True, connect_timeout=5) as conn:
            conn.execute(
                sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name))
            )
        print(f"database {name} dropped")


def _run(sizes: list[int], batches: int, repeat: int) -> None:
    from django.core.management import call_command
    from django.db import connection

    from games import words

    call_command("migrate", verbosity=0)
    players = [player for n in range(ROOMS) for player in _room_of(n)]
    serial = iter(range(10**9))

    @contextlib.contextmanager
    def quoted_cursor(db: Any) -> Iterator[Any]:  # Django's own: client-side binding
        with db.cursor() as cursor:
            yield cursor

    shipped = words.bound_cursor
    print(f"load average {os.getloadavg()}")
    print(
        f"{'words per statement':>20} {'cursor':>22} {'CPU us/statement':>17} "
        f"{'CPU us/word':>12} {'wall us/statement':>18}"
    )
    for size in sizes:
        for _ in range(repeat):
            for label, cursor in (
                ("quoted (Django's)", quoted_cursor),
                ("bound (the site's)", shipped),
            ):
                words.bound_cursor = cursor
                try:
                    cpu, wall = _measure(connection, players, size, batches, serial)
                finally:
                    words.bound_cursor = shipped
                print(f"{size:>20} {label:>22} {cpu:>17.0f} {cpu / size:>12.0f} {wall:>18.0f}")
    print(f"load average {os.getloadavg()}")


def _measure(
    db: Any, players: list[Any], size: int, batches: int, serial: Iterator[int]
) -> tuple[float, float]:
    """CPU and wall microseconds per statement over ``batches`` statements of ``size`` new
    accepted words, players taken in turn."""
    from games import words
    from solver.judge import Judgement, Verdict

    lives = {player.room_id: words.running_round(player.room_id) for player in players}
    entries_of = []
    for _ in range(batches):
        batch = []
        for _ in range(size):
            n = next(serial)
            player = players[n % len(players)]
            judgement = Judgement(f"w{n}", Verdict.ACCEPTED)
            batch.append(
                words.Entry(lives[player.room_id], player.id, judgement, f"c{n}", None, time.time())
            )
        entries_of.append(batch)
    cpu, wall = time.process_time(), time.perf_counter()
    for batch in entries_of:
        written = words._insert_if_running(db, batch)
        assert sum(written.values()) == size, written
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return 1e6 * cpu / batches, 1e6 * wall / batches


def _room_of(n: int) -> list[Any]:
    """A room of four with a round running for a long while."""
    from django.utils import timezone

    from games import rooms, rounds
    from games.models import Round

    room, host = rooms.do_create_room(f"Host{n}", {})
    players = [host, *(rooms.do_join_room(room, name) for name in ("Ann", "Bob", "Cid"))]
    rooms.do_set_next_board(host, BOARD)
    round_ = rounds.do_start_round(host)
    round_.refresh_from_db()
    if round_.status == Round.Status.PREPARING:
        assert rounds.do_prepare_round(round_.id)
    now = timezone.now()
    Round.objects.filter(pk=round_.pk).update(
        starts_at=now - timedelta(seconds=1), ends_at=now + timedelta(hours=1)
    )
    return players


if __name__ == "__main__":
    main()
