"""``manage.py backup [--output PATH]``: the site in one archive (``web.backup_archive``):
the database as data and the files under BOGGLE_DICTIONARY_DIR, BOGGLE_MEDIA_DIR and
var/'s secrets. docs/operations.md, "Backups and restore"."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from django.template.defaultfilters import filesizeformat
from django.utils import timezone

from web import backup_archive, backup_database
from web.backup_archive import ArchiveError, ArchiveWriter
from web.backup_database import DatabaseRefused


def var_dir() -> Path:
    return Path(settings.BASE_DIR) / "var"


def site_sources() -> list[backup_archive.Source]:
    return backup_archive.site_sources(
        Path(settings.BOGGLE_DICTIONARY_DIR), Path(settings.MEDIA_ROOT), var_dir()
    )


def code_commit() -> str | None:
    """The checkout's commit, to name the release that can restore the archive."""
    try:
        result = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=settings.BASE_DIR,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (result.stdout.strip() or None) if result.returncode == 0 else None


class Command(BaseCommand):
    help = (
        "Write the site to one archive (tar.gz, 0600): the database as data (one consistent "
        "read), compiled dictionaries and uploaded word lists, board photos, and var/'s "
        "secret key and daily secret. Default: var/backups/boggle-<UTC time>.tar.gz."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--output", metavar="PATH", help="where to write the archive")

    def handle(self, *args: Any, output: str | None, **options: Any) -> None:
        created = timezone.now()
        default = var_dir() / "backups" / f"boggle-{created:%Y%m%dT%H%M%SZ}.tar.gz"
        path = Path(output).absolute() if output else default
        if path.exists():
            raise CommandError(f"{path} exists already; nothing was written")
        state = backup_database.migration_state()
        if state.unapplied:
            raise CommandError(
                f"the database lacks migrations of this release ({', '.join(state.unapplied)}):"
                " run `python manage.py migrate` first"
            )
        try:
            writer = ArchiveWriter(path)
        except OSError as error:
            raise CommandError(f"cannot write {path}: {error}") from None
        try:
            manifest = self._write(writer, created.isoformat(), state)
            writer.finish(manifest)
        except BaseException as error:
            writer.abort()
            if isinstance(error, ArchiveError | DatabaseRefused | OSError):
                raise CommandError(f"{error}; no archive was written") from None
            raise
        rows = sum(manifest["database"]["rows"].values())
        files = sum(source["files"] for source in manifest["sources"].values())
        self.stdout.write(
            f"wrote {path} ({filesizeformat(path.stat().st_size)}): {rows:,} rows, {files:,} files"
        )
        vanished = sum(source["vanished"] for source in manifest["sources"].values())
        if vanished:
            self.stdout.write(f"{vanished} files were deleted by the site while being read")
        if state.ahead:
            self.stdout.write(
                "note: the database has migrations this release lacks "
                f"({', '.join(state.ahead)}); their columns are not in the archive"
            )

    def _write(
        self, writer: ArchiveWriter, created_at: str, state: backup_database.MigrationState
    ) -> dict[str, Any]:
        sources = site_sources()
        leave_out = {writer.path.resolve(), writer.partial.resolve()}
        # The dump goes beside the archive (the same disk, not a small /tmp), then into it.
        with tempfile.TemporaryDirectory(prefix=".backup-", dir=writer.path.parent) as scratch:
            dump_path = Path(scratch) / backup_archive.DATABASE_NAME
            with backup_database.consistent_read():
                # The snapshot is fixed; the files are read right after it, the rows last.
                # The site writes a file before the row that names it, and deletes it with
                # or after its row: every file a row of the snapshot names exists when the
                # snapshot is taken, and is read unless its row was deleted meanwhile (a
                # room idle for a day, a word list past its retention: the restored site
                # deletes those rows too). A file newer than the snapshot comes along
                # without its row; the hourly clean-up deletes it.
                rows = backup_database.row_counts()
                summaries = {s.name: writer.add_source(s, leave_out) for s in sources}
                backup_database.dump(dump_path)
            writer.add_file(backup_archive.DATABASE_NAME, dump_path)
        return {
            "format": backup_archive.FORMAT,
            "version": backup_archive.FORMAT_VERSION,
            "created_at": created_at,
            "code": {"commit": code_commit()},
            "migrations": state.code,
            "database": {
                "vendor": connection.vendor,
                "member": backup_archive.DATABASE_NAME,
                "format": "jsonl (dumpdata --natural-foreign)",
                "excluded": list(backup_database.EXCLUDED),
                "rows": rows,
                "migrations_ahead_of_code": state.ahead,
            },
            "sources": {
                source.name: {"setting": source.setting, **vars(summaries[source.name])}
                for source in sources
            },
            "not_included": backup_archive.NOT_INCLUDED,
        }
