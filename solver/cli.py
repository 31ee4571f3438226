"""Command-line interface: ``python -m solver solve|score|roll|build|compile|lookup``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TextIO

from solver import dictionaries
from solver.board import parse_board
from solver.compiler import compile_file
from solver.dice import DICE_SETS, roll
from solver.errors import SolverError
from solver.solve import solve
from solver.wordrules import ENGLISH_ALPHABET, WordRules

EXIT_BAD_INPUT = 2


BOARD_NOTATION = """\
board notation: rows separated by spaces or slashes ("aeol iejm pdls orkf"), or a square
board in one run ("aeoliejmpdlsorkf"). Each letter is one die and "q" is the Qu die, so
"qu" is the Qu die then a U die; "qu" is read as the Qu die alone only where letters one
by one give no board (a run that is not square, rows of unequal length). Two-letter faces
(in th er he an) need commas in their row: "a,th,e,r". "#" is a blocked square. Words are
spelled in full: the Qu die gives "qu" ("quit", never "qit")."""


def main(argv: Sequence[str] | None = None, stdin: TextIO | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args, stdin or sys.stdin)
    except SolverError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m solver",
        description="Boggle solver",
        epilog=BOARD_NOTATION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    solve_cmd = commands.add_parser(
        "solve",
        help="list every word on a board",
        epilog=BOARD_NOTATION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    solve_cmd.add_argument(
        "board", nargs="+", help='e.g. "aeol iejm pdls orkf" or aeoliejmpdlsorkf'
    )
    _dictionary_option(solve_cmd)
    solve_cmd.add_argument("--min-length", type=int, help="default: 3, or 4 from 5x5 up")
    solve_cmd.add_argument("--json", action="store_true", help="print JSON")
    solve_cmd.set_defaults(run=_run_solve)

    score_cmd = commands.add_parser(
        "score",
        help="read boards from stdin, print board<TAB>points<TAB>words",
        epilog=BOARD_NOTATION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _dictionary_option(score_cmd)
    score_cmd.add_argument("--min-length", type=int, help="default: by board size")
    score_cmd.set_defaults(run=_run_score)

    roll_cmd = commands.add_parser("roll", help="roll a board from a dice set")
    roll_cmd.add_argument("--dice", default="classic", choices=sorted(DICE_SETS))
    roll_cmd.add_argument("--seed", help="same seed, same board")
    roll_cmd.set_defaults(run=_run_roll)

    build_cmd = commands.add_parser("build", help="compile named dictionaries into the cache")
    build_cmd.add_argument(
        "names",
        nargs="*",
        default=list(dictionaries.SHIPPED),
        metavar="NAME",
        help=f"default: {' '.join(dictionaries.SHIPPED)}; also: dutch french",
    )
    build_cmd.add_argument("--force", action="store_true", help="recompile even if current")
    build_cmd.set_defaults(run=_run_build)

    compile_cmd = commands.add_parser("compile", help="compile a word-list file")
    compile_cmd.add_argument("wordlist", help="plain text or gzip, one word per line")
    compile_cmd.add_argument("output", help="the .lex file to write")
    compile_cmd.add_argument("--alphabet", default=ENGLISH_ALPHABET)
    compile_cmd.add_argument("--fold-accents", action="store_true")
    compile_cmd.add_argument("--no-qu-rule", action="store_true", help="keep q without u")
    compile_cmd.add_argument("--keep-capitalised", action="store_true")
    compile_cmd.add_argument("--min-length", type=int, default=3)
    compile_cmd.add_argument("--max-length", type=int, default=36)
    compile_cmd.set_defaults(run=_run_compile)

    lookup_cmd = commands.add_parser("lookup", help="is a word in a dictionary, and why not")
    lookup_cmd.add_argument("word")
    _dictionary_option(lookup_cmd)
    lookup_cmd.set_defaults(run=_run_lookup)
    return parser


def _dictionary_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--dictionary",
        default=dictionaries.DEFAULT_DICTIONARY,
        metavar="NAME_OR_PATH",
        help=f"a name ({', '.join(dictionaries.NAMED_LISTS)}), a .lex file or a word list",
    )


def _run_solve(args: argparse.Namespace, stdin: TextIO) -> int:
    board = parse_board(" ".join(args.board))
    word_list = dictionaries.load(args.dictionary)
    solution = solve(board, word_list, args.min_length)
    if args.json:
        print(
            json.dumps(
                {
                    "board": board.to_text(),
                    "rows": board.rows,
                    "cols": board.cols,
                    "words": [found.to_dict() for found in solution.words],
                    "word_count": len(solution),
                    "total_points": solution.total_points,
                }
            )
        )
        return 0
    width = max((len(found.word) for found in solution.words), default=4)
    for found in solution.words:
        print(f"{found.word:<{width}}  {found.points:>3}")
    print(f"{len(solution)} words, {solution.total_points} points")
    return 0


def _run_score(args: argparse.Namespace, stdin: TextIO) -> int:
    word_list = dictionaries.load(args.dictionary)
    status = 0
    for number, line in enumerate(stdin, start=1):
        text = line.strip()
        if not text:
            continue
        try:
            solution = solve(parse_board(text), word_list, args.min_length)
        except SolverError as error:
            print(f"line {number}: {error}", file=sys.stderr)
            status = EXIT_BAD_INPUT
            continue
        print(f"{text}\t{solution.total_points}\t{len(solution)}")
    return status


def _run_roll(args: argparse.Namespace, stdin: TextIO) -> int:
    # "--seed 42" rolls the same board as roll(..., 42) in Python: numbers are ints.
    seed = (
        int(args.seed) if args.seed is not None and args.seed.lstrip("-").isdigit() else args.seed
    )
    print(roll(args.dice, seed).to_text())
    return 0


def _run_build(args: argparse.Namespace, stdin: TextIO) -> int:
    for name in args.names:
        report = dictionaries.build(name, force=args.force)
        where = dictionaries.compiled_path(name)
        if report is None:
            print(f"{name}: up to date ({where})")
        else:
            print(f"{name}: compiled to {where}\n{report.summary()}")
    return 0


def _run_compile(args: argparse.Namespace, stdin: TextIO) -> int:
    rules = WordRules(
        alphabet=args.alphabet,
        fold_accents=args.fold_accents,
        qu_rule=not args.no_qu_rule,
        min_length=args.min_length,
        max_length=args.max_length,
        keep_capitalised=args.keep_capitalised,
    )
    report = compile_file(args.wordlist, args.output, rules)
    print(report.summary())
    return 0


def _run_lookup(args: argparse.Namespace, stdin: TextIO) -> int:
    accepted, reason = dictionaries.load(args.dictionary).explain(args.word)
    print(("yes: " if accepted else "no: ") + reason)
    return 0 if accepted else 1
