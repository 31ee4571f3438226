"""Sum py-spy's collapsed stacks by function: where a web process's CPU went.

    python bench/load.py --profile /tmp/prof --profile-format raw ...
    python bench/profile_summary.py /tmp/prof/daphne-*-round1.txt
    python bench/profile_summary.py --top 40 --match games/ /tmp/prof/*.txt

Each line of the input is ``frame;frame;...;frame count`` (py-spy ``--format raw``). Printed:
the share of samples in which each function is on the stack (inclusive: it or what it
called), and the share in which it is the innermost frame (self), largest first. ``--match``
keeps only functions whose frame text contains the string (a module path, say).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

# py-spy's frame text: "function (path/to/module.py:line)"; the line differs per call site,
# so it is dropped to sum a function's samples.
LINE_NUMBER = re.compile(r":\d+\)$")


def function_of(frame: str) -> str:
    return LINE_NUMBER.sub(")", frame.strip())


def summarise(lines: list[str]) -> tuple[int, Counter[str], Counter[str]]:
    """(samples, inclusive samples by function, self samples by function)."""
    total = 0
    inclusive: Counter[str] = Counter()
    own: Counter[str] = Counter()
    for line in lines:
        stack, _, count_text = line.rstrip().rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = [function_of(frame) for frame in stack.split(";")]
        total += count
        for function in set(frames):
            inclusive[function] += count
        own[frames[-1]] += count
    return total, inclusive, own


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="py-spy raw output files")
    parser.add_argument("--top", type=int, default=30, help="functions to print per table")
    parser.add_argument("--match", default="", help="only functions whose text contains this")
    args = parser.parse_args(argv)
    lines: list[str] = []
    for path in args.files:
        lines.extend(path.read_text().splitlines())
    total, inclusive, own = summarise(lines)
    if total == 0:
        print("no samples", file=sys.stderr)
        return 1
    print(f"{total} samples in {len(args.files)} file(s)")
    for title, counter in (("inclusive", inclusive), ("self", own)):
        print(f"\n{title:>9}  function")
        shown = [(name, n) for name, n in counter.most_common() if args.match in name]
        for name, count in shown[: args.top]:
            print(f"{100 * count / total:8.1f}%  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
