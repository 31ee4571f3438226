"""Command line: ``python -m vision recognize PHOTO [PHOTO ...] [--size 4x4] [--json]``.

The models are loaded once for all photos. With ``--json`` each photo gives one JSON object
on its own line, in the order given: ``path, rows, cols, letters, confidence, centers`` or
``path, error``. Exit status: 0 when every photo was read, 1 when some were not, 2 when the
command itself cannot run (bad arguments, missing model).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from vision.errors import ModelError
from vision.recognize import MODELS_DIR, BoardReader, BoardReading, parse_size


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m vision", description="Read Boggle boards.")
    commands = parser.add_subparsers(dest="command", required=True)
    recognize = commands.add_parser("recognize", help="read the board in each photo")
    recognize.add_argument("photos", nargs="+", metavar="PHOTO")
    recognize.add_argument(
        "--size", type=_size, help="grid size: 4x4, 5x5 or 6x6 (default: find it)"
    )
    recognize.add_argument("--json", action="store_true", help="one JSON object per line")
    recognize.add_argument("--models", type=Path, default=MODELS_DIR, help=argparse.SUPPRESS)
    recognize.add_argument("--threads", type=int, default=0, help="TensorFlow threads (0: all)")
    return parser


def format_reading(path: str, reading: BoardReading) -> str:
    """Human-readable board: one line per row, the least certain die noted."""
    width = max(len(face) for row in reading.letters for face in row) + 1
    lines = [f"{path}: {reading.rows}x{reading.cols}"]
    for row in reading.letters:
        lines.append("  " + "".join(face.ljust(width) for face in row).rstrip())
    value, low_row, low_col = min(
        (value, r, c)
        for r, values in enumerate(reading.confidence)
        for c, value in enumerate(values)
    )
    lines.append(f"  lowest confidence {value:.2f} (row {low_row + 1}, column {low_col + 1})")
    return "\n".join(lines)


def recognize(args: argparse.Namespace, out: TextIO) -> int:
    if args.threads:
        from vision.runtime import configure_threads

        configure_threads(args.threads)
    try:
        reader = BoardReader(args.models)
    except ModelError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    failures = 0
    for path in args.photos:
        result = reader.try_read(path, args.size)
        if isinstance(result, BoardReading):
            text = (
                json.dumps({"path": path, **result.as_dict()})
                if args.json
                else format_reading(path, result)
            )
        else:
            failures += 1
            text = (
                json.dumps({"path": path, "error": str(result)})
                if args.json
                else f"{path}: error: {result}"
            )
        print(text, file=out, flush=True)
    return 1 if failures else 0


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "recognize":
        return recognize(args, out or sys.stdout)
    return 2  # pragma: no cover - argparse rejects other commands
