"""Solver benchmark: boards per second, dictionary load time, peak memory.

    python bench/solver.py [--dictionary english] [--boards4 2000] [--boards6 200]

Solves seeded dice rolls (classic 4x4 seeds 0..N-1, super-big 6x6 seeds 0..M-1) one at a
time on one core, and prints the median and 95th-percentile time per board. The dictionary
is compiled beforehand in a child process so that compiling does not count towards this
process's peak memory.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from solver import dictionaries, roll, solve  # noqa: E402


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dictionary", default=dictionaries.DEFAULT_DICTIONARY)
    parser.add_argument("--boards4", type=int, default=2000)
    parser.add_argument("--boards6", type=int, default=200)
    args = parser.parse_args()

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


if __name__ == "__main__":
    main()
