"""``bin/start --production`` started as root runs nothing it need not as root, and its
services have credentials of their own (issue 49, item 8: everything ran as root, the
environment connected as the PostgreSQL superuser without a password, Redis had none).

The stack runs here as an operator who upgrades runs it: with its own environment file
(no ``--env-file``) as an older version left it (the superuser's DATABASE_URL, the shared
Redis), and its database already holding tables the superuser created. After the start:
the Daphnes, the worker, beat and the stack's Redis run as the system user ``boggle``; the
environment file is 0640 root:boggle; the database and every table in it belong to a role
that is no superuser and logs in with a password; the stack's Redis refuses a client
without its password; and a round plays through nginx on it. Its database and role are
this test's own (``--database``), dropped afterwards; the shared Redis is not used.
"""

from __future__ import annotations

import asyncio
import grp
import os
import pwd
import secrets
import shutil
import subprocess
import tempfile
import urllib.parse
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import psycopg
import pytest
import redis
from psycopg import sql

from production import envfile, local_services
from production.__main__ import NGINX_CANDIDATES, SHARED_REDIS
from production.render import ENV_TEMPLATE
from tests.production.site_account import site_account
from tests.production.test_stack_on_the_wifi import (
    START_WAIT,
    ProductionStack,
    answers,
    free_consecutive_ports,
    start_environment,
)
from tests.stack import (
    Stack,
    open_room,
    poll_until,
    shorten_round,
    start_round,
    wait_for_start,
)

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
SUPERUSER = "postgresql://postgres@127.0.0.1:5432"
SITE_USER = "boggle"
# What the superuser created in the database before the upgrade (an older version's).
LEGACY = (
    "create table legacy_notes (id bigint generated always as identity primary key, note text)",
    "create table legacy_rows (id serial primary key)",
    "create sequence legacy_counter",
    "create view legacy_view as select id from legacy_notes",
)


def older_versions_env_file(path: Path, database: str, media: Path) -> None:
    """var/production/boggle.env as bin/start --production wrote it before: the superuser
    without a password, the machine's shared Redis; 0600."""
    values = {
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "BOGGLE_PUBLIC_URL": "http://127.0.0.1:8000",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_CSRF_TRUSTED_ORIGINS": "http://127.0.0.1:8000",
        "BOGGLE_TRUSTED_PROXIES": "127.0.0.1/32",
        "BOGGLE_PROXY_SSL_HEADER": "0",
        "BOGGLE_HTTPS": "0",
        "DATABASE_URL": local_services.superuser_database_url(database),
        "REDIS_URL": SHARED_REDIS,
        "BOGGLE_REDIS_PREFIX": f"{database}:",
        "BOGGLE_DICTIONARY_DIR": str(REPO / "var" / "dictionaries"),
        "BOGGLE_MEDIA_DIR": str(media),
        "BOGGLE_DEFINITIONS_DIR": str(REPO / "var" / "definitions"),
        # No photos here: no TensorFlow in the Daphnes and the worker.
        "BOGGLE_PRELOAD_READER": "0",
    }
    template = ENV_TEMPLATE.read_text(encoding="utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        file.write(envfile.with_values(template, values))


def drop_database_and_role(name: str) -> None:
    with psycopg.connect(f"{SUPERUSER}/postgres", autocommit=True) as connection:
        connection.execute(
            sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name))
        )
        connection.execute(sql.SQL("drop role if exists {}").format(sql.Identifier(name)))


@dataclass
class OwnStack(ProductionStack):
    """The stack started without --env-file: its own Redis is one more program."""

    redis_port: int = 0

    def all_running(self) -> bool:
        """nginx, the Daphnes, the worker and beat (and the Redis, which the tests look
        for) are up."""
        lines = [line for line in self.supervisorctl("status").splitlines() if line.strip()]
        return len(lines) >= 3 + len(self.daphne_ports) and all(
            " RUNNING " in line for line in lines
        )

    def env(self) -> dict[str, str]:
        return envfile.read(self.run_dir / "boggle.env")

    def pid(self, program: str) -> int:
        out = self.supervisorctl("pid", program).strip()
        return int(out) if out.isdigit() else 0


@pytest.fixture(scope="module")
def production(services: dict[str, bool]) -> Iterator[OwnStack]:
    if os.geteuid() != 0:
        pytest.skip("bin/start --production drops to the user boggle only when started as root")
    if not services["postgres"]:
        pytest.skip(f"PostgreSQL needed on 127.0.0.1: {services}")
    if not any(shutil.which(candidate) for candidate in NGINX_CANDIDATES):
        pytest.skip("nginx is not installed (Debian: apt-get install nginx)")
    site_account()
    database = f"boggle_test_{uuid.uuid4().hex[:12]}"
    first_daphne = free_consecutive_ports(2)
    port = free_consecutive_ports(1, avoid=(first_daphne, first_daphne + 1))
    redis_port = free_consecutive_ports(1, avoid=(first_daphne, first_daphne + 1, port))
    run_dir = Path(tempfile.mkdtemp(prefix="boggle-least-privilege-"))
    run_dir.chmod(0o755)
    try:
        with psycopg.connect(f"{SUPERUSER}/postgres", autocommit=True) as connection:
            connection.execute(sql.SQL("create database {}").format(sql.Identifier(database)))
        with psycopg.connect(f"{SUPERUSER}/{database}", autocommit=True) as connection:
            for statement in LEGACY:
                connection.execute(statement)
        older_versions_env_file(run_dir / "boggle.env", database, run_dir / "media")
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
                    "127.0.0.1",
                    "--port",
                    str(port),
                    "--daphne-port",
                    str(first_daphne),
                    "--redis-port",
                    str(redis_port),
                    "--database",
                    database,
                    "--run-dir",
                    str(run_dir),
                ],
                cwd=REPO,
                env=start_environment(),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        stack = OwnStack(
            process,
            run_dir,
            start_log,
            f"{SUPERUSER}/{database}",
            "127.0.0.1",
            port,
            (first_daphne, first_daphne + 1),
            redis_port=redis_port,
        )
        try:
            wait_until_up(stack)
            yield stack
        finally:
            left = stack.stop()
            assert not left, f"still running after supervisord stopped: {left}"
    finally:
        drop_database_and_role(database)
        shutil.rmtree(run_dir, ignore_errors=True)


def wait_until_up(stack: OwnStack) -> None:
    def up() -> bool:
        if stack.process.poll() is not None:
            raise AssertionError(
                f"production start exited with {stack.process.returncode}:\n{stack.logs()}"
            )
        stack.note_processes()
        return (
            answers(f"{stack.base}/api/dictionaries")
            and " ready." in stack.log("worker-1.log")
            and stack.all_running()
        )

    try:
        poll_until(up, "the production stack", START_WAIT)
    except AssertionError as error:
        raise AssertionError(f"{error}\n{stack.logs()}") from None


def ids(pid: int) -> dict[str, list[int]]:
    """The Uid, Gid and Groups lines of /proc/<pid>/status."""
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    found = {}
    for line in lines:
        key, _, value = line.partition(":")
        if key in ("Uid", "Gid", "Groups"):
            found[key] = [int(part) for part in value.split()]
    return found


def test_the_sites_processes_run_as_the_user_boggle(production: OwnStack) -> None:
    site = pwd.getpwnam(SITE_USER)
    programs = [
        *(f"daphne-{port}" for port in production.daphne_ports),
        "worker-1",
        "beat",
        "redis",
    ]
    for program in programs:
        pid = production.pid(program)
        assert pid, f"{program} is not running"
        seen = ids(pid)
        # Real, effective, saved and filesystem ids: no way back to root.
        assert seen["Uid"] == [site.pw_uid] * 4, (program, seen)
        assert seen["Gid"] == [site.pw_gid] * 4, (program, seen)
        assert set(seen["Groups"]) <= {site.pw_gid}, (program, seen)
    # nginx's master binds the port as root; its workers are www-data.
    assert ids(production.pid("nginx"))["Uid"][0] == 0


def test_the_environment_file_is_private_to_root_and_the_sites_group(
    production: OwnStack,
) -> None:
    group = grp.getgrnam(SITE_USER).gr_gid
    for path in (production.run_dir / "boggle.env", production.run_dir / "redis.conf"):
        info = path.stat()
        assert (oct(info.st_mode & 0o777), info.st_uid, info.st_gid) == ("0o640", 0, group), path
    # What the processes write is the site user's, and nobody else's.
    site = pwd.getpwnam(SITE_USER)
    for folder in (production.run_dir / "media", production.run_dir / "state"):
        info = folder.stat()
        assert (oct(info.st_mode & 0o777), info.st_uid) == ("0o750", site.pw_uid), folder


def test_the_database_belongs_to_a_role_that_is_no_superuser(production: OwnStack) -> None:
    url = urllib.parse.urlsplit(production.env()["DATABASE_URL"])
    name = url.path.lstrip("/")
    assert url.username == name and url.password, "the role of its own, with a password"
    with psycopg.connect(production.database_url) as connection:
        role = connection.execute(
            "select rolsuper, rolcreatedb, rolcreaterole, rolcanlogin, rolpassword"
            " from pg_authid where rolname = %s",
            [name],
        ).fetchone()
        assert role is not None
        assert role[:4] == (False, False, False, True)
        assert role[4].startswith("SCRAM-SHA-256$")
        owner = connection.execute(
            "select pg_get_userbyid(datdba) from pg_database where datname = %s", [name]
        ).fetchone()
        assert owner == (name,)
        owners: dict[str, str] = dict(
            connection.execute(
                "select c.relname, pg_get_userbyid(c.relowner) from pg_class c"
                " join pg_namespace n on n.oid = c.relnamespace"
                " where n.nspname = 'public' and c.relkind in ('r', 'p', 'v', 'm', 'S')"
            ).fetchall()
        )
    assert {"legacy_notes", "legacy_counter", "legacy_view", "games_round"} <= set(owners)
    assert {relation for relation, owner in owners.items() if owner != name} == set()


def test_the_stacks_redis_refuses_a_client_without_its_password(production: OwnStack) -> None:
    url = production.env()["REDIS_URL"]
    parts = urllib.parse.urlsplit(url)
    assert (parts.hostname, parts.port) == ("127.0.0.1", production.redis_port)
    assert parts.password
    anonymous = redis.Redis(host="127.0.0.1", port=production.redis_port, socket_timeout=5)
    with pytest.raises(redis.AuthenticationError):
        anonymous.ping()
    anonymous.close()
    with pytest.raises(redis.AuthenticationError):
        redis.Redis(
            host="127.0.0.1", port=production.redis_port, password="wrong", socket_timeout=5
        ).ping()
    client = redis.Redis.from_url(url, socket_timeout=5)
    assert client.ping()
    client.close()


class Nginx:
    """tests.stack's clients through nginx: every "web process" is nginx."""

    def __init__(self, stack: OwnStack) -> None:
        self.base = stack.base

    def http_url(self, name: str) -> str:
        return self.base

    def ws_url(self, name: str, code: str) -> str:
        return f"ws://{self.base.removeprefix('http://')}/ws/rooms/{code}/"


def test_a_round_plays_through_nginx_on_the_stacks_own_redis(production: OwnStack) -> None:
    """Two players through nginx: their words are judged, the round ends at its deadline
    (moved closer) and both hear it through the channel layer, on the stack's Redis."""

    async def play() -> None:
        code, players = await open_room(cast(Stack, Nginx(production)), ["Ann", "Bob"])
        try:
            host, guest = players
            round_, words = await start_round(host, [guest])
            await wait_for_start(round_)
            verdict = await host.request(
                {"type": "submit", "word": words[0], "client_id": uuid.uuid4().hex}
            )
            assert verdict["verdict"] == "accepted", verdict
            marks = [len(player.messages) for player in players]
            shorten_round(production.database_url, code, round_["number"], 0.5)
            for player, mark in zip(players, marks, strict=True):
                ended = await player.wait_for("round.ended", after=mark)
                assert ended["scores"]["round"]["number"] == round_["number"]
        finally:
            for player in players:
                await player.close()

    asyncio.run(play())
