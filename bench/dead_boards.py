"""Dead boards: how often real dice spell (almost) nothing, and what dealing again costs.

    python bench/dead_boards.py [--rolls 20000] [--seed-prefix bench]

For every dice set, with its language's word list (French for the French dice when the
list is installed, English otherwise) and each minimum word length a room can play it
with, rolls ``--rolls`` seeded boards and prints how many spell no word at all and how
many fewer than ``solver.deal.MIN_ROUND_WORDS`` (the boards a round is dealt again
from). Then it deals as many round boards (``solver.deal.deal_round_board``) and prints
the rolls per deal and the time per deal, median and worst, on one core.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from solver import DICE_SETS, WordList, WordListError, dictionaries, roll, solve  # noqa: E402
from solver.deal import MIN_ROUND_WORDS, deal_round_board  # noqa: E402
from solver.scoring import default_min_length  # noqa: E402


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def word_list_for(dice_set_name: str, lists: dict[str, WordList]) -> tuple[str, WordList]:
    language = "french" if dice_set_name.endswith("-fr") and "french" in lists else "english"
    return language, lists[language]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rolls", type=int, default=20_000, help="boards per set and length")
    parser.add_argument("--seed-prefix", default="bench", help="seeds are PREFIX:N")
    args = parser.parse_args()

    lists = {"english": dictionaries.load("english")}
    try:
        lists["french"] = dictionaries.load("french")
    except WordListError as error:
        print(f"(no French list, the French dice use English: {error})")
    print(f"dead boards, {args.rolls} seeded rolls per line; load average {load_average()}")
    print(
        f"{'dice set':13} {'list':8} {'min':>3} {'no word':>14} {'< ' + str(MIN_ROUND_WORDS) + ' words':>15}"
        f" {'rolls/deal mean, max':>21} {'ms/deal p50, max':>17}"
    )
    for name, dice_set in DICE_SETS.items():
        language, word_list = word_list_for(name, lists)
        default = default_min_length(dice_set.rows, dice_set.cols)
        for min_length in range(default, default + 3):
            counts = [
                len(solve(roll(dice_set, f"{args.seed_prefix}:{n}"), word_list, min_length))
                for n in range(args.rolls)
            ]
            no_word = sum(count == 0 for count in counts)
            few = sum(count < MIN_ROUND_WORDS for count in counts)
            rolls, times = [], []
            for n in range(args.rolls):
                started = time.perf_counter()
                dealt = deal_round_board(
                    dice_set, word_list, min_length, seed=f"{args.seed_prefix}-deal:{n}"
                )
                times.append(time.perf_counter() - started)
                rolls.append(dealt.roll_number + 1)
            print(
                f"{name:13} {language:8} {min_length:>3} {rate(no_word, args.rolls):>14}"
                f" {rate(few, args.rolls):>15} {statistics.mean(rolls):>14.4f}, {max(rolls):>4}"
                f" {statistics.median(times) * 1000:>10.2f}, {max(times) * 1000:>5.1f}"
            )
    print(f"load average {load_average()}")


def rate(count: int, total: int) -> str:
    """``count`` of ``total`` as "n (1 in m)"."""
    return f"{count} (1 in {total // count})" if count else "0"


if __name__ == "__main__":
    main()
