"""Daily leaderboard benchmark: what ``GET /api/daily``'s leaderboard queries cost as a
date's results grow (docs/scaling.md, "The daily board").

    python bench/leaderboard.py [--rows 10000,100000,1000000] [--repeat 5]

Everybody plays the same daily board, so its leaderboard is one ranking that every page
of the daily board reads: ``GET /api/daily`` runs ``daily.leaderboard.top`` (the first 50),
``entries(day).count()`` (how many are listed) and, for a device that played,
``rank_of`` (how many are ahead of it). This creates a throwaway PostgreSQL database on
``--postgres-url`` (its own name, dropped at the end; nothing else is touched), migrates
it, fills ``daily_dailyscore`` for one date up to each ``--rows`` in turn (points drawn as
a long tail, 0 points unlisted, as ``daily.attempts`` stores them), and prints the median
wall time of each query over ``--repeat`` calls through the site's own functions (the
ORM, one connection; warm cache: every page after the first reads the same rows), with
the query plan's top node.
"""

from __future__ import annotations

import argparse
import functools
import os
import secrets
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

DAY = date(2030, 1, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="10000,100000,1000000", help="results of the date")
    parser.add_argument("--repeat", type=int, default=5, help="calls of each query")
    parser.add_argument(
        "--postgres-url",
        default="postgresql://postgres@127.0.0.1:5432/postgres",
        help="where to create (and drop) the throwaway database",
    )
    args = parser.parse_args()
    sizes = sorted(int(size) for size in args.rows.split(","))

    import psycopg
    from psycopg import sql

    name = f"boggle_leaderboard_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(args.postgres_url, autocommit=True, connect_timeout=5) as conn:
        conn.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
    try:
        os.environ.update(
            DJANGO_SETTINGS_MODULE="boggle_site.settings",
            DATABASE_URL=args.postgres_url.rsplit("/", 1)[0] + "/" + name,
            DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
            DJANGO_LOG_LEVEL="WARNING",
        )
        os.environ.pop("REDIS_URL", None)
        import django

        django.setup()
        _run(sizes, args.repeat)
    finally:
        from django.db import connections

        connections.close_all()
        with psycopg.connect(args.postgres_url, autocommit=True, connect_timeout=5) as conn:
            conn.execute(
                sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name))
            )
        print(f"database {name} dropped")


def _timed(call: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times = []
    result = None
    for _ in range(repeat):
        started = time.perf_counter()
        result = call()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), result


def _run(sizes: list[int], repeat: int) -> None:
    from django.core.management import call_command
    from django.db import connection

    from daily import leaderboard
    from daily.models import DailyScore

    call_command("migrate", verbosity=0)
    filled = 0
    for size in sizes:
        with connection.cursor() as cursor:
            # Points: a long tail (most results small, a few high); 0 points are unlisted.
            cursor.execute(
                """
                insert into daily_dailyscore (date, nickname, nickname_key, device, points,
                    words, best_word, finished_at, listed, flagged, flag_reason)
                select %s, 'p' || n, 'p' || n, 'd' || n, p, p / 2, 'word',
                    timestamp '2030-01-01 00:00:00+00' + n * interval '80 ms', p > 0, false, ''
                from (select n, floor(power(random(), 3) * 300)::int as p
                      from generate_series(%s, %s) as n) as drawn
                """,
                [DAY, filled + 1, size],
            )
            cursor.execute("analyze daily_dailyscore")
        filled = size
        listed = DailyScore.objects.filter(date=DAY, listed=True)
        middle = listed.order_by("-points", "finished_at", "id")[listed.count() // 2]
        top_ms, _ = _timed(lambda: leaderboard.top(DAY), repeat)
        count_ms, count = _timed(lambda: leaderboard.entries(DAY).count(), repeat)
        rank_ms, rank = _timed(functools.partial(leaderboard.rank_of, middle), repeat)
        with connection.cursor() as cursor:
            cursor.execute(
                "explain select count(*) from daily_dailyscore where date = %s and listed",
                [DAY],
            )
            plan = cursor.fetchone()[0]
        print(
            f"{size:>9,} results ({count:,} listed): top 50 {top_ms:.1f} ms; count"
            f" {count_ms:.1f} ms; rank of the middle entry (#{rank:,}) {rank_ms:.1f} ms;"
            f" count's plan: {plan.strip()[:70]}",
            flush=True,
        )


if __name__ == "__main__":
    main()
