"""``manage.py import_dictionary dutch french``: register named word lists and compile them."""

from __future__ import annotations

from typing import cast

from django.core.management.base import BaseCommand, CommandError
from django.template.defaultfilters import filesizeformat

from dictionaries import files, services
from dictionaries.exceptions import DictionaryError
from dictionaries.models import DictionaryVersion
from solver.dictionaries import NAMED_LISTS
from solver.errors import SolverError


class Command(BaseCommand):
    help = (
        "Register word lists the project knows by name as dictionaries rooms can choose, and "
        f"compile them now. Names: {', '.join(NAMED_LISTS)}. Dutch and French need the Debian "
        "packages wdutch and wfrench."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("names", nargs="+", metavar="NAME", help="e.g. dutch french")

    def handle(self, *args, names: list[str], **options) -> None:
        for name in names:
            try:
                dictionary = services.import_named_list(name)
            except (DictionaryError, SolverError) as error:
                raise CommandError(str(error)) from None
            version = cast(DictionaryVersion, dictionary.current_version)  # compiled just now
            self.stdout.write(
                f"{name}: {version.word_count:,} words, {filesizeformat(version.file_size)}, "
                f"{files.version_path(version)}"
            )
