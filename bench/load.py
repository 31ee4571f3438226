"""Load client for the Boggle site: many players, real sockets, honest figures.

    python bench/load.py                                  # embedded: 300 players, rooms of 8
    python bench/load.py --quick                          # a smoke run: 16 players, rooms of 4
    python bench/load.py --players 100 --room-size 100    # one big room
    python bench/load.py --mode production --daphnes 2 --players 600
    python bench/load.py --mode production --daphnes 2 --private-services  # clean costs
    python bench/load.py --through-nginx --private-services  # the production nginx in front
    python bench/load.py --side-by-side --private-services   # direct, then through nginx
    python bench/load.py --url http://127.0.0.1:8000      # a site already running
    python bench/load.py --faults                         # five faults, a fresh site each
    python bench/load.py --faults redis,daphne            # some of them
    python bench/load.py --faults rolling                 # a rolling restart of the Daphnes
    python bench/load.py --mode production --daphnes 2 --server uvicorn  # issue 50's comparison

It speaks only the protocol of docs/api.md (the HTTP API and the room websocket). Unless
``--url`` is given it starts the site itself, in one of two modes, and stops every process
it started at the end (also on Ctrl-C or an error):

- embedded: a throwaway SQLite file (``DATABASE_URL=sqlite:///<tmp>/db.sqlite3``), the
  dictionaries built, the database migrated, one Daphne; the channel layer is in memory and
  tasks run in the Daphne process, as with ``bin/start``.
- production: a throwaway PostgreSQL database on 127.0.0.1:5432 (dropped at the end), Redis
  database ``--redis-db`` on 127.0.0.1:6379 (this run's keys under a prefix of their own,
  deleted at the end; nothing else is touched), ``--daphnes`` Daphne
  processes on free ports, one Celery worker (``--concurrency 2``) and Celery beat.
  ``bin/services`` starts PostgreSQL and Redis when they are down.

Both modes set a random ``DJANGO_SECRET_KEY`` (debug off, as in real use) and
``DJANGO_LOG_LEVEL=WARNING`` unless set. The run:

1. burst (``--no-burst`` skips it): three times over, one room is created, then 40 joins of
   it and 10 room creations are released at the same instant, each from a fresh client
   (its own connection, no cookies); every answer that is not 2xx is counted.
2. rooms: the first player of each room creates it with ``round_seconds``, the others join,
   all rooms at once (each POST with an ``Idempotency-Key``, retried twice when no answer or
   a 5xx came); every player opens the room websocket with its token in the handshake's
   ``Authorization: Bearer`` header (players spread
   over the Daphnes round-robin, as a proxy would; ``--route room`` puts a room's players
   on one Daphne, as a proxy hashing the room code would) and keeps the room ``version``.
3. rounds: each host sends ``start_round``; between ``starts_at`` and ``ends_at`` (server
   clock; same machine) every player sends ``submit`` with a fresh ``client_id`` at
   ``--words-per-second`` with a random phase: mostly words the board spells (solved here
   with the repository's solver), some garbage, some repeats. Sending stops at
   ``ends_at``. A player waits up to ``--round-end-wait`` s after ``ends_at`` for
   ``round.ended``, then sends ``sync`` to recover; it waits up to ``--drain-seconds`` after
   ``ends_at`` for the last verdicts. Then the results are read over HTTP. As docs/api.md
   asks, an entry answered ``server_error`` or ``rate_limited`` is sent again (same
   ``client_id``) after 1, 2, 4, 8 s, and after a reconnect the entries of the state's round
   that got no verdict are resent (an older round's are not: they would be judged in the new
   round).

Figures printed at the end (``--json PATH`` writes them too): verdict latency (send to the
``verdict`` with that ``client_id``) and verdicts by kind; deadline to ``round.ended`` per
client and the clients that never got it as an event; HTTP 5xx and other non-2xx (burst and
game apart); lost words (answered ``accepted`` but missing from that player's ``words`` in
the results, or never answered); words sent at least 50 ms before ``ends_at`` answered
``round_over``; missed events (versions a client never received, between its first
``state`` and the highest version any client of the room saw); ``error`` replies by code;
and, for a site it started, SQL statements per accepted word (from
``web/statement_stats.py``: the processes write their totals every 0.5 s, read at
``starts_at`` and ``ends_at``, so the window lags by up to 0.5 s), the CPU seconds and peak
RSS of all server processes together (psutil, every 0.5 s, whole process trees), and this
client's own CPU and event-loop lag, with a warning when the client itself may be the
bottleneck. Each verdict's latency is also split at its ``server_time`` (when the server
sent it; one clock, for a site on this machine): the server's share, and the way back with
the client's own delays. This one process plays every phone: its cycle collector is tuned
as the Daphnes' is and paused during each round (``web.gc_tuning``), as its pauses counted
in the latencies it measured.

The costs of each part (``bench/crowd/costs.py``; docs/scaling.md uses them), over the
play (from the last room's ``starts_at`` to the first room's ``ends_at``), over the rounds'
end (from there until every player has had ``round.ended`` and the whole results, less the
play of the rooms still playing) and idle (everyone connected, before the game): the
CPU of each server process (Daphnes' CPU per verdict and per frame sent); in production,
Redis commands by name (``INFO commandstats``) per accepted word and per room event, its
CPU and bytes; PostgreSQL transactions and rows inserted, updated, deleted and fetched
(``pg_stat_database`` and ``pg_stat_user_tables`` of the run's database) per accepted word
and per room ending, and WAL bytes; and the payload bytes and frames the sockets carried,
per socket. Redis and PostgreSQL are shared by default, so Redis's counts and the WAL
include other programs' work: ``--private-services`` starts a redis-server and a
PostgreSQL cluster of the run alone (as ``--faults`` does), which also measures their CPU.

Through nginx (``--through-nginx``; production mode only, ``--daphnes 2`` unless given):
the run also starts the production stack's nginx, rendered from the project's own templates
exactly as ``bin/start --production`` renders them (``production.render``: deploy/nginx/
boggle.conf in ``nginx_main``'s nginx.conf; ``bench/crowd/nginx.py``), with this run's
Daphnes as its upstream, listening on a free loopback port, its configuration, pid and
buffers in the run's temporary directory (as root its workers are www-data, as production's),
and the Daphnes trusting its ``X-Forwarded-For`` (``BOGGLE_TRUSTED_PROXIES=127.0.0.1/32``,
as production's environment). Every request and socket of the run goes through it, so its
hash on the room code decides which Daphne holds each room. Its per-address limits (50
requests a second with a burst of 500, 200 connections: ``production/render.py``) stay as
shipped; instead each player connects from an address of its own, 127.0.<n>.<m> (all of
127.0.0.0/8 is loopback), as phones do from their own networks: 1,000 players from one
address would only measure nginx refusing them. The site's own per-address limits
(``web/throttle.py``) exempt loopback clients, as in the direct run: the client the Daphnes
count is the right-most ``X-Forwarded-For`` entry, a 127.0.<n>.<m>, so nothing changes for
them. The burst and the bench's own reads keep 127.0.0.1 (40 joins at once from one address,
a household, stay within nginx's limits). nginx is stopped with the other processes. Its CPU
counts with the server's, and the costs give it per verdict, besides the Daphnes'.
``--side-by-side`` runs the direct load first (``--route room``: a room's players on one
Daphne, as nginx's hash does, but rooms spread evenly), then the load through nginx, each
on a fresh site, and prints the two runs' headline figures in two columns (web CPU per
verdict, Redis commands per room event, frames per socket, latencies, losses, 5xx);
``--json`` then writes both reports and the columns. The websockets each Daphne held once
everyone was connected (its ``/metrics``) show how the hash spread the rooms; a count that is
not a multiple of the room size means rooms were split: nginx gives up connecting to a Daphne
after 2 s (``proxy_connect_timeout``) and takes the socket to the next one, or answers 504
(counted as handshakes answered 5xx), where a direct client just waits for the Daphne.

Another ASGI server (``--server uvicorn`` or ``--server granian``; production mode only, no
``--faults``), for issue 50's comparison: the web processes are Uvicorn 0.54.0 (uvloop
0.23.0, httptools 0.9.0, its ``websockets`` implementation, websockets 17.4) or Granian
2.8.7 (``--interface asginl``: ASGI without lifespan, one worker) instead of Daphne, on the
same ports with the same environment, serving ``boggle_site.asgi:application`` warmed up as
``production.serve`` warms a Daphne (``bench/crowd/warm_asgi.py``), one process each
(``--daphnes`` of them, still named ``daphne-<port>`` in the figures). Production ships
Daphne and neither server is in requirements.txt: they run from a virtualenv of their own,
``BOGGLE_BENCH_SERVERS_VENV`` (default ``var/bench-servers/venv``), which the bench tells
how to create when it is missing (``bench/crowd/servers.py``). The report says, in one line,
which of the site's Daphne-only parts (the drain, the send cap, prompt writes, the
connection guard) do not apply.

The faults scenario (``--faults``; implies ``--mode production --daphnes 2 --no-burst``, 50
players in rooms of 8, 1 word/s, 30 s rounds) breaks the site mid-round and measures what
the players go through. Each fault runs in its OWN fresh site, one after another, and that
site has a private redis-server (``redis-server --port P --save "" --appendonly no``) and a
private PostgreSQL cluster (``initdb`` into a temporary directory, ``pg_ctl`` on a free
port, as the ``postgres`` user through ``runuser`` when run as root); the shared services on
6379 and 5432 are never used or touched. Both are stopped and their directories removed at
the end, also on Ctrl-C or an error. The faults, ``--fault-at`` (10) s after round 1's
``starts_at``:

- redis: the redis-server is SIGKILLed and started again on its port ``--fault-down`` (2) s
  later, empty;
- postgres: ``pg_ctl stop -m fast``, ``--fault-down`` s, ``pg_ctl start -w``;
- celery: the Celery worker (its process group) is SIGKILLed and a new one started 1 s later;
- daphne: the first of the two Daphnes is SIGKILLed (players are spread round-robin, so with
  rooms of an even size every host's socket is on it); its players reconnect to the other (a
  refused connection goes to another Daphne, as a proxy routes it, and the dead one leaves
  the rotation) except ``--leavers`` of them.
- rolling: a rolling restart, as docs/operations.md ("Stopping and draining") describes it:
  each Daphne in turn is SIGTERMed (``production.serve`` drains: it stops listening, answers
  what its sockets sent, closes them with 1012 and writes its words) and started again on its
  port, the next one once the new one listens. The players reconnect at once on 1012 (after
  0-250 ms, as the page does), to another Daphne. Printed besides: each step's SIGTERM ->
  exit and start -> listening, and the floors (0 words lost, 0 errors shown, every socket
  back within 2 s: its drop -> its ``state``, p50/max and how many took longer), with the
  load average.

In every fault ``--leavers`` (5) players who are not hosts, one per room, leave the table for
good: they close their socket (1001) half a second into the outage, or, for the Daphne kill,
their socket dies with it, and they never reconnect. The clients behave as docs/api.md
describes the site's own page: after a drop they reconnect with backoff (1 s, 2 s, ... 30 s,
for ever; after a 1012, at once), take the ``state`` as theirs and resend the current round's unanswered entries
with the same ``client_id``; an entry answered ``server_error`` or ``rate_limited`` is sent
again after 1, 2, 4, 8 s; they ``ping`` after 5 s without a message, close and reconnect
after 12 s without one, and ``sync`` when a version gap or a ``pong`` version past theirs
lasts a second. Each room's host sends ``start_round`` for round 2 as soon as it has learned
that round 1 ended (an event, or a state); round 2 is played in full. During the rounds an
HTTP prober reads a room's state every 0.5 s and creates a room every 2 s (with an
``Idempotency-Key``, retried twice). Printed per fault:

- lost words in round 1 and round 2: answered ``accepted`` but missing from the results, or
  never answered and not in the results either (what was resent and answered in the end is
  not lost; the leavers' unanswered words are shown apart); words typed in time but
  answered ``round_over`` (the server never got them before the deadline);
- the round's end: for every client that stayed, whether it learned it (``round.ended``, a
  state after reconnecting, a ``sync``; the bench's own sync ``--round-end-wait`` (60) s after
  ``ends_at`` is the last resort and named as such), p50/max after ``ends_at`` and how many
  took over 2 s;
- ghosts, ``--ghost-after`` (30) s after the fault and after the leavers closed, and again at
  the end: players a fresh ``sync`` state shows ``online: true`` while every socket of theirs
  has been closed for 5 s or more (the leavers among them), and the reverse; and from the
  events, how long after its close each leaver was announced offline (``player.online``
  false), or never, and how many staying players were announced offline;
- the next round: service back (the fault itself for the kills) -> round 2's
  ``round.started``, round 1's deadline -> it, and the host learning that round 1 ended -> it;
- HTTP answers by status and ``error`` replies by code from the fault until 10 s after the
  service was back, and over both rounds; socket drops, reconnects, syncs, resends; error
  lines and the exceptions ending tracebacks in the server logs, and server processes that
  exited by themselves.

A summary table of all faults comes last.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
# The repository first: bench/solver.py and bench/vision.py must not hide its packages.
sys.path.insert(0, str(REPO))

from bench.crowd.fault_record import FAULTS  # noqa: E402
from bench.crowd.fault_report import print_fault_report, print_fault_summary  # noqa: E402
from bench.crowd.faults import rolling_lines, run_fault  # noqa: E402
from bench.crowd.figures import log  # noqa: E402
from bench.crowd.nginx import MAX_PLAYERS  # noqa: E402
from bench.crowd.phases import BURST_CREATIONS, BURST_JOINS, BURST_TIMES, run_load  # noqa: E402
from bench.crowd.processes import signals_held  # noqa: E402
from bench.crowd.report import build_report, print_report  # noqa: E402
from bench.crowd.run import Run  # noqa: E402
from bench.crowd.servers import SERVERS  # noqa: E402
from bench.crowd.side_by_side import side_by_side, table_lines  # noqa: E402
from bench.crowd.site import Site  # noqa: E402

PRESETS: dict[str, dict[str, Any]] = {
    "default": {"players": 300, "room_size": 8, "words_per_second": 1.0, "round_seconds": 30},
    "quick": {"players": 16, "room_size": 4, "words_per_second": 1.0, "round_seconds": 30},
    "faults": {"players": 50, "room_size": 8, "words_per_second": 1.0, "round_seconds": 30},
}


def main_faults(args: argparse.Namespace) -> int:
    """Each fault in its own fresh site (private Redis and PostgreSQL), one after another."""
    reports: list[dict[str, Any]] = []
    for index, fault in enumerate(args.faults, 1):
        log(f"fault {index}/{len(args.faults)}: {fault}: starting a fresh site")
        site = Site(args, private=True)
        run = Run(args, site)
        try:
            site.start()
            report = asyncio.run(run_fault(run, fault))
        except KeyboardInterrupt:
            log("interrupted: stopping everything this run started")
            return 130
        except SystemExit as error:  # the site could not start
            log(f"{fault}: {error}")
            report = {"fault": fault, "start_failed": str(error)[:2000]}
        finally:
            with signals_held():
                run.pool.shutdown(wait=False, cancel_futures=True)
                site.stop()
        if "start_failed" in report:
            print(f"\n== fault: {fault}: THE SITE DID NOT START ==\n{report['start_failed']}")
        else:
            print_fault_report(report)
            if "rolling" in report:
                print("\n".join(rolling_lines(report["rolling"])), flush=True)
        reports.append(report)
    print_fault_summary([r for r in reports if "start_failed" not in r])
    if args.json:
        Path(args.json).write_text(json.dumps(reports, indent=2, default=str) + "\n")
        log(f"figures written to {args.json}")
    return 0 if all("start_failed" not in r and not r["error"] for r in reports) else 1


# ------------------------------------------------------------------------ main


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """The module docstring as written, and each option's default when it has one."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if action.default not in (None, False, argparse.SUPPRESS) and action.option_strings:
            text += " (default: %(default)s)"
        return text


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="bench/load.py",
        description=__doc__,
        epilog=(
            "Issue 11's floors: the default run (embedded, 300 players in rooms of 8, 1 word/s,"
            " 30 s rounds); --players 100 --room-size 100 (one room); --mode production"
            " --daphnes 2 --players 600. More in this file's docstring."
        ),
        formatter_class=HelpFormatter,
    )
    site = parser.add_argument_group("the site")
    site.add_argument(
        "--mode",
        choices=("embedded", "production"),
        help="embedded: SQLite file, one Daphne; production: PostgreSQL, Redis, --daphnes"
        " Daphnes, a Celery worker and beat (default: embedded; production with --faults)",
    )
    site.add_argument(
        "--url",
        action="append",
        metavar="http://HOST:PORT",
        help="play against a running site instead (repeat for several Daphnes); starts nothing,"
        " and then statements, CPU and RSS are not measured",
    )
    site.add_argument(
        "--daphnes",
        type=int,
        help="Daphne processes (production mode only; default 1, 2 with --faults)",
    )
    site.add_argument(
        "--server",
        choices=SERVERS,
        default="daphne",
        help="the web processes' ASGI server (production mode, no --faults): uvicorn and"
        " granian, for comparison only, run from BOGGLE_BENCH_SERVERS_VENV (see"
        " bench/crowd/servers.py)",
    )
    site.add_argument(
        "--postgres-url",
        default="postgresql://postgres@127.0.0.1:5432/postgres",
        help="where to create (and drop) the throwaway database (production)",
    )
    site.add_argument(
        "--redis-url", default="redis://127.0.0.1:6379", help="Redis server (production)"
    )
    site.add_argument(
        "--redis-db",
        type=int,
        default=14,
        help="Redis database (production; only this run's keys are deleted)",
    )
    site.add_argument(
        "--route",
        choices=("round-robin", "room"),
        default="round-robin",
        help="which Daphne each player's websocket goes to: round-robin (the next one, as a"
        " proxy spreads connections), or room (all of a room's players on one Daphne, rooms"
        " spread round-robin, as a proxy hashing the room code would)",
    )
    site.add_argument(
        "--private-services",
        action="store_true",
        help="production: a redis-server and a PostgreSQL cluster of this run alone (as"
        " --faults has), instead of --redis-url and --postgres-url: the costs' Redis counts,"
        " WAL bytes and the services' CPU are then this site's alone",
    )
    site.add_argument(
        "--through-nginx",
        action="store_true",
        help="put the production nginx (deploy/nginx/boggle.conf, its room affinity and"
        " per-address limits) in front of the Daphnes, each player from a loopback address of"
        " its own; implies --mode production, --daphnes 2 unless given",
    )
    site.add_argument(
        "--side-by-side",
        action="store_true",
        help="run the load directly (--route room) and then through nginx, each on a fresh"
        " site, and print their figures in two columns",
    )
    site.add_argument(
        "--keep-tmp", action="store_true", help="keep the temporary directory (server logs)"
    )
    game = parser.add_argument_group("the game (defaults: issue 11's embedded floor)")
    game.add_argument("--players", type=int, help="players in all (default 300; --quick 16)")
    game.add_argument("--room-size", type=int, help="players per room (default 8; --quick 4)")
    game.add_argument(
        "--words-per-second", type=float, help="words each player sends a second (default 1)"
    )
    game.add_argument(
        "--round-seconds", type=int, help="round length, 30 to 1800 (default 30; --quick 30)"
    )
    game.add_argument("--rounds", type=int, default=1, help="rounds played by every room")
    game.add_argument(
        "--quick", action="store_true", help="a smoke run: 16 players in rooms of 4, 30 s rounds"
    )
    game.add_argument(
        "--burst",
        action=argparse.BooleanOptionalAction,
        default=True,
        help=f"first, {BURST_TIMES} times over: {BURST_JOINS} joins of one room +"
        f" {BURST_CREATIONS} creations at the same instant",
    )
    game.add_argument(
        "--garbage-share", type=float, default=0.1, help="share of entries that are garbage"
    )
    game.add_argument(
        "--repeat-share", type=float, default=0.1, help="share of entries repeating a word sent"
    )
    game.add_argument("--seed", type=int, default=1, help="random seed (words, phases)")
    faults = parser.add_argument_group("faults (the faults scenario; see this file's docstring)")
    faults.add_argument(
        "--faults",
        nargs="?",
        const="all",
        metavar="LIST",
        help="run the faults scenario instead: each fault (all, or a comma-separated list of "
        + ", ".join(FAULTS)
        + ") in a fresh production site with a private Redis and PostgreSQL; implies"
        " --mode production --daphnes 2 --no-burst, 50 players in rooms of 8, 30 s rounds",
    )
    faults.add_argument(
        "--fault-at",
        type=float,
        default=10.0,
        help="seconds after round 1's starts_at at which the fault strikes",
    )
    faults.add_argument(
        "--fault-down",
        type=float,
        default=2.0,
        help="seconds Redis or PostgreSQL stays down before it is started again",
    )
    faults.add_argument(
        "--leavers",
        type=int,
        default=5,
        help="players who close their socket during the fault and never come back",
    )
    faults.add_argument(
        "--ghost-after",
        type=float,
        default=30.0,
        help="seconds after the fault (and the leavers' close) at which online is checked",
    )
    waits = parser.add_argument_group("waiting")
    waits.add_argument(
        "--round-end-wait",
        type=float,
        help="seconds after ends_at a client waits for round.ended before it sends sync"
        " (default 10; 60 with --faults, whose client pings and syncs as the site's page does)",
    )
    waits.add_argument(
        "--drain-seconds",
        type=float,
        default=60.0,
        help="seconds after ends_at a client waits for its last verdicts; later = never answered",
    )
    parser.add_argument("--json", metavar="PATH", help="also write the figures to this file")
    parser.add_argument(
        "--profile",
        metavar="DIR",
        help="write a flame graph of each Daphne's CPU per round to DIR (py-spy; see "
        "bench/crowd/profiling.py)",
    )
    parser.add_argument(
        "--profile-format",
        choices=("flamegraph", "raw"),
        default="flamegraph",
        help="--profile's files: flame graphs (.svg), or collapsed stacks (.txt) for "
        "bench/profile_summary.py",
    )
    args = parser.parse_args(argv)
    if args.faults:
        names = list(FAULTS) if args.faults == "all" else args.faults.split(",")
        unknown = [name for name in names if name not in FAULTS]
        if unknown:
            parser.error(f"--faults: unknown {', '.join(unknown)}; known: {', '.join(FAULTS)}")
        args.faults = list(dict.fromkeys(names))
        if args.url:
            parser.error("--faults starts and breaks its own sites: no --url")
        if args.mode == "embedded":
            parser.error("--faults runs in production mode only")
        args.mode = "production"
        args.burst = False
        args.rounds = 2
        if args.daphnes is None:
            args.daphnes = 2
        if {"daphne", "rolling"} & set(args.faults) and args.daphnes < 2:
            parser.error("the daphne and rolling faults need --daphnes 2 or more")
        if args.round_end_wait is None:
            args.round_end_wait = 60.0
        if args.leavers < 0 or args.fault_at < 0 or args.fault_down < 0:
            parser.error("--leavers, --fault-at and --fault-down must not be negative")
    if args.through_nginx or args.side_by_side:
        what = "--side-by-side" if args.side_by_side else "--through-nginx"
        if args.url or args.faults:
            parser.error(f"{what} starts its own site and nginx: no --url, no --faults")
        if args.mode == "embedded":
            parser.error(f"{what} runs in production mode only")
        args.mode = "production"
        if args.daphnes is None:
            args.daphnes = 2
    args.mode = args.mode or "embedded"
    args.daphnes = 1 if args.daphnes is None else args.daphnes
    args.round_end_wait = 10.0 if args.round_end_wait is None else args.round_end_wait
    preset = PRESETS["faults" if args.faults else "quick" if args.quick else "default"]
    for name, value in preset.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    if args.players < 1 or args.room_size < 1:
        parser.error("--players and --room-size must be at least 1")
    if (args.through_nginx or args.side_by_side) and args.players > MAX_PLAYERS:
        parser.error(
            f"through nginx each player has its own loopback address: {MAX_PLAYERS} at most"
        )
    if args.words_per_second <= 0:
        parser.error("--words-per-second must be positive")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if args.private_services and (args.url or args.mode != "production"):
        parser.error("--private-services is for a production site this run starts")
    if args.server != "daphne" and (args.url or args.faults or args.mode != "production"):
        parser.error("--server: production mode only, on a site this run starts, no --faults")
    if args.daphnes < 1 or (args.mode == "embedded" and args.daphnes != 1 and not args.url):
        parser.error("embedded mode runs exactly one Daphne (its channel layer is in memory)")
    if not 0 <= args.garbage_share + args.repeat_share <= 1:
        parser.error("--garbage-share + --repeat-share must be between 0 and 1")
    return args


def load_once(args: argparse.Namespace) -> dict[str, Any] | None:
    """One load run on a site of its own, stopped at the end; its report, printed (None when
    interrupted)."""
    site = Site(args, private=args.private_services)
    run = Run(args, site)
    try:
        site.start()
        load = asyncio.run(run_load(run))
        report = build_report(run, load)
    except KeyboardInterrupt:
        log("interrupted: stopping everything this run started")
        return None
    finally:
        with signals_held():
            run.pool.shutdown(wait=False, cancel_futures=True)
            site.stop()
    print_report(report)
    return report


def side_by_side_runs(args: argparse.Namespace) -> dict[str, argparse.Namespace]:
    """--side-by-side's two runs: direct with a room's players on one Daphne, then through
    nginx (whose hash does the same)."""
    direct = argparse.Namespace(**{**vars(args), "through_nginx": False, "route": "room"})
    through = argparse.Namespace(**{**vars(args), "through_nginx": True})
    return {"direct": direct, "through nginx": through}


def main_side_by_side(args: argparse.Namespace) -> int:
    reports: dict[str, dict[str, Any]] = {}
    for name, variant in side_by_side_runs(args).items():
        log(f"--side-by-side: the {name} run, on a fresh site")
        report = load_once(variant)
        if report is None:
            return 130
        reports[name] = report
    print(f"\n== side by side: {args.players} players in rooms of {args.room_size} ==")
    print("\n".join(table_lines(reports)), flush=True)
    if args.json:
        data = {
            "direct": reports["direct"],
            "through_nginx": reports["through nginx"],
            "side_by_side": side_by_side(reports),
        }
        Path(args.json).write_text(json.dumps(data, indent=2, default=str) + "\n")
        log(f"figures written to {args.json}")
    return 0 if all(r["words_sent"]["total"] for r in reports.values()) else 1


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)

    def terminate(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, terminate)
    if args.faults:
        return main_faults(args)
    if args.side_by_side:
        return main_side_by_side(args)
    report = load_once(args)
    if report is None:
        return 130
    if args.through_nginx:
        print("\n== headline figures ==")
        print("\n".join(table_lines({"through nginx": report})), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2, default=str) + "\n")
        log(f"figures written to {args.json}")
    return 0 if report["words_sent"]["total"] else 1


if __name__ == "__main__":
    sys.exit(main())
