"""Reading the counters of a site's Redis and PostgreSQL (``ServiceProbe``) for the cost
figures of ``bench.crowd.costs``: Redis's INFO sections, ``pg_stat_database`` and
``pg_stat_user_tables`` of the run's database, and the WAL position."""

from __future__ import annotations

import contextlib
from collections import Counter
from typing import Any

PG_DATABASE_COLUMNS = (
    "xact_commit",
    "xact_rollback",
    "tup_inserted",
    "tup_updated",
    "tup_deleted",
    "tup_fetched",
    "tup_returned",
    "blks_read",
    "blks_hit",
)


class ServiceProbe:
    """Reads the Redis and PostgreSQL counters of a site this run started (production)."""

    def __init__(self, redis_url: str | None, database_url: str | None) -> None:
        self.redis_url = redis_url
        self.database_url = database_url
        self._redis: Any = None
        self._pg: Any = None
        self.failures: Counter[str] = Counter()

    def read(self) -> dict[str, float]:
        counters: dict[str, float] = {}
        if self.redis_url:
            try:
                counters.update(self._read_redis())
            except Exception as error:
                self.failures[f"redis: {type(error).__name__}"] += 1
                self._redis = None
        if self.database_url:
            try:
                counters.update(self._read_postgres())
            except Exception as error:
                self.failures[f"postgres: {type(error).__name__}"] += 1
                self._close_pg()
        return counters

    def _read_redis(self) -> dict[str, float]:
        if self._redis is None:
            import redis

            self._redis = redis.Redis.from_url(self.redis_url or "", socket_timeout=5)
        return redis_counters(
            self._redis.info("commandstats"), self._redis.info("cpu"), self._redis.info("stats")
        )

    def _read_postgres(self) -> dict[str, float]:
        if self._pg is None:
            import psycopg

            self._pg = psycopg.connect(self.database_url or "", autocommit=True, connect_timeout=5)
        counters: dict[str, float] = {}
        columns = ", ".join(PG_DATABASE_COLUMNS)
        row = self._pg.execute(
            f"select {columns} from pg_stat_database where datname = current_database()"
        ).fetchone()
        if row is not None:
            for name, value in zip(PG_DATABASE_COLUMNS, row, strict=True):
                counters[f"pg.db.{name}"] = float(value or 0)
        for table, ins, upd, dele in self._pg.execute(
            "select relname, n_tup_ins, n_tup_upd, n_tup_del from pg_stat_user_tables"
        ):
            counters[f"pg.table.{table}.ins"] = float(ins or 0)
            counters[f"pg.table.{table}.upd"] = float(upd or 0)
            counters[f"pg.table.{table}.del"] = float(dele or 0)
        wal = self._pg.execute("select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')").fetchone()
        if wal is not None:
            counters["pg.wal"] = float(wal[0])
        return counters

    def _close_pg(self) -> None:
        if self._pg is not None:
            with contextlib.suppress(Exception):
                self._pg.close()
        self._pg = None

    def close(self) -> None:
        self._close_pg()
        if self._redis is not None:
            with contextlib.suppress(Exception):
                self._redis.close()
        self._redis = None


def redis_counters(
    commandstats: dict[str, Any], cpu: dict[str, Any], stats: dict[str, Any]
) -> dict[str, float]:
    """Flatten Redis's INFO sections (as redis-py parses them) into counters."""
    counters: dict[str, float] = {}
    for key, value in commandstats.items():
        name = key.removeprefix("cmdstat_")
        calls = value.get("calls") if isinstance(value, dict) else None
        if calls is not None:
            counters[f"redis.cmd.{name}"] = float(calls)
    counters["redis.cpu"] = float(cpu.get("used_cpu_sys", 0)) + float(cpu.get("used_cpu_user", 0))
    counters["redis.net_in"] = float(stats.get("total_net_input_bytes", 0))
    counters["redis.net_out"] = float(stats.get("total_net_output_bytes", 0))
    counters["redis.commands_processed"] = float(stats.get("total_commands_processed", 0))
    return counters
