"""Solver benchmark: boards per second, dictionary load time, peak memory.

    python bench/solver.py [--dictionary english] [--boards4 2000] [--boards6 200]
    python bench/solver.py --danvk-checkout /tmp/hybrid-boggle [--danvk-boards 5000]

Solves seeded dice rolls (classic 4x4 seeds 0..N-1, super-big 6x6 seeds 0..M-1) one at a
time on one core with the solver's engine (``solver.solve.ENGINE``: the compiled core, or
pure Python when it is not built or ``BOGGLE_SOLVER=python``), and prints the median and
95th-percentile time per board. The dictionary is compiled beforehand in a child process so
that compiling does not count towards this process's peak memory.

``--danvk-checkout DIR`` also compares with the pure-Python solver of danvk/hybrid-boggle
(https://github.com/danvk/hybrid-boggle): DIR is a work tree of that repository, imported
from there (none of its code is in this repository). In one run, over the same classic 4x4
rolls, it times danvk's ``PyBoggler.score`` (a trie built from our word list, in his
convention: a-z, "qu" stored as "q"), our ``solve()`` in pure Python and with the compiled
core. ``solve()`` does more than ``score()``: it returns each word, a path and its points.
The boards are timed in chunks, the three solvers in turn, so that a change in the machine's
load touches all three alike; the total scores must agree.
"""

from __future__ import annotations

import argparse
import importlib
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from solver import Board, WordList, dictionaries, roll, solve  # noqa: E402
from solver.solve import ENGINE  # noqa: E402

# Boards timed per solver in turn (see the docstring).
DANVK_CHUNK = 250
DANVK_LABELS = {
    "danvk": "danvk PyBoggler.score",
    "python": "ours, python solve()",
    "native": "ours, native solve()",
}


def time_boards(dice_set: str, count: int, word_list) -> dict:
    boards = [roll(dice_set, seed) for seed in range(count)]
    times, words, points = [], 0, 0
    started = time.perf_counter()
    for board in boards:
        before = time.perf_counter()
        solution = solve(board, word_list)
        times.append(time.perf_counter() - before)
        words += len(solution)
        points += solution.total_points
    elapsed = time.perf_counter() - started
    times.sort()
    return {
        "boards": count,
        "boards_per_second": count / elapsed,
        "median_ms": statistics.median(times) * 1000,
        "p95_ms": times[int(0.95 * (count - 1))] * 1000,
        "mean_words": words / count,
        "mean_points": points / count,
    }


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def danvk_letters(board: Board) -> str:
    """A board in danvk's notation: one letter a cell, row by row, the Qu die as "q"."""
    letters = "".join("q" if face == "qu" else face for face in board.faces)
    assert len(letters) == len(board.faces) and letters.isascii() and letters.isalpha()
    return letters


def compare_with_danvk(checkout: Path, word_list: WordList, count: int) -> None:
    """Time danvk's PyBoggler.score and our solve() (python, native) on the same rolls."""
    sys.path.insert(0, str(checkout))
    boggler_module: Any = importlib.import_module("boggle.boggler")
    trie_module: Any = importlib.import_module("boggle.trie")

    started = time.perf_counter()
    # His convention (boggle/trie.py bogglify_word): a-z only, at least 3 letters, every q
    # followed by u, "qu" stored as "q"; his score() counts a q cell as two letters.
    danvk_words = [trie_module.bogglify_word(word) for word in word_list.trie]
    trie = trie_module.PyTrie.create_from_wordlist(word for word in danvk_words if word)
    kept = sum(1 for word in danvk_words if word)
    print(
        f"danvk/hybrid-boggle ({checkout}): PyTrie of {kept} of our {len(word_list)} words "
        f"built in {time.perf_counter() - started:.1f} s"
    )
    boggler = boggler_module.PyBoggler(trie, (4, 4))
    boards = [roll("classic", seed) for seed in range(count)]
    letters = [danvk_letters(board) for board in boards]

    def danvk(start: int, end: int) -> list[int]:
        return [boggler.score(text) for text in letters[start:end]]

    def ours(engine: str) -> Callable[[int, int], list[int]]:
        def run(start: int, end: int) -> list[int]:
            return [
                solve(board, word_list, engine=engine).total_points for board in boards[start:end]
            ]

        return run

    solvers: dict[str, Callable[[int, int], list[int]]] = {
        "danvk": danvk,
        "python": ours("python"),
    }
    if ENGINE == "native":
        solvers["native"] = ours("native")
    seconds = dict.fromkeys(solvers, 0.0)
    scores: dict[str, list[int]] = {name: [] for name in solvers}
    load_before = load_average()
    for start in range(0, count, DANVK_CHUNK):
        end = min(start + DANVK_CHUNK, count)
        for name, run in solvers.items():
            before = time.perf_counter()
            scores[name] += run(start, end)
            seconds[name] += time.perf_counter() - before
    load_after = load_average()

    print(f"{count} classic 4x4 rolls (seeds 0..{count - 1}), one core, in one run:")
    for name, elapsed in seconds.items():
        ratio = "" if name == "danvk" else f"  {seconds['danvk'] / elapsed:.2f}x danvk"
        print(f"  {DANVK_LABELS[name]:<22} {count / elapsed:>8.0f} boards/s{ratio}")
    if ENGINE != "native":
        print(f"  {DANVK_LABELS['native']:<22} not loaded (python -m solver.native build)")
    mismatches = sum(
        len(set(board_scores)) > 1 for board_scores in zip(*scores.values(), strict=True)
    )
    totals = ", ".join(f"{name} {sum(values)}" for name, values in scores.items())
    print(f"  total points: {totals}; boards whose scores differ: {mismatches}")
    print(f"  load average (1, 5, 15 min): {load_before} before, {load_after} after")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dictionary", default=dictionaries.DEFAULT_DICTIONARY)
    parser.add_argument("--boards4", type=int, default=2000)
    parser.add_argument("--boards6", type=int, default=200)
    parser.add_argument(
        "--danvk-checkout",
        type=Path,
        metavar="DIR",
        help="a work tree of github.com/danvk/hybrid-boggle: compare with its PyBoggler",
    )
    parser.add_argument("--danvk-boards", type=int, default=5000)
    args = parser.parse_args()
    if args.danvk_checkout and not (args.danvk_checkout / "boggle" / "boggler.py").is_file():
        parser.error(f"{args.danvk_checkout} has no boggle/boggler.py: not a hybrid-boggle tree")

    subprocess.run(
        [sys.executable, "-m", "solver", "build", args.dictionary],
        cwd=REPO,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    started = time.perf_counter()
    word_list = dictionaries.load(args.dictionary)
    solve(roll("classic", 0), word_list)  # first solve: the dictionary is ready to use
    ready_ms = (time.perf_counter() - started) * 1000

    print(
        f"dictionary {args.dictionary}: {len(word_list)} words, ready to solve in {ready_ms:.1f} ms"
    )
    print(f"solver engine: {ENGINE}; load average {load_average()}")
    for label, dice_set, count in (
        ("4x4 classic", "classic", args.boards4),
        ("6x6 super-big", "super-big", args.boards6),
    ):
        result = time_boards(dice_set, count, word_list)
        print(
            f"{label}: {result['boards']} boards, {result['boards_per_second']:.0f} boards/s, "
            f"median {result['median_ms']:.3f} ms, p95 {result['p95_ms']:.3f} ms, "
            f"mean {result['mean_words']:.1f} words / {result['mean_points']:.1f} points per board"
        )
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB
    print(f"peak memory (max RSS): {peak_mb:.1f} MB")
    if args.danvk_checkout:  # after the peak memory: danvk's trie is not ours
        compare_with_danvk(args.danvk_checkout.resolve(), word_list, args.danvk_boards)


if __name__ == "__main__":
    main()
