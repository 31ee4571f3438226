"""Issue 27's hostile probes, rerun: figures against the issue's floors.

    python bench/hostile.py                          # embedded site: SQLite, one Daphne
    python bench/hostile.py --mode production        # PostgreSQL + Redis, 2 Daphnes, worker, beat
    python bench/hostile.py --probe guessing --probe daily

The site is started as ``bench/load.py`` starts it (a throwaway SQLite file, or in production
a throwaway PostgreSQL database, Redis keys under a prefix of their own, two Daphnes, a Celery
worker and beat), after ``manage.py collectstatic`` into var/static as ``bin/start`` runs it
(with debug off the pages need it), and stopped at the end; no trusted proxy is declared. The attackers are machines of their own on a
simulated Wi-Fi (``netlab``, as ``bench/abuse.py``; needs root): loopback is never
rate-limited, so every probe that measures a per-address limit runs on a Wi-Fi host, one
host per probe so that no probe spends another's budget. Probes that need no limit (the 5xx
sweep, the poisoned words, the honest victims) run from 127.0.0.1, where nothing masks a
fault behind a 429. Each probe is one function below; what it prints:

1. poisoned-words: player A enters 5 refused words while player B, in the same room and
   process, enters words whose ``client_id`` is "e\\ud800" or "e\\u0000" and words holding NUL
   or a lone surrogate (and, once the round ended, challenges one): A's refused words
   missing from A's ``my_words`` and from the results ("words lost", floor 0), and every
   ``server_error`` reply.
2. idempotency: a victim POSTs /api/rooms, /api/rooms/<code>/join and /api/practice with
   ``Idempotency-Key: 1``; the attacker (another address, no session) POSTs the same key and
   body: tokens it received that are the victim's (floor 0), and the statuses.
3. sweep: ``%00`` and ``%ED%A0%80`` in a room code on the 11 URLs of the issue (and two more),
   ``/api/daily?nickname=a%00b``, sockets with ``ab%00cd`` as a Bearer token or in
   ``?token=`` (refused: token_in_url, 4400): answers 5xx and sockets closed 1011 (floor 0).
4. guessing: random room codes on GET /api/rooms/<code>, POST …/photos, GET …/photos/1,
   /r/<code>/, the player socket and the table screen's socket, in turn, for ``--guess-seconds``
   (70): misses answered 404 (4404 on a socket) in any 60 s (floor 20), when the first
   429 (4029) came, and what a real code gets afterwards.
5. forwarded: 25 room creations at once with ``X-Forwarded-For: 127.0.0.1`` (no
   ``BOGGLE_TRUSTED_PROXIES``): created vs limited (floor: at most 20, the address's burst).
6. never-reading: 8 table-screen sockets on a room with a big state (6x6, many players,
   ended round with its solution) send ``sync`` 8 times a second and never read, for
   ``--never-reading-seconds`` (30): the Daphnes' RSS before, at the peak and after, MB
   held per socket (floor 5) and each socket's close code as its client then reads it.
7. daily: today's board computed offline from ``solver/daily.py`` without the server's secret
   (the former public seed, and the repository's development key) against the server's
   (floor: no match; tomorrow's cannot be compared, the server shows only today's); a
   scripted solution entered as fast as allowed (floor: not on the leaderboard); a 0-point
   "Victim" then the real "victim" from another device (floor: listed); 25 entries at once
   from one address (floor: at most 12 accepted, the documented burst).
8. paced-daily (issue 48): a bot solves the daily board with the project's solver and
   enters every word it can in the round, in the solver's order, with irregular gaps (never
   more than 14 within 10 s); held when its result is flagged and not on the leaderboard.
9. spread (issue 48): from one address, 45 room creations and 25 daily attempts at once,
   every other one to each Daphne (production: 2): created vs limited (floor: at most 20
   and 12, the documented bursts, however many Daphnes answer).
dice-poisoning (issue 48): a room with learning on confirms two photos with 8 dice relabelled
   each; another room, which never touched dice sets, sends the same photo
   (``bench/attacks/dice_poisoning.py``): held when it reads no die wrong and the first
   room's own next photo has no die wrong and confident.
disk-fill (issue 48): one Wi-Fi address sends 10 MB photos to its rooms and the Solve page
   as fast as they are taken (``bench/attacks/disk_fill.py``): bytes accepted and stored vs
   the hourly budget per address (200 MB); held when within it and refused with its 429.

The load average is printed after each probe, and a table of figures against floors at the
end. No traffic leaves this machine: everything goes over loopback or the simulated Wi-Fi.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
# The repository first: bench/solver.py and bench/vision.py must not hide its packages.
sys.path.insert(0, str(REPO))

from bench.attacks.daily_probe import probe_daily, probe_paced_daily  # noqa: E402
from bench.attacks.dice_poisoning import probe_dice_poisoning  # noqa: E402
from bench.attacks.disk_fill import private_media_dir, probe_disk_fill, side_disk_fill  # noqa: E402
from bench.attacks.probe_client import load_average  # noqa: E402
from bench.attacks.probes import (  # noqa: E402
    Bench,
    probe_forwarded,
    probe_guessing,
    probe_idempotency,
    probe_never_reading,
    probe_poisoned_words,
    probe_sweep,
)
from bench.attacks.server_watch import RssSampler  # noqa: E402
from bench.attacks.spread_probe import probe_spread  # noqa: E402
from bench.attacks.wifi_attackers import Wifi, side_guess, side_http, side_never_reading  # noqa: E402
from bench.crowd.figures import log  # noqa: E402
from bench.crowd.site import Site  # noqa: E402
from netlab import SimulatedWifi, guard, unavailable_reason  # noqa: E402

PROBES = (
    "sweep",
    "poisoned-words",
    "idempotency",
    "forwarded",
    "daily",
    "paced-daily",
    "spread",
    "dice-poisoning",
    "disk-fill",
    "never-reading",
    "guessing",
)


SIDES: dict[str, Callable[..., Any]] = {
    "http": side_http,
    "guess": side_guess,
    "never-reading": side_never_reading,
    "disk-fill": side_disk_fill,
}


def run_side(name: str) -> None:
    """``--child NAME``: one attacker side; its parameters as JSON on stdin, its figures as
    one JSON line on stdout. It may reach loopback and the Wi-Fi's subnet only."""
    params = json.loads(sys.stdin.read())
    guard.install()
    guard.allow(params.pop("allow"))
    print(json.dumps(asyncio.run(SIDES[name](**params))))


PROBE_FUNCTIONS: dict[str, Callable[[Bench], Any]] = {
    "sweep": probe_sweep,
    "poisoned-words": probe_poisoned_words,
    "idempotency": probe_idempotency,
    "forwarded": probe_forwarded,
    "daily": probe_daily,
    "paced-daily": probe_paced_daily,
    "spread": probe_spread,
    "dice-poisoning": probe_dice_poisoning,
    "disk-fill": probe_disk_fill,
    "never-reading": probe_never_reading,
    "guessing": probe_guessing,
}


# -------------------------------------------------------------------------------- main


def collect_static(site: Site) -> None:
    """``collectstatic``, as bin/start runs it before Daphne: with debug off the pages (the
    room-missing page among them) need the hashed files' manifest, or they answer 500."""
    log("manage.py collectstatic --noinput ...")
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
        cwd=REPO, env=site.base_env(), check=True,
    )  # fmt: skip


def site_args(args: argparse.Namespace, gateway: str) -> argparse.Namespace:
    """The options ``bench.crowd.site.Site`` reads: listening on every address (the attackers
    reach it on the Wi-Fi's ``gateway``), with no trusted proxy."""
    return argparse.Namespace(
        bind="0.0.0.0",
        extra_hosts=[gateway],
        url=None,
        mode=args.mode,
        daphnes=1 if args.mode == "embedded" else 2,
        postgres_url=args.postgres_url,
        redis_url=args.redis_url,
        redis_db=args.redis_db,
        keep_tmp=args.keep_tmp,
        preload_reader=False,
    )


async def main_async(bench: Bench, chosen: list[str]) -> None:
    print(
        f"hostile probes, {bench.mode} mode, Daphnes {', '.join(bench.bases)}; load average {load_average()}"
    )
    for name in chosen:
        print(f"\n[{name}]", flush=True)
        started = time.monotonic()
        try:
            await PROBE_FUNCTIONS[name](bench)
        except Exception as error:
            print(f"  probe failed: {type(error).__name__}: {error}")
            bench.row(name, f"probe failed ({type(error).__name__})", "-", False)
        print(f"  {time.monotonic() - started:.0f} s; load average {load_average()}", flush=True)
    print(f"\nfigures vs floors ({bench.mode} mode; load average {load_average()}):")
    width = max(len(row.item) for row in bench.rows)
    for row in bench.rows:
        print(
            f"  {row.item:<{width}}  {row.figure:<28} floor {row.floor:<22} {'ok' if row.held else 'MISSED'}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mode", choices=("embedded", "production"), default="embedded")
    parser.add_argument(
        "--probe", action="append", choices=PROBES, help="run only this probe (repeatable)"
    )
    parser.add_argument("--guess-seconds", type=float, default=70.0)
    parser.add_argument("--never-reading-seconds", type=float, default=30.0)
    parser.add_argument("--postgres-url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379")
    parser.add_argument("--redis-db", type=int, default=14)
    parser.add_argument("--keep-tmp", action="store_true", help="keep the site's logs")
    parser.add_argument("--child", choices=sorted(SIDES), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        run_side(args.child)
        return
    reason = unavailable_reason()
    if reason:
        raise SystemExit(f"hostile: the attackers need a simulated Wi-Fi: {reason}")
    guard.install()
    chosen = [name for name in PROBES if name in (args.probe or PROBES)]
    private_media_dir()  # the attack's photos go to the run's own folder
    with SimulatedWifi() as wifi:
        site = Site(site_args(args, wifi.gateway))
        try:
            collect_static(site)
            site.start()
            daphnes = [
                RssSampler(s.process.pid) for s in site.processes if s.name.startswith("daphne")
            ]
            bench = Bench(
                args.mode, site.urls, daphnes, Wifi(wifi, site.urls),
                args.guess_seconds, args.never_reading_seconds,
            )  # fmt: skip
            asyncio.run(main_async(bench, chosen))
        finally:
            site.stop()


if __name__ == "__main__":
    main()
