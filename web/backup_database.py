"""The database side of ``manage.py backup`` and ``restore`` (``web.backup_archive`` has the
archive): which models go in, one consistent read of them, the schema an archive was made
at, and loading it into an empty database.

Every model's rows go in (sessions too: a browser is its player in a room through its
session), except content types and permissions, which ``migrate`` makes on any database;
rows that refer to them do so by natural key (``dumpdata --natural-foreign``). Primary keys
are kept, since sessions name players by id.
"""

from __future__ import annotations

import contextlib
import datetime
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import IO, Any, cast

from django.apps import apps
from django.conf import settings
from django.core import serializers, signing
from django.core.management.color import no_style
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connections, models, transaction
from django.db.migrations.loader import MigrationLoader

# Made by ``migrate`` on every database, and referred to by natural keys.
EXCLUDED = ("contenttypes", "auth.permission")
# Rows a statement when restoring (fewer where the database allows fewer parameters).
BATCH_ROWS = 500
# Rows read from the database at a time when dumping.
DUMP_CHUNK_ROWS = 2000


class DatabaseRefused(Exception):
    """The database cannot be backed up or restored into; the message says why."""


def dumped_models() -> list[type[models.Model]]:
    """The models whose rows the archive holds (many-to-many tables included)."""
    return [
        model
        for model in apps.get_models(include_auto_created=True)
        if model._meta.managed
        and not model._meta.proxy
        and model._meta.app_label not in EXCLUDED
        and model._meta.label_lower not in EXCLUDED
    ]


def row_counts(alias: str = "default") -> dict[str, int]:
    return {
        model._meta.label_lower: model._base_manager.using(alias).count()
        for model in dumped_models()
    }


@contextlib.contextmanager
def consistent_read(alias: str = "default") -> Iterator[None]:
    """Everything read inside sees the database as it was at one instant, and nobody's
    writes wait for it: PostgreSQL's REPEATABLE READ (read only), SQLite's read
    transaction on its write-ahead log (a deferred BEGIN: the site's own transactions
    take the write lock, which a dump must not hold)."""
    connection = connections[alias]
    if connection.vendor == "postgresql":
        with transaction.atomic(using=alias), connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            cursor.execute("SELECT 1")  # the snapshot is taken at the first query
            yield
    elif connection.vendor == "sqlite":
        if connection.in_atomic_block:
            raise DatabaseRefused("a backup reads outside any other transaction")
        with connection.cursor() as cursor:
            cursor.execute("BEGIN DEFERRED")
            try:
                cursor.execute("SELECT count(*) FROM sqlite_master")  # the snapshot starts here
                yield
            finally:
                cursor.execute("COMMIT")
    else:
        raise DatabaseRefused(f"backups support PostgreSQL and SQLite, not {connection.vendor}")


class ExactJSONEncoder(DjangoJSONEncoder):
    """Times to the microsecond: dumpdata's encoder cuts them to the millisecond (for
    JavaScript), and a restored site must order its words as the original did."""

    def default(self, o: Any) -> Any:
        if isinstance(o, datetime.datetime | datetime.time):
            return o.isoformat()
        return super().default(o)


def dump(path: Path, alias: str = "default") -> None:
    """Write every dumped model's rows to ``path``, one JSON object a line, as ``dumpdata
    --natural-foreign --all --format jsonl`` would but with exact times: model by model in
    dumpdata's order (what a natural key names first), each table read in primary key
    order a chunk at a time, never whole in memory."""
    wanted = set(dumped_models())
    by_app: dict[Any, list[type[models.Model]]] = {}
    for model in apps.get_models():
        if model in wanted:
            by_app.setdefault(apps.get_app_config(model._meta.app_label), []).append(model)
    ordered = serializers.sort_dependencies(by_app.items(), allow_cycles=True)
    serializer = serializers.get_serializer("python")()
    with path.open("w", encoding="utf-8") as out:
        for model in ordered:
            rows = model._base_manager.using(alias).order_by(model._meta.pk.name)
            chunk: list[models.Model] = []
            for row in rows.iterator(chunk_size=DUMP_CHUNK_ROWS):
                chunk.append(row)
                if len(chunk) >= DUMP_CHUNK_ROWS:
                    _write_rows(out, serializer, chunk)
            _write_rows(out, serializer, chunk)


def _write_rows(out: IO[str], serializer: Any, chunk: list[models.Model]) -> None:
    for row in serializer.serialize(chunk, use_natural_foreign_keys=True):
        out.write(json.dumps(row, cls=ExactJSONEncoder, ensure_ascii=False) + "\n")
    chunk.clear()


# ---------------------------------------------------------------- the schema


@dataclass
class MigrationState:
    """This release's migrations per app, and how the database differs from them."""

    code: dict[str, list[str]]
    unapplied: list[str]
    # Applied, unknown to this release (a newer release migrated, then was rolled back).
    ahead: list[str]


def migration_state(alias: str = "default") -> MigrationState:
    loader = MigrationLoader(connections[alias], ignore_no_migrations=True)
    applied = set(loader.applied_migrations or {})
    nodes = set(loader.graph.nodes)
    code: dict[str, list[str]] = {}
    for app, name in sorted(nodes):
        code.setdefault(app, []).append(name)
    return MigrationState(
        code=code,
        unapplied=[f"{app}.{name}" for app, name in sorted(nodes - applied)],
        ahead=[f"{app}.{name}" for app, name in sorted(applied - nodes)],
    )


def schema_difference(archived: dict[str, list[str]], code: dict[str, list[str]]) -> str | None:
    """Why an archive made at schema ``archived`` cannot be loaded by this release (its
    rows have the shape of the models at that schema), or None when they are the same."""
    archive_set = {f"{app}.{name}" for app, names in archived.items() for name in names}
    code_set = {f"{app}.{name}" for app, names in code.items() for name in names}
    newer = sorted(archive_set - code_set)
    if newer:
        return (
            f"the archive comes from a newer release (migrations this code lacks: "
            f"{', '.join(newer[:5])}{' …' if len(newer) > 5 else ''}): restore it with that "
            "release's code"
        )
    older = sorted(code_set - archive_set)
    if older:
        return (
            f"the archive comes from an older release (it predates "
            f"{', '.join(older[:5])}{' …' if len(older) > 5 else ''}): restore it with the "
            "release that made it (the manifest's code.commit), then upgrade as usual"
        )
    return None


# ---------------------------------------------------------------- restoring


def rows_present(alias: str = "default") -> dict[str, int]:
    """Rows per model in the tables that exist and are not empty."""
    connection = connections[alias]
    tables = set(connection.introspection.table_names())
    found = {}
    for model in dumped_models():
        if model._meta.db_table in tables:
            count = model._base_manager.using(alias).count()
            if count:
                found[model._meta.label_lower] = count
    return found


def load(path: Path, expected: dict[str, int], alias: str = "default") -> int:
    """In one transaction: empty every dumped table (``migrate`` may have filled some:
    what a site makes as it starts, which the archive holds too), insert the archive's
    rows, move PostgreSQL's sequences past them, and check each model's row count against
    the manifest's. Nothing stays loaded if anything fails. Returns the rows loaded."""
    connection = connections[alias]
    tables = [model._meta.db_table for model in dumped_models()]
    with transaction.atomic(using=alias):
        # Cascading: tables a newer release added (a rollback's restore) refer to these.
        flush = connection.ops.sql_flush(no_style(), tables, allow_cascade=True)
        connection.ops.execute_sql_flush(flush)
        insert_rows(path, alias)
        with connection.cursor() as cursor:
            for statement in connection.ops.sequence_reset_sql(no_style(), dumped_models()):
                cursor.execute(statement)
        counts = row_counts(alias)
        if counts != expected:
            wrong = sorted(
                f"{label}: {counts.get(label, 0)} rows for {expected.get(label, 0)}"
                for label in set(counts) | set(expected)
                if counts.get(label, 0) != expected.get(label, 0)
            )
            raise DatabaseRefused(
                "the loaded rows differ from the manifest's, so nothing was loaded: "
                + "; ".join(wrong)
            )
    return sum(counts.values())


def insert_rows(path: Path, alias: str = "default") -> None:
    """What ``loaddata`` does with the dump (each row exactly as dumped: a raw save, which
    no ``auto_now`` field and no signal touches), a few hundred rows a statement rather
    than two statements a row: loaddata restored some 1,000 rows a second on PostgreSQL.
    The rows come model by model in dumpdata's order (what a natural key names comes
    first), and each batch is read only once the ones before it are written."""
    connection = connections[alias]
    links: dict[type[models.Model], list[models.Model]] = {}
    with path.open(encoding="utf-8") as stream:
        for batch in _batches(stream):
            items = list(serializers.deserialize("python", batch, using=alias))
            model = type(items[0].object)
            fields = list(model._meta.local_concrete_fields)
            rows = [item.object for item in items]
            size = max(1, min(BATCH_ROWS, connection.ops.bulk_batch_size(fields, rows)))
            # QuerySet._insert: Model.save_base's own insert, raw (bulk_create is not).
            table = cast(Any, model._base_manager.using(alias))
            for start in range(0, len(rows), size):
                table._insert(rows[start : start + size], fields=fields, raw=True, using=alias)
            for item in items:
                for name, targets in (item.m2m_data or {}).items():
                    through, link = _link_maker(model, name)
                    links.setdefault(through, []).extend(link(item.object.pk, pk) for pk in targets)
    for through, made in links.items():
        through._base_manager.using(alias).bulk_create(made, batch_size=BATCH_ROWS)


def _batches(lines: Iterable[str]) -> Iterator[list[dict[str, Any]]]:
    """The dump's objects, up to BATCH_ROWS at a time, each batch of one model."""
    batch: list[dict[str, Any]] = []
    for line in lines:
        if not line.strip():
            continue
        row = json.loads(line)
        if batch and (row["model"] != batch[0]["model"] or len(batch) >= BATCH_ROWS):
            yield batch
            batch = []
        batch.append(row)
    if batch:
        yield batch


def _link_maker(model: type[models.Model], name: str) -> tuple[type[models.Model], Any]:
    """The table of a many-to-many field, and a maker of its rows from two primary keys."""
    field = cast(models.ManyToManyField, model._meta.get_field(name))
    through = cast(type[models.Model], field.remote_field.through)
    source = cast(models.ForeignKey, through._meta.get_field(field.m2m_field_name())).attname
    target = cast(
        models.ForeignKey, through._meta.get_field(field.m2m_reverse_field_name())
    ).attname
    return through, lambda left, right: through(**{source: left, target: right})


def sessions_from_another_key(alias: str = "default", sample: int = 50) -> tuple[int, int]:
    """(sessions checked, signed with another secret key than this process's): a site
    restored under another DJANGO_SECRET_KEY knows none of its browsers."""
    if settings.SESSION_ENGINE != "django.contrib.sessions.backends.db":
        return 0, 0
    from django.contrib.sessions.models import Session

    store = import_module(settings.SESSION_ENGINE).SessionStore()
    rows = Session.objects.using(alias).values_list("session_data", flat=True)[:sample]
    other = 0
    for data in rows:
        try:
            signing.loads(data, salt=store.key_salt, serializer=store.serializer)
        except signing.BadSignature:
            other += 1
    return len(rows), other
