"""First-round benchmark: how long the first round after a start spends on "Shaking the dice".

    python bench/first_round.py [--runs 3] [--settle 5]

A process's first ``prepare_round`` used to load the common-word frequencies and the word
list (games.warm_up). For each of the two settings, the warm-up off
(``BOGGLE_WARM_UP_ROUNDS=0``, as before) and on (the default), this starts ``--runs`` fresh
embedded sites (Daphne, a throwaway SQLite file, tasks in the process, as ``bin/start``),
waits ``--settle`` seconds after each answers (the time it takes anyone to open the start
page and press a button), then times ``POST /api/practice``: a solo round that starts at
once, whose answer comes once the round is prepared (the embedded site prepares it in the
request). A second practice round on the same site is the warm baseline. It prints the
medians, each run's figures and the load average. Loopback only; nothing is left behind.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.servers import SiteServer  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="fresh sites per setting")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds before the round")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "boggle_site.settings")
    import django

    django.setup()
    from solver import dictionaries

    dictionaries.build("english")  # compiled once here, not by the first site mid-request
    print(
        f"first round after a fresh start, {args.runs} runs, settle {args.settle:g} s; "
        f"load average {_load()}"
    )
    for label, warm in (("warm-up off (before)", "0"), ("warm-up on (after)", "1")):
        first, second = [], []
        for _ in range(args.runs):
            one, two = _run(warm, args.settle)
            first.append(one)
            second.append(two)
        print(
            f"  {label:>20}: first round {statistics.median(first):7.0f} ms median "
            f"({', '.join(f'{ms:.0f}' for ms in first)}); second round "
            f"{statistics.median(second):5.0f} ms median; load average {_load()}"
        )


def _run(warm: str, settle: float) -> tuple[float, float]:
    """One fresh site: the first and the second practice round's answer times (ms)."""
    with tempfile.TemporaryDirectory(prefix="boggle-first-round-") as folder:
        server = SiteServer(
            Path(folder), extra_env={"BOGGLE_WARM_UP_ROUNDS": warm, "DJANGO_LOG_LEVEL": "WARNING"}
        )
        with server.running():
            time.sleep(settle)
            return _practice(server.url), _practice(server.url)


def _practice(url: str) -> float:
    body = json.dumps({"nickname": "Bench"}).encode()
    request = urllib.request.Request(
        f"{url}/api/practice",
        data=body,
        headers={"Content-Type": "application/json", "Accept": "application/json"},
        method="POST",
    )
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=60) as response:
        answer = json.loads(response.read())
    elapsed = (time.perf_counter() - started) * 1000
    assert response.status == 201, answer
    assert answer["room"]["round"]["status"] == "running", answer["room"]["round"]["status"]
    return elapsed


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    main()
