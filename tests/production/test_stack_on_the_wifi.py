"""``bin/start --production`` for real: nginx in front of two Daphnes, a Celery worker and beat
under supervisord (``bin/start --production``: ``python -m production start``), with phones on
a simulated Wi-Fi.

The stack runs here as an operator runs it, from an environment file made from
deploy/boggle.env.example, on a throwaway PostgreSQL database and Redis keys of its own;
nginx listens on the Wi-Fi's gateway address, where the phones (netlab hosts, each in a
network namespace of its own, running tests/production/phone.py) reach it and nothing else.
The Daphnes listen on every address (``BOGGLE_DAPHNE_BIND=0.0.0.0``), as on a machine whose
firewall is missing, so that an attacker on the Wi-Fi can reach one around nginx.

- A round is played while one Daphne is killed (SIGKILL) mid-round: its phones reconnect
  through nginx and resend what had no verdict, and no word is lost.
- The site's per-address limits count each phone by its own address behind nginx, and a
  client that reaches a Daphne directly cannot pose as another address.

Limits are one budget for the site, in Redis (docs/operations.md; tests/production/
test_limits_across_daphnes.py): nginx spreads requests over both Daphnes, and the
assertions hold whichever Daphne each request lands on.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
import psycopg
import pytest

from boggle_site.env import get_bool
from netlab import Host, SimulatedWifi
from production import envfile, site_user
from production.__main__ import NGINX_CANDIDATES
from production.render import ENV_TEMPLATE
from tests.production.site_account import site_account
from tests.servers import delete_redis_keys, throwaway_postgres_database
from tests.stack import poll_until, solve_round

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
PHONE_SCRIPT = Path(__file__).with_name("phone.py")
POSTGRES_URL = os.environ.get(
    "BOGGLE_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
REDIS_URL = os.environ.get("BOGGLE_TEST_REDIS_URL", "redis://127.0.0.1:6379/13")
SUPERVISORCTL = Path(sys.executable).parent / "supervisorctl"

# Bounds on waits (seconds): generous, as the machine may be busy; none is asserted on.
WAIT = 90.0
START_WAIT = 400.0  # set-up (migrations, static files) and every process answering
STOP_WAIT = 90.0  # the worker gets 30 s to finish its tasks
# docs/api.md, "Limits": joins per address and server process, 10 at once then 60 a minute.
JOINS_AT_ONCE = 10
# Joins the noisy phone and the attacker send at once: well over what the Daphnes let
# through together (10 each, and one a second more while they are answered).
NOISY_JOINS = 40
ATTACK_JOINS = 25
# Ports to pick from, below Linux's ephemeral range: no outgoing connection takes them.
PORT_RANGE = (20000, 32000)

PHONES = ("Ann", "Bob", "Cid", "Dee")
WORDS_PER_PHONE = 12
SHARED_WORDS = 2
NOT_ON_BOARD = "zzzqx"  # a lone q: no die spells it
SUBMIT_INTERVAL = 0.3


# ---------------------------------------------------------------- the stack


def port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind(("0.0.0.0", port))
        except OSError:
            return False
    return True


def free_consecutive_ports(count: int, avoid: tuple[int, ...] = ()) -> int:
    """The first of ``count`` consecutive ports free on every address."""
    for _ in range(500):
        first = random.randrange(PORT_RANGE[0], PORT_RANGE[1] - count)
        ports = range(first, first + count)
        if not set(ports) & set(avoid) and all(port_free(port) for port in ports):
            return first
    raise AssertionError(f"no {count} consecutive free ports in {PORT_RANGE}")


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return bool(response.status == 200)
    except (OSError, urllib.error.URLError):
        return False


@dataclass
class ProductionStack:
    """``python -m production start`` running (supervisord, once it has exec'd)."""

    process: subprocess.Popen[bytes]
    run_dir: Path
    start_log: Path
    database_url: str
    gateway: str
    port: int
    daphne_ports: tuple[int, ...]
    # Every process seen under supervisord: all must be gone after the stop.
    seen: dict[int, psutil.Process] = field(default_factory=dict)

    @property
    def base(self) -> str:
        """The site as the phones reach it: nginx on the Wi-Fi's gateway."""
        return f"http://{self.gateway}:{self.port}"

    def daphne_base(self, port: int) -> str:
        """A Daphne reached directly on the gateway's address, around nginx."""
        return f"http://{self.gateway}:{port}"

    @property
    def conf(self) -> Path:
        return self.run_dir / "supervisord.conf"

    def supervisorctl(self, *args: str) -> str:
        done = subprocess.run(
            [str(SUPERVISORCTL), "-c", str(self.conf), *args],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        return done.stdout

    def daphne_pid(self, port: int) -> int:
        """The pid of the Daphne on ``port`` (0 while it is not running)."""
        out = self.supervisorctl("pid", f"daphne-{port}").strip()
        return int(out) if out.isdigit() else 0

    def all_running(self) -> bool:
        lines = [line for line in self.supervisorctl("status").splitlines() if line.strip()]
        # nginx, the Daphnes, the worker and beat.
        return len(lines) == 3 + len(self.daphne_ports) and all(
            " RUNNING " in line for line in lines
        )

    def note_processes(self) -> None:
        with contextlib.suppress(psutil.NoSuchProcess):
            for child in psutil.Process(self.process.pid).children(recursive=True):
                self.seen.setdefault(child.pid, child)

    def log(self, name: str) -> str:
        path = self.run_dir / "logs" / name
        return path.read_text(errors="replace") if path.exists() else ""

    def logs(self) -> str:
        parts = [f"===== {self.start_log.name} =====\n{self.start_log.read_text(errors='replace')}"]
        for path in sorted((self.run_dir / "logs").glob("*.log")):
            parts.append(f"===== {path.name} =====\n{path.read_text(errors='replace')[-20000:]}")
        return "\n".join(parts)

    def stop(self) -> list[str]:
        """SIGTERM to supervisord, which stops everything; returns the processes still
        there afterwards (killed then)."""
        self.note_processes()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=STOP_WAIT)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=30)
        alive = []
        for process in self.seen.values():
            with contextlib.suppress(psutil.NoSuchProcess):
                if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                    alive.append(process)
        _, still = psutil.wait_procs(alive, timeout=10)
        left = []
        for process in still:
            with contextlib.suppress(psutil.NoSuchProcess):
                left.append(f"{process.pid} {' '.join(process.cmdline())}")
                process.kill()
        psutil.wait_procs(still, timeout=10)
        return left


def env_values(
    gateway: str,
    port: int,
    database_url: str,
    redis_prefix: str,
    media_dir: Path,
) -> dict[str, str]:
    origin = f"http://{gateway}:{port}"
    return {
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_DEBUG": "0",
        "BOGGLE_PUBLIC_URL": origin,
        "DJANGO_ALLOWED_HOSTS": f"{gateway},127.0.0.1",
        "DJANGO_CSRF_TRUSTED_ORIGINS": origin,
        "BOGGLE_TRUSTED_PROXIES": "127.0.0.1/32",
        "BOGGLE_PROXY_SSL_HEADER": "0",
        "BOGGLE_HTTPS": "0",
        "DATABASE_URL": database_url,
        "REDIS_URL": REDIS_URL,
        "BOGGLE_REDIS_PREFIX": redis_prefix,
        "BOGGLE_DICTIONARY_DIR": str(REPO / "var" / "dictionaries"),
        "BOGGLE_MEDIA_DIR": str(media_dir),
        "BOGGLE_DEFINITIONS_DIR": str(REPO / "var" / "definitions"),
        # A Daphne reachable on every address, as where the firewall is missing.
        "BOGGLE_DAPHNE_BIND": "0.0.0.0",
        # No photos here: no TensorFlow in the Daphnes and the worker.
        "BOGGLE_PRELOAD_READER": "0",
    }


def start_environment() -> dict[str, str]:
    """This process's environment without anything that chooses the site's mode: the stack
    takes its own from the environment file."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "BOGGLE_")) and key not in ("DATABASE_URL", "REDIS_URL")
    }
    return env | {"PYTHONUNBUFFERED": "1"}


@pytest.fixture(scope="module")
def production(services: dict[str, bool], module_wifi: SimulatedWifi) -> Iterator[ProductionStack]:
    """The stack started with ``bin/start --production``, nginx on the Wi-Fi's gateway;
    stopped with SIGTERM to supervisord at the end, its database dropped and its Redis
    keys deleted."""
    if not all(services.values()):
        pytest.skip(f"PostgreSQL and Redis needed on 127.0.0.1: {services}")
    if not any(shutil.which(candidate) for candidate in NGINX_CANDIDATES):
        if get_bool(os.environ, "CI"):
            pytest.fail("nginx is not installed (bin/test installs it). CI=true: this must run.")
        pytest.skip("nginx is not installed (Debian: apt-get install nginx)")
    gateway = module_wifi.gateway
    first_daphne = free_consecutive_ports(2)
    port = free_consecutive_ports(1, avoid=(first_daphne, first_daphne + 1))
    daphne_ports = (first_daphne, first_daphne + 1)
    redis_prefix = f"boggle-test-{os.getpid()}-{secrets.token_hex(4)}:"
    # nginx's workers run as www-data when nginx is started as root: its run directory
    # (temporary files of proxied answers) must be reachable for them, unlike pytest's.
    run_dir = Path(tempfile.mkdtemp(prefix="boggle-production-"))
    run_dir.chmod(0o755)
    # The environment file and the photos: for the site's processes only (as root they run
    # as the user boggle, which reads the file through its group).
    account = site_account()
    private = run_dir / "private"
    private.mkdir(mode=0o750)
    if account is not None:
        os.chown(private, 0, account.gid)
    delete_redis_keys(REDIS_URL, redis_prefix)
    try:
        with throwaway_postgres_database(POSTGRES_URL) as database_url:
            env_file = private / "boggle.env"
            template = ENV_TEMPLATE.read_text(encoding="utf-8")
            values = env_values(gateway, port, database_url, redis_prefix, private / "media")
            env_file.write_text(envfile.with_values(template, values), encoding="utf-8")
            site_user.private_file(env_file, account)
            start_log = run_dir / "start.log"
            with start_log.open("wb") as log:
                process = subprocess.Popen(
                    [
                        str(REPO / "bin" / "start"),
                        "--production",
                        "--daphnes",
                        "2",
                        "--workers",
                        "1",
                        "--bind",
                        gateway,
                        "--port",
                        str(port),
                        "--daphne-port",
                        str(first_daphne),
                        "--env-file",
                        str(env_file),
                        "--run-dir",
                        str(run_dir),
                    ],
                    cwd=REPO,
                    env=start_environment(),
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    start_new_session=True,  # its own group: the stop reaches what it left
                )
            stack = ProductionStack(
                process, run_dir, start_log, database_url, gateway, port, daphne_ports
            )
            try:
                wait_until_up(stack)
                yield stack
            finally:
                left = stack.stop()
                assert not left, f"still running after supervisord stopped: {left}"
    finally:
        delete_redis_keys(REDIS_URL, redis_prefix)
        shutil.rmtree(run_dir, ignore_errors=True)


def wait_until_up(stack: ProductionStack) -> None:
    """Until nginx answers on the gateway, both Daphnes on their ports and the worker is
    ready; the start's logs in the error otherwise."""

    def up() -> bool:
        if stack.process.poll() is not None:
            raise AssertionError(
                f"production start exited with {stack.process.returncode}:\n{stack.logs()}"
            )
        stack.note_processes()
        return (
            answers(f"{stack.base}/api/dictionaries")
            and all(answers(f"http://127.0.0.1:{p}/api/dictionaries") for p in stack.daphne_ports)
            and " ready." in stack.log("worker-1.log")
            and stack.all_running()
        )

    try:
        poll_until(up, "the production stack", START_WAIT)
    except AssertionError as error:
        raise AssertionError(f"{error}\n{stack.logs()}") from None
    stack.note_processes()


# ---------------------------------------------------------------- phones


class Phone:
    """tests/production/phone.py's agent on a host of the Wi-Fi, driven over its stdin and
    stdout (one JSON object a line each way)."""

    def __init__(self, host: Host, stack: ProductionStack, name: str) -> None:
        self.name = name
        self.host = host
        self.events: list[dict[str, Any]] = []
        self.ended = False
        self._changed = threading.Condition()
        log = (stack.run_dir / "logs" / f"phone-{name}.log").open("w")
        self.popen = host.popen(
            [sys.executable, str(PHONE_SCRIPT), "agent", stack.base, stack.base, name],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )
        log.close()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.wait_for("ready")

    def _read(self) -> None:
        assert self.popen.stdout is not None
        for line in self.popen.stdout:
            with self._changed:
                self.events.append(json.loads(line))
                self._changed.notify_all()
        with self._changed:
            self.ended = True
            self._changed.notify_all()

    def mark(self) -> int:
        """The number of events so far (for ``wait_for(after=)``)."""
        with self._changed:
            return len(self.events)

    def do(self, op: str, **fields: Any) -> int:
        """Send a command; returns ``mark()`` from before it."""
        assert self.popen.stdin is not None
        mark = self.mark()
        self.popen.stdin.write(json.dumps({"op": op, **fields}) + "\n")
        self.popen.stdin.flush()
        return mark

    def _find(self, wanted: Callable[[dict[str, Any]], bool], after: int) -> dict[str, Any] | None:
        return next((event for event in self.events[after:] if wanted(event)), None)

    def wait_until(
        self,
        wanted: Callable[[dict[str, Any]], bool],
        what: str,
        after: int = 0,
        timeout: float = WAIT,
    ) -> dict[str, Any]:
        with self._changed:
            self._changed.wait_for(
                lambda: self._find(wanted, after) is not None or self.ended, timeout
            )
            found = self._find(wanted, after)
            if found is None:
                crashed = [event for event in self.events if event["ev"] == "crashed"]
                raise AssertionError(
                    f"{self.name}: no {what} within {timeout} s (ended: {self.ended},"
                    f" crashed: {crashed}); last events: {self.events[-10:]}"
                )
            return found

    def wait_for(
        self, ev: str, after: int = 0, timeout: float = WAIT, **match: Any
    ) -> dict[str, Any]:
        return self.wait_until(
            lambda event: event["ev"] == ev and all(event.get(k) == v for k, v in match.items()),
            ev,
            after,
            timeout,
        )

    def wait_for_message(self, kind: str, after: int = 0, timeout: float = WAIT) -> dict[str, Any]:
        return self.wait_until(
            lambda event: event["ev"] == "msg" and event["message"]["type"] == kind,
            kind,
            after,
            timeout,
        )["message"]

    def wait_for_count(self, ev: str, count: int, timeout: float = WAIT) -> None:
        with self._changed:
            if not self._changed.wait_for(lambda: self.count(ev) >= count or self.ended, timeout):
                raise AssertionError(f"{self.name}: not {count} {ev} within {timeout} s")
            if self.count(ev) < count:
                raise AssertionError(f"{self.name} ended before {count} {ev}: {self.events[-10:]}")

    def count(self, ev: str) -> int:
        with self._changed:
            return sum(1 for event in self.events if event["ev"] == ev)

    def events_of(self, ev: str) -> list[dict[str, Any]]:
        with self._changed:
            return [event for event in self.events if event["ev"] == ev]

    def close(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.do("quit")
            assert self.popen.stdin is not None
            self.popen.stdin.close()
        try:
            self.popen.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait(timeout=15)


def run_on(host: Host, *args: str) -> Any:
    """A one-shot command of phone.py on ``host``; its printed JSON."""
    done = host.run(
        [sys.executable, str(PHONE_SCRIPT), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=WAIT * 2,
        check=False,
    )
    assert done.returncode == 0, f"phone.py {args[0]} on {host.name}:\n{done.stderr}"
    return json.loads(done.stdout)


# ---------------------------------------------------------------- a round, a Daphne killed


def start_round(host: Phone, phones: list[Phone], min_words: int) -> tuple[dict, list[str]]:
    """Start rounds until the board has ``min_words`` words; the round and its words."""
    for attempt in range(8):
        marks = [phone.mark() for phone in phones]
        host.do("send", message={"type": "start_round", "request_id": f"start-{attempt}"})
        started = [
            phone.wait_for_message("round.started", mark)
            for phone, mark in zip(phones, marks, strict=True)
        ]
        round_ = started[0]["round"]
        assert all(message["round"]["number"] == round_["number"] for message in started)
        words = sorted(solve_round(round_))
        if len(words) >= min_words:
            return round_, words
        host.do("send", message={"type": "end_round", "request_id": f"end-{attempt}"})
        for phone, mark in zip(phones, marks, strict=True):
            phone.wait_for_message("round.ended", mark)
    raise AssertionError(f"eight boards in a row with under {min_words} words")


def daphne_of_phones(stack: ProductionStack, code: str, players: int) -> dict[int, list[str]]:
    """Daphne port -> nicknames of the players whose socket it holds (games_connection
    names the process that holds each socket)."""
    pids = {stack.daphne_pid(port): port for port in stack.daphne_ports}
    holding: dict[int, list[str]] = {}

    def read() -> bool:
        holding.clear()
        with psycopg.connect(stack.database_url, connect_timeout=5) as connection:
            rows = connection.execute(
                "select c.process, p.nickname from games_connection c"
                " join games_player p on p.id = c.player_id"
                " join games_room r on r.id = p.room_id where r.code = %s",
                (code,),
            ).fetchall()
        for process, nickname in rows:
            pid = int(process.rsplit(":", 2)[1])
            if pid in pids:
                holding.setdefault(pids[pid], []).append(nickname)
        return sum(len(names) for names in holding.values()) >= players

    poll_until(read, "every phone's socket recorded")
    return holding


def refused_entries_stored(stack: ProductionStack, code: str, word: str, players: int) -> None:
    """Wait until the refused ``word`` of ``players`` players of the room is in the
    database."""

    def read() -> bool:
        with psycopg.connect(stack.database_url, connect_timeout=5) as connection:
            row = connection.execute(
                "select count(distinct s.player_id) from games_submission s"
                " join games_player p on p.id = s.player_id"
                " join games_room r on r.id = p.room_id where r.code = %s and s.word = %s",
                (code, word),
            ).fetchone()
        return row is not None and row[0] >= players

    poll_until(read, f"every phone's {word!r} stored")


def test_a_daphne_killed_mid_round_loses_no_word(
    production: ProductionStack, module_wifi: SimulatedWifi
) -> None:
    """Four phones play a round through nginx; one Daphne holding some of their sockets is
    killed (SIGKILL) while they type. Its phones reconnect through nginx (to the other
    Daphne, or the one supervisord restarted) and resend what had no verdict with the same
    client_id. Every entry gets a verdict, a resend the same one, and the results hold
    exactly the words each phone saw accepted."""
    stack = production
    phones = [Phone(module_wifi.add_host(f"phone{name.lower()}"), stack, name) for name in PHONES]
    try:
        host = phones[0]
        created = host.wait_for(
            "player",
            host.do("create", nickname=PHONES[0], settings={"round_seconds": 180}),
        )
        assert created["status"] == 201, created
        code = created["body"]["room"]["code"]
        for phone in phones[1:]:
            joined = phone.wait_for("player", phone.do("join", code=code, nickname=phone.name))
            assert joined["status"] == 201, joined
        for phone in phones:
            phone.wait_for("state", phone.do("connect"))

        round_, words = start_round(host, phones, min_words=len(PHONES) * 5 + SHARED_WORDS)
        random.shuffle(words)
        shared, own = words[:SHARED_WORDS], words[SHARED_WORDS:]
        per_phone = min(WORDS_PER_PHONE, len(own) // len(PHONES))
        plans: dict[str, list[str]] = {}
        for index, phone in enumerate(phones):
            mine = own[index * per_phone : (index + 1) * per_phone]
            # Each phone also types the same word twice (the second already_entered), a
            # word the board cannot spell, and the words everyone has (cancelled).
            plan = [*mine[:2], mine[0].upper(), NOT_ON_BOARD, *shared, *mine[2:]]
            plans[phone.name] = plan
            phone.do("play", words=plan, starts_at=round_["starts_at"], interval=SUBMIT_INTERVAL)

        # Mid-round: every phone has had some verdicts, its refused word among them, and
        # has more words to type. Refused entries are written in batches a tenth of a
        # second apart (games.live): the kill comes once they are stored, as a SIGKILL
        # within that tenth would lose their record (never a word that scores).
        for phone in phones:
            phone.wait_for_count("verdict", plans[phone.name].index(NOT_ON_BOARD) + 1)
        refused_entries_stored(stack, code, NOT_ON_BOARD, len(phones))
        holding = daphne_of_phones(stack, code, len(phones))
        victim_port = max(holding, key=lambda port: len(holding[port]))
        victims = [phone for phone in phones if phone.name in holding[victim_port]]
        killed_pid = stack.daphne_pid(victim_port)
        closes_before = {phone.name: phone.count("closed") for phone in victims}
        os.kill(killed_pid, signal.SIGKILL)
        print(f"killed daphne-{victim_port} (pid {killed_pid}); sockets held: {holding}")

        played = {
            phone.name: phone.wait_for("played", timeout=WAIT * 2)["entries"] for phone in phones
        }
        # supervisord restarts the killed Daphne.
        poll_until(
            lambda: (
                stack.daphne_pid(victim_port) not in (0, killed_pid)
                and answers(f"http://127.0.0.1:{victim_port}/api/dictionaries")
            ),
            f"daphne-{victim_port} restarted",
        )

        marks = [phone.mark() for phone in phones]
        host.do("send", message={"type": "end_round", "request_id": "end"})
        for phone, mark in zip(phones, marks, strict=True):
            phone.wait_for_message("round.ended", mark)
        got = host.wait_for(
            "got", host.do("get", path=f"/api/rooms/{code}/rounds/{round_['number']}")
        )
        assert got["status"] == 200, got
        results = got["body"]["results"]
    except BaseException:
        for phone in phones:
            print(f"===== phone {phone.name} events =====")
            for event in phone.events:
                print(json.dumps(event))
        raise
    finally:
        for phone in phones:
            phone.close()

    # The killed Daphne's phones lost their socket, came back through nginx, and resent
    # entries that had no verdict.
    for phone in victims:
        assert phone.count("closed") > closes_before[phone.name], phone.name
        assert max(event["connects"] for event in phone.events_of("state")) >= 2, phone.name
    resent = [
        client_id
        for phone in victims
        for client_id, entry in played[phone.name].items()
        if entry["resent_after_reconnect"]
    ]
    print(f"resent after reconnecting: {resent}")
    assert resent, "the kill came after the killed Daphne's phones had all their verdicts"

    players = {player["nickname"]: player for player in results["players"]}
    for phone in phones:
        entries = played[phone.name]
        assert len(entries) == len(plans[phone.name])
        for client_id, entry in entries.items():
            # Every entry got a verdict, and a resend was answered as the first copy.
            assert entry["verdicts"], (phone.name, client_id)
            assert len(set(entry["verdicts"])) == 1, (phone.name, client_id, entry)
        verdicts: dict[str, list[str]] = {}
        for entry in entries.values():
            verdicts.setdefault(entry["word"].lower(), []).append(entry["verdicts"][0])
        # Each board word: accepted once (a second entry of it: already_entered).
        for word, given in verdicts.items():
            if word == NOT_ON_BOARD:
                assert given == ["not_on_board"], (phone.name, given)
            else:
                assert Counter(given) == Counter(
                    {"accepted": 1, "already_entered": len(given) - 1}
                ), (phone.name, word, given)
        accepted = {word for word, given in verdicts.items() if "accepted" in given}
        # No lost word: what the phone saw accepted is exactly the player's words.
        scored = {item["word"]: item for item in players[phone.name]["words"]}
        assert set(scored) == accepted, (phone.name, set(scored) ^ accepted)
        for word in shared:
            assert scored[word]["cancelled"] is True, (phone.name, word)
        assert NOT_ON_BOARD in {item["word"] for item in players[phone.name]["rejected"]}


# ---------------------------------------------------------------- per-address limits


def site_refusal(answer: list[Any]) -> bool:
    """A join refused by the site itself: 429 with docs/api.md's JSON error and a
    Retry-After (nginx's own 429 is an HTML page)."""
    status, code, retry_after, _retries = answer
    return status == 429 and code == "rate_limited" and bool(retry_after)


def test_limits_count_each_phone_by_its_own_address(
    production: ProductionStack, module_wifi: SimulatedWifi
) -> None:
    """Behind nginx the site counts each phone by its own address: a phone that joins too
    often is refused by the site while another still joins. An attacker that reaches a
    Daphne directly and writes another phone's address in X-Forwarded-For is counted as
    itself: refused there, while that phone still joins through nginx."""
    stack = production
    owner, noisy, quiet, attacker, target = (
        module_wifi.add_host(name) for name in ("owner", "noisy", "quiet", "attacker", "target")
    )
    status, code, _ = run_on(owner, "create", stack.base, "Owner")
    assert status == 201, code

    answers_noisy = run_on(noisy, "joins", stack.base, code, str(NOISY_JOINS), "Noisy")
    print(f"noisy phone's joins: {answers_noisy}")
    assert all(answer[0] == 201 or site_refusal(answer) for answer in answers_noisy), answers_noisy
    assert sum(answer[0] == 201 for answer in answers_noisy) >= JOINS_AT_ONCE, answers_noisy
    assert any(site_refusal(answer) for answer in answers_noisy), answers_noisy
    # Another phone on the same Wi-Fi, through the same nginx: its own address, its own
    # budget on both Daphnes.
    answers_quiet = run_on(quiet, "joins", stack.base, code, str(JOINS_AT_ONCE), "Quiet")
    assert [answer[0] for answer in answers_quiet] == [201] * JOINS_AT_ONCE, answers_quiet

    # The attacker, straight to each Daphne, claims to be the target phone. Its budget is
    # one for both Daphnes (Redis): the first spends it, the second gives back what refilled.
    for index, port in enumerate(stack.daphne_ports):
        attack = run_on(
            attacker,
            "joins",
            stack.daphne_base(port),
            code,
            str(ATTACK_JOINS),
            f"Mal{port}x",
            "--forwarded-for",
            target.address,
        )
        print(f"attacker's joins at daphne {port}: {attack}")
        assert all(answer[0] == 201 or site_refusal(answer) for answer in attack), attack
        if index == 0:
            assert sum(answer[0] == 201 for answer in attack) >= JOINS_AT_ONCE, attack
        assert any(site_refusal(answer) for answer in attack), (port, attack)
    # The target's budget is untouched: the attacker was counted as itself.
    answers_target = run_on(target, "joins", stack.base, code, str(JOINS_AT_ONCE), "Target")
    assert [answer[0] for answer in answers_target] == [201] * JOINS_AT_ONCE, answers_target
