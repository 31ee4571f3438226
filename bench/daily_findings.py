"""What a daily board holds, measured: where daily.plausibility's rules on *what was found*
get their thresholds (its module docstring quotes this bench's figures).

    python bench/daily_findings.py [--boards 2000] [--secret bench]

Derives ``--boards`` daily boards (``solver.daily.daily_board``: the classic 4x4 dice,
rolled until rich enough, with the English list the daily board plays) for consecutive
dates under a bench secret, tells each board's common words from its rare ones as the site
does (``games.common_words``: wordfreq, Zipf 3.0), and prints, over the boards:

- the board's maximum points and words;
- the **common ceiling**: the share of the maximum that all the board's common words are
  worth (what a player who knows only common words reaches if they find every one);
- the share of the board's words that are rare, all of them and among the 3- and 4-letter
  ones;
- how scripts that know the solution fare against the rules (``daily.plausibility``): the
  whole solution in the solver's order, the whole solution shuffled, a random half of it
  shuffled, and only the common words shortest first (the script the rules cannot tell
  from a strong person; its share of the maximum is the common ceiling).

These are facts about boards and scripts. There is no data on people here: nobody's rounds
are recorded in the repository, and the rules' margins over these figures are judgement,
said as such in daily.plausibility. No network, one core.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
from collections import Counter
from datetime import date, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "boggle_site.settings")


def percentiles(values: list[float]) -> str:
    ordered = sorted(values)

    def at(share: float) -> float:
        return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]

    return (
        f"min {ordered[0]:.2f}  p1 {at(0.01):.2f}  p5 {at(0.05):.2f}  median {at(0.5):.2f}"
        f"  p95 {at(0.95):.2f}  p99 {at(0.99):.2f}  max {ordered[-1]:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=2000)
    parser.add_argument("--secret", default="bench-daily-findings")
    args = parser.parse_args()

    import django

    django.setup()
    from daily.plausibility import BoardWord, findings_reason
    from games.common_words import COMMON_ZIPF, _zipf_of_common
    from solver import dictionaries
    from solver.daily import daily_board

    word_list = dictionaries.load("english")
    # The site's English frequency table itself (games.common_words), without the database
    # row that names the dictionary's language: the daily board's dictionary is English.
    table = _zipf_of_common("en") or {}

    def zipf(word: str) -> float:
        return table.get(word, 0.0)

    rng = random.Random(args.secret)
    maxima: list[float] = []
    counts: list[float] = []
    ceilings: list[float] = []
    rare_shares: list[float] = []
    short_rare_shares: list[float] = []
    scripts = ("solver order", "shuffled", "half shuffled", "common, short first")
    flagged: dict[str, Counter[str]] = {name: Counter() for name in scripts}
    first = date(2027, 1, 1)
    for offset in range(args.boards):
        derived = daily_board(first + timedelta(days=offset), word_list, args.secret)
        words = [
            BoardWord(found.word, found.points, zipf(found.word) >= COMMON_ZIPF)
            for found in derived.solution.words
        ]
        total = sum(word.points for word in words)
        maxima.append(total)
        counts.append(len(words))
        ceilings.append(sum(word.points for word in words if word.common) / total)
        rare_shares.append(sum(not word.common for word in words) / len(words))
        short = [word for word in words if len(word.word) <= 4]
        short_rare_shares.append(sum(not word.common for word in short) / max(1, len(short)))
        in_order = [word.word for word in words]
        shuffled = rng.sample(in_order, len(in_order))
        common_short_first = sorted(
            (word.word for word in words if word.common), key=lambda w: (len(w), rng.random())
        )
        for name, found in (
            ("solver order", in_order),
            ("shuffled", shuffled),
            ("half shuffled", shuffled[: len(shuffled) // 2]),
            ("common, short first", common_short_first),
        ):
            reason = findings_reason(found, words)
            if reason:  # the rule: the reason's text up to its first colon
                flagged[name][reason.split(":")[0]] += 1

    print(f"{args.boards} daily boards (English, classic 4x4 dice); load average", end=" ")
    print(" ".join(f"{value:.2f}" for value in os.getloadavg()))
    print(f"  maximum points         {percentiles(maxima)}")
    print(f"  words                  {percentiles(counts)}")
    print(f"  common ceiling         {percentiles(ceilings)}  (share of the maximum)")
    print(f"  rare share, all words  {percentiles(rare_shares)}")
    print(f"  rare share, 3-4 letters {percentiles(short_rare_shares)}")
    print(f"  mean common ceiling {statistics.fmean(ceilings):.3f}")
    print("scripts flagged by daily.plausibility.findings_reason:")
    for name, rules in flagged.items():
        count = rules.total()
        print(
            f"  {name:22} {count} of {args.boards} ({count / args.boards:.1%}); first rule broken:"
            f" {dict(rules.most_common())}"
        )


if __name__ == "__main__":
    main()
