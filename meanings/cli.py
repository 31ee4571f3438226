"""Command-line interface: ``python -m meanings build|define``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from meanings.build import SourceMissing, build, sources
from meanings.store import definitions_dir, lookup

EXIT_NOT_FOUND = 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m meanings", description="Word definitions")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    build_cmd = commands.add_parser(
        "build", help="compile the definition sources this machine has (Debian packages)"
    )
    build_cmd.add_argument(
        "languages", nargs="*", metavar="LANGUAGE", help="default: all (en nl fr)"
    )
    build_cmd.add_argument("--force", action="store_true", help="recompile even if current")
    build_cmd.add_argument(
        "--dir", type=Path, help="default: BOGGLE_DEFINITIONS_DIR or var/definitions"
    )
    build_cmd.set_defaults(run=_run_build)

    define_cmd = commands.add_parser("define", help="print the meanings of a word")
    define_cmd.add_argument("language", help="en, nl or fr")
    define_cmd.add_argument("word")
    define_cmd.set_defaults(run=_run_define)

    args = parser.parse_args(argv)
    return int(args.run(args))


def _run_build(args: argparse.Namespace) -> int:
    known = sources()
    languages = list(dict.fromkeys(source.language for source in known.values()))
    unknown = [language for language in args.languages if language not in languages]
    if unknown:
        print(
            f"error: unknown language {unknown[0]!r}; known: {' '.join(languages)}",
            file=sys.stderr,
        )
        return 2
    directory = args.dir or definitions_dir()
    missing: list[str] = []
    wanted = set(args.languages or languages)
    for source in (source for source in known.values() if source.language in wanted):
        try:
            print(build(source, directory, force=args.force).summary())
        except SourceMissing:
            # The others still build; the site links to Wiktionary for what has no definition.
            print(f"{source.name}: no definitions ({source.debian_package} is not installed)")
            missing.append(source.debian_package)
    if missing:
        print(
            f"hint: for definitions, install: sudo apt-get install {' '.join(missing)}",
            file=sys.stderr,
        )
    return 0


def _run_define(args: argparse.Namespace) -> int:
    entry = lookup(args.language, args.word)
    if entry is None:
        print(f"{args.word}: no definition")
        return EXIT_NOT_FOUND
    print(f"{entry.word} -> {entry.lemma} ({entry.source})")
    for sense in entry.senses:
        print(f"  {sense.lemma}, {sense.part_of_speech}: {sense.text}")
    return 0
