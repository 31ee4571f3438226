"""``python -m solver.native build [--force] [--quiet] [--output PATH]``: compile the C core."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from solver.native import LIBRARY, BuildError, build


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m solver.native", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    build_parser = commands.add_parser("build", help="compile walk.c unless already up to date")
    build_parser.add_argument("--force", action="store_true", help="compile even if up to date")
    build_parser.add_argument("--quiet", action="store_true", help="print errors only")
    build_parser.add_argument("--output", type=Path, default=LIBRARY, help="library path")
    args = parser.parse_args(argv)

    try:
        compiled = build(args.output, force=args.force)
    except BuildError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if not args.quiet:
        state = "compiled" if compiled else "up to date"
        print(f"solver core {state}: {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
