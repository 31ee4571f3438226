"""Command line: read boards, and teach the reader a dice set.

    python -m vision recognize PHOTO [PHOTO ...] [--size 4x4] [--set DIR] [--dice NAME] [--json]
    python -m vision remember --set DIR PHOTO BOARD

``recognize``: the models are loaded once for all photos. With ``--json`` each photo gives
one JSON object on its own line, in the order given: ``path, rows, cols, letters,
confidence, centers, corners, remembered, set_check, unaided`` (``BoardReading.as_dict``) or
``path, error``. With ``--set`` the dice are read with the memory of the dice set stored in
DIR; with ``--dice`` (an official set's name, repeatable: the board is one of them) each
board is checked against those sets' own dice (``vision.dice_check``). Exit status: 0 when
every photo was read, 1 when some were not, 2 when the command itself cannot run (bad
arguments, missing model).

``remember``: reads PHOTO and adds its dice, with the faces of BOARD (the board as it
really is, in the board notation: rows separated by spaces, ``q`` the Qu die), to the dice
set in DIR (created if need be): a confirmed board, as a host confirms one on the site
(a die whose face contradicts the reader's own confident reading is kept as contested,
``vision.memory.contradicts``). Exit status 0 when remembered, 1 when the photo has no board of BOARD's size, 2 for bad
arguments.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from solver.dice import DICE_SETS
from vision.errors import ModelError
from vision.lattice import SIDES
from vision.memory import SetMemory, board_crops, contradicts
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
    recognize.add_argument("--set", type=Path, help="read with the dice set stored in this folder")
    recognize.add_argument(
        "--dice",
        action="append",
        default=[],
        choices=sorted(DICE_SETS),
        help="check each board against this official set's dice (repeatable: one of them)",
    )
    remember = commands.add_parser(
        "remember", help="add a photo's dice, as BOARD says they are, to a dice set"
    )
    remember.add_argument("--set", type=Path, required=True, help="the dice set's folder")
    remember.add_argument("photo", metavar="PHOTO")
    remember.add_argument(
        "board", metavar="BOARD", help='the true board, e.g. "tntb gdar elte sish"'
    )
    remember.add_argument("--models", type=Path, default=MODELS_DIR, help=argparse.SUPPRESS)
    remember.add_argument("--threads", type=int, default=0, help="TensorFlow threads (0: all)")
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


def load_reader(args: argparse.Namespace) -> BoardReader | None:
    if args.threads:
        from vision.runtime import configure_threads

        configure_threads(args.threads)
    try:
        return BoardReader(args.models)
    except ModelError as error:
        print(f"error: {error}", file=sys.stderr)
        return None


def recognize(args: argparse.Namespace, out: TextIO) -> int:
    memory = SetMemory.load(args.set) if args.set else None
    dice_sets = [DICE_SETS[name].dice for name in args.dice]
    reader = load_reader(args)
    if reader is None:
        return 2
    failures = 0
    for path in args.photos:
        result = reader.try_read(path, args.size, memory=memory, dice_sets=dice_sets)
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


def remember(args: argparse.Namespace, out: TextIO) -> int:
    from solver.board import parse_board

    try:
        board = parse_board(args.board)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if board.rows != board.cols or board.rows not in SIDES:
        print(f"error: {args.board!r} is not a 4x4, 5x5 or 6x6 board", file=sys.stderr)
        return 2
    memory = SetMemory.load(args.set)
    reader = load_reader(args)
    if reader is None:
        return 2
    result = reader.try_read(args.photo, board.rows, memory=memory)
    if not isinstance(result, BoardReading):
        print(f"{args.photo}: error: {result}", file=out)
        return 1
    faces = list(board.faces)
    unaided = zip(
        [face for row in result.unaided_letters for face in row],
        [value for row in result.unaided_confidence for value in row],
        strict=True,
    )
    contested = [
        contradicts(face, alone, value) for face, (alone, value) in zip(faces, unaided, strict=True)
    ]
    crops = board_crops(args.photo, result.corners, board.rows, board.cols)
    memory = memory.added(crops, faces, contested)
    memory.save(args.set)
    read = [face for row in result.letters for face in row]
    corrected = sum(a != b for a, b in zip(read, faces, strict=True))
    print(
        f"{args.photo}: {board.rows}x{board.cols} remembered ({corrected} dice read otherwise);"
        f" {len(memory)} exemplars of {len(set(memory.faces))} faces in {args.set}",
        file=out,
    )
    return 0


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "recognize":
        return recognize(args, out or sys.stdout)
    if args.command == "remember":
        return remember(args, out or sys.stdout)
    return 2  # pragma: no cover - argparse rejects other commands
