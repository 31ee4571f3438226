"""Definition coverage: the share of the words on rolled boards that get a meaning.

    python bench/definitions.py [--boards 100] [--dice classic]

Rolls seeded boards (seeds 0..N-1), solves each with every language's dictionary
(english, english-common, dutch, french: Dutch and French need Debian's wdutch and wfrench),
and looks every word of the solution sets up in the compiled definitions (python -m meanings
build: WordNet then GCIDE for English, FreeDict). Prints, per dictionary, the share of the
words (counted once per board they are on, and once overall) with a definition, the share
each source defines, and the files' sizes, opening time and look-up time.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from meanings.store import DefinitionStore, fold, language_files, lookup, store_path  # noqa: E402
from solver import dictionaries, roll, solve  # noqa: E402
from solver.errors import WordListError  # noqa: E402

DICTIONARIES = ("english", "english-common", "dutch", "french")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=100)
    parser.add_argument("--dice", default="classic")
    args = parser.parse_args()

    subprocess.run([sys.executable, "-m", "meanings", "build"], cwd=REPO, check=True)
    boards = [roll(args.dice, seed) for seed in range(args.boards)]
    print(f"{args.boards} {args.dice} boards (seeds 0..{args.boards - 1})")
    for name in DICTIONARIES:
        entry = dictionaries.get_named_list(name)
        try:
            dictionaries.build(name)
        except WordListError as error:
            print(f"{name}: word list not available: {error}")
            continue
        path = store_path(entry.language)
        if not path.is_file():
            print(
                f"{name}: no compiled definitions for {entry.language!r} (see python -m meanings build)"
            )
            continue
        started = time.perf_counter()
        store = DefinitionStore(path)
        open_ms = (time.perf_counter() - started) * 1000
        lookup(entry.language, "a")  # opens the language's later files (GCIDE) too
        word_list = dictionaries.load(name)
        on_boards: list[str] = []
        for board in boards:
            on_boards.extend(found.word for found in solve(board, word_list).words)
        unique = sorted(set(on_boards))
        times: list[float] = []
        defined: set[str] = set()
        through_lemma = 0  # defined through another form: "wolves" by "wolf"
        by_source: dict[str, int] = {}
        for word in unique:
            before = time.perf_counter()
            found = lookup(entry.language, word)
            times.append(time.perf_counter() - before)
            if found is not None:
                defined.add(word)
                through_lemma += fold(found.lemma) != word
                by_source[found.source] = by_source.get(found.source, 0) + 1
        times.sort()
        per_board = sum(word in defined for word in on_boards) / max(len(on_boards), 1)
        overall = len(defined) / max(len(unique), 1)
        missing = [word for word in unique if word not in defined][:8]
        print(
            f"{name} ({entry.language}, {store.source}): {per_board:.1%} of {len(on_boards):,} words "
            f"on the boards defined; {overall:.1%} of {len(unique):,} distinct words, "
            f"{through_lemma / max(len(unique), 1):.1%} of them through a lemma "
            f"(e.g. undefined: {', '.join(missing)})"
        )
        sources = ", ".join(
            f"{source} {count / max(len(unique), 1):.1%}" for source, count in by_source.items()
        )
        sizes = ", ".join(
            f"{store_path(name).name} {store_path(name).stat().st_size / 1e6:.1f} MB"
            for name in language_files(entry.language)
            if store_path(name).is_file()
        )
        print(f"  distinct words defined by source: {sources}")
        print(
            f"  {sizes}; {path.name} opened in {open_ms:.1f} ms, "
            f"look-up median {statistics.median(times) * 1e6:.0f} µs, "
            f"p95 {times[int(0.95 * (len(times) - 1))] * 1e6:.0f} µs"
        )


if __name__ == "__main__":
    main()
