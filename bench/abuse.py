"""What one hostile client can do to the Boggle site: figures, not verdicts.

    python bench/abuse.py                               # starts an embedded site (SQLite, one Daphne)
    python bench/abuse.py --attack ws-flood             # one attack (repeat --attack for several)
    python bench/abuse.py --url http://127.0.0.1:8000   # a running site (--pid for its RSS)

Unless ``--url`` is given the site is started as ``bench/load.py`` does in its embedded mode
(a throwaway SQLite file, the dictionaries built, one Daphne; tasks run in the Daphne) and
stopped at the end. With ``--url`` the server's RSS is read from ``--pid``, or from the
process listening on the URL's port when this machine can see it; that site must listen on
every address (as ``bin/start`` does) for the attacker to reach it from the Wi-Fi.

The attacker is another machine: a network namespace of its own on a simulated Wi-Fi
(``netlab``; needs root), which reaches the site on the Wi-Fi's address, so the site sees
it come from an address that is not its own, as it would see a player's phone or a script
elsewhere, and applies every per-address limit to it (the connection guard included). Each
attack's attacking side is a process of its own there, so its traffic never slows the
honest players' event loop. The honest players use 127.0.0.1. ``--attacker loopback``
attacks from 127.0.0.1 instead, which the site never rate-limits (the host's own machine).
No traffic leaves this machine: everything goes over loopback or the simulated Wi-Fi.

Eight honest players share one room and play an untimed round throughout, each sending one
word the board spells (the repository's solver) per second; their verdict latency (send to
the ``verdict`` with that ``client_id``) is measured first for ``--idle-seconds`` (10) with
nothing else going on, then during every attack. Each attack, one after another:

- huge-body: 100 MB of zeros POSTed (with Content-Length, and once chunked without it) to
  /api/rooms/nosuchroom/photos and to /api/rooms: status, time to the answer, bytes the
  server took before answering.
- ws-flood: one player's websocket sends 2,000 messages/s, each with a 4,000-character
  ``type``, for 15 s and never reads (the client stops reading from the socket): whether
  and how the server closed it.
- join-many: one address joins the honest room 40 times at once, then 30 of those players
  send 8 words/s each for 15 s: joins refused (429) and the honest p95.
- photo-bombs: one solid 7070x7070 PNG (160 KB that would decode to 150 MB), then 9
  uploads of the largest PNG the site decodes (vision.loading.MAX_FULL_DECODE_PIXELS) from
  3 rooms; status codes, then what became of each photo within 45 s (run last by default:
  the readings it starts hold memory and CPU after it).
- socket-swarm: 2,000 websockets of one player opened, then all dropped at once (TCP
  reset, no close frame); 30 s later an honest player's ``sync`` shows whether that player
  is still "online" (a ghost).
- deep-json: a JSON body nested 5,000 levels deep POSTed to /api/rooms 20 times, and 500
  websocket frames nested 5,000 deep (over the 4,096-character message limit) plus 500
  nested 2,000 deep (under it, so they reach the JSON parser): 5xx and ``error`` replies.

For each attack: the Daphne's RSS (its process tree) before, the peak from the attack's start
until 10 s after its end, and 10 s after; HTTP 5xx answers; "Internal Server Error" and
"Traceback" lines the Daphne logged (a site started here); the honest players' verdict p95
(and words never answered) against the idle p95, over the words sent during the attack (at
least its first 5 s, so that the attacks answered at once still get a figure). A table at the end compares each attack
with the floors: RSS up by at most 100 MB, honest p95 at most 2x idle, no HTTP 500.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any

# The repository first: bench/solver.py and bench/vision.py must not hide its packages.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.attacks.abuse_report import print_report
from bench.attacks.attacker import Attacker
from bench.attacks.client import with_host
from bench.attacks.http_attacks import (
    attack_deep_json,
    attack_huge_body,
    attack_photo_bombs,
    side_deep_json,
    side_huge_body,
    side_photo_bombs,
)
from bench.attacks.measurement import Bench
from bench.attacks.outcome import Outcome
from bench.attacks.server_watch import RssSampler, ServerLog, pid_listening_on
from bench.attacks.socket_attacks import (
    attack_join_many,
    attack_socket_swarm,
    attack_ws_flood,
    side_join_many,
    side_socket_swarm,
    side_ws_flood,
)
from bench.crowd.figures import log
from bench.crowd.site import Site
from netlab import SimulatedWifi, guard, unavailable_reason

# photo-bombs last: the readings it starts go on (and hold memory) after it.
ATTACKS = ("huge-body", "ws-flood", "join-many", "socket-swarm", "deep-json", "photo-bombs")


# The attacker's sides, by name: what ``--child NAME`` runs.
SIDES: dict[str, Callable[..., Coroutine[Any, Any, dict[str, Any]]]] = {
    "huge-body": side_huge_body,
    "ws-flood": side_ws_flood,
    "join-many": side_join_many,
    "photo-bombs": side_photo_bombs,
    "socket-swarm": side_socket_swarm,
    "deep-json": side_deep_json,
}


# -------------------------------------------------------------------------------- main


def site_args(url: str | None, keep_tmp: bool, gateway: str | None) -> argparse.Namespace:
    """The options ``bench.crowd.site.Site`` reads, for an embedded site (or none, with a URL).
    With an attacker on the simulated Wi-Fi the site listens on every address, as bin/start
    does, and is reached there on the Wi-Fi's ``gateway`` address."""
    return argparse.Namespace(
        bind="0.0.0.0" if gateway else "127.0.0.1",
        extra_hosts=[gateway] if gateway else [],
        url=[url] if url else None,
        mode="embedded",
        daphnes=1,
        postgres_url="",
        redis_url="",
        redis_db=0,
        keep_tmp=keep_tmp,
        preload_reader=True,  # as bin/start runs it: the photo reader loads at start
    )


async def main_async(args: argparse.Namespace, site: Site, attacker: Attacker) -> None:
    base = site.urls[0]
    pid = args.pid
    if pid is None and site.processes:
        pid = site.processes[0].process.pid
    if pid is None:
        pid = pid_listening_on(base)
    sampler = RssSampler(pid)
    sampler.start()
    if pid is None:
        log("no server pid (give --pid): RSS is not measured")
    attacker.base = with_host(base, attacker.base)
    where = f"from {args.attacker_host.address}" if args.attacker_host else "from loopback"
    log(f"honest players use {base}; the attacker uses {attacker.base} ({where})")
    bench = Bench(base, attacker, sampler, ServerLog(site) if site.processes else None)
    attacks: dict[str, Callable[[Outcome], Awaitable[None]]] = {
        "huge-body": lambda o: attack_huge_body(bench, o),
        "ws-flood": lambda o: attack_ws_flood(bench, o),
        "join-many": lambda o: attack_join_many(bench, o),
        "photo-bombs": lambda o: attack_photo_bombs(bench, o),
        "socket-swarm": lambda o: attack_socket_swarm(bench, o),
        "deep-json": lambda o: attack_deep_json(bench, o),
    }
    chosen = args.attack or list(ATTACKS)
    outcomes: list[Outcome] = []
    try:
        await sampler.settle()
        await bench.table.start()
        await bench.measure_idle(args.idle_seconds)
        for name in chosen:
            outcomes.append(await bench.run(name, attacks[name]))
    finally:
        await bench.table.stop()
        sampler.stop()
    print_report(bench, outcomes)


def run_side(name: str) -> None:
    """``--child NAME``: one attack's attacker side, its parameters as JSON on stdin, what it
    saw as one JSON line on stdout. It may reach loopback and the Wi-Fi's subnet only."""
    params = json.loads(sys.stdin.read())
    guard.install()
    allow = params.pop("allow")
    if allow:
        guard.allow(allow)
    print(json.dumps(asyncio.run(SIDES[name](**params))))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--url", metavar="http://HOST:PORT", help="a running site (starts nothing)")
    parser.add_argument("--pid", type=int, help="the running site's Daphne pid (for its RSS)")
    parser.add_argument(
        "--attack", action="append", choices=ATTACKS, help="run only this attack (repeatable)"
    )
    parser.add_argument("--idle-seconds", type=float, default=10.0, help="idle measurement (10)")
    parser.add_argument("--keep-tmp", action="store_true", help="keep the site's temporary files")
    parser.add_argument(
        "--attacker",
        choices=("wifi", "loopback"),
        default="wifi",
        help="where the attacker runs: wifi = a machine of its own on a simulated Wi-Fi"
        " (a network namespace; needs root), so the site sees another address and applies"
        " every per-address limit (the default); loopback = this machine's 127.0.0.1, which"
        " the site never rate-limits",
    )
    # One attack's attacker side, run by ``Attacker.run``: its parameters as JSON on stdin.
    parser.add_argument("--child", choices=sorted(SIDES), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        run_side(args.child)
        return
    guard.install()  # honest players and probes: loopback and the Wi-Fi only
    with contextlib.ExitStack() as stack:
        args.attacker_host = None
        gateway = subnet = None
        if args.attacker == "wifi":
            reason = unavailable_reason()
            if reason:
                raise SystemExit(
                    f"abuse: cannot put the attacker on a simulated Wi-Fi: {reason}."
                    " Run as root, or pass --attacker loopback (no per-address limits apply)."
                )
            wifi = stack.enter_context(SimulatedWifi())
            args.attacker_host = wifi.add_host("attacker")
            gateway, subnet = wifi.gateway, str(wifi.subnet)
        site = Site(site_args(args.url, args.keep_tmp, gateway))
        attacker = Attacker(gateway or "127.0.0.1", args.attacker_host, subnet)
        try:
            site.start()
            asyncio.run(main_async(args, site, attacker))
        finally:
            site.stop()


if __name__ == "__main__":
    main()
