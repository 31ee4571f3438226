"""``manage.py restore PATH [--yes] [--replace]``: put back what ``manage.py backup`` wrote,
into an empty database and the site's directories. docs/operations.md, "Backups and
restore"."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection

from web import backup_archive, backup_database
from web.backup_archive import ArchiveError
from web.management.commands.backup import site_sources, var_dir

UNCHANGED = "nothing was changed"


def _listed(items: list[str], most: int = 8) -> str:
    return ", ".join(items[:most]) + (f" and {len(items) - most} more" if len(items) > most else "")


class Command(BaseCommand):
    help = (
        "Restore an archive of `manage.py backup` into an empty database: check every "
        "member against the manifest, put the files back, migrate, load the rows. Refuses "
        "a database that holds rows, or files that differ, unless --replace."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", metavar="PATH", help="the archive")
        parser.add_argument("--yes", action="store_true", help="do not ask before restoring")
        parser.add_argument(
            "--replace",
            action="store_true",
            help="delete every row the database holds, and overwrite files that differ",
        )

    def handle(self, *args: Any, path: str, yes: bool, replace: bool, **options: Any) -> None:
        sources = site_sources()
        try:
            archive = backup_archive.check_archive(Path(path), sources)
        except ArchiveError as error:
            raise CommandError(f"{error}; {UNCHANGED}") from None
        manifest = archive.manifest
        problem = backup_database.schema_difference(
            manifest["migrations"], backup_database.migration_state().code
        )
        if problem:
            raise CommandError(f"{problem}; {UNCHANGED}")
        where = f"{connection.vendor} database {connection.settings_dict['NAME']}"
        present = backup_database.rows_present()
        if present and not replace:
            rows = [f"{label} {count}" for label, count in sorted(present.items())]
            raise CommandError(
                f"the {where} is not empty ({_listed(rows)}); restore fills an empty one and "
                f"never merges. Check it is the one to overwrite, then pass --replace; {UNCHANGED}"
            )
        clashing = backup_archive.conflicts(archive, sources)
        if clashing and not replace:
            raise CommandError(
                f"files differ from the archive's: {_listed([str(p) for p in clashing])}; "
                f"pass --replace to overwrite them; {UNCHANGED}"
            )
        self.stdout.write(
            f"{path}: made {manifest['created_at']}, every member matches its checksum"
        )
        if not yes:
            self._confirm(where, bool(present))
        self._restore(archive, sources)

    def _confirm(self, where: str, replacing: bool) -> None:
        if not sys.stdin.isatty():
            raise CommandError(f"pass --yes to restore without a question; {UNCHANGED}")
        what = "replace every row of" if replacing else "restore into"
        answer = input(f"{what} the {where}, and the site's files? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            raise CommandError(UNCHANGED)

    def _restore(self, archive: backup_archive.CheckedArchive, sources: list[Any]) -> None:
        manifest = archive.manifest
        var_dir().mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix=".restore-", dir=var_dir()) as scratch:
            dump_path = Path(scratch) / backup_archive.DATABASE_NAME
            try:
                files = backup_archive.put_back(archive, sources, dump_path)
            except (ArchiveError, OSError) as error:
                raise CommandError(
                    f"{error}: the files written so far stay, the database was not touched; "
                    "run restore again once fixed (files already in place are skipped)"
                ) from None
            try:
                call_command("migrate", interactive=False, verbosity=0)
                rows = backup_database.load(dump_path, manifest["database"]["rows"])
            except Exception as error:
                raise CommandError(
                    f"the database was not restored ({error}). The files are back; the "
                    "database holds none of the archive's rows (migrate may have made its "
                    "tables and what a new site starts with): once fixed, run restore again "
                    "with --replace"
                ) from None
        written = ", ".join(f"{n} {name}" for name, n in sorted(files.written.items())) or "none"
        self.stdout.write(
            f"restored {rows:,} rows of {len(manifest['database']['rows'])} models into the "
            f"{connection.vendor} database; files written: {written}"
            + (f" ({files.unchanged} already in place)" if files.unchanged else "")
        )
        checked, other = backup_database.sessions_from_another_key()
        if other:
            self.stdout.write(
                f"warning: {other} of {checked} sessions checked were signed with another "
                "secret key: browsers are strangers to their rooms until the site runs with "
                "the old DJANGO_SECRET_KEY (var/secret_key if the archive had one, else the "
                "old environment file); API clients' tokens work either way"
            )
