"""The database and Redis of ``bin/start --production`` on this machine, with credentials of
their own (issue 49, item 8).

- PostgreSQL: the database is owned by a role of the same name (``boggle_site``) that logs
  in with a password and may do nothing else (not a superuser, creates no database or
  role); the environment file connects as it. The superuser (``postgres@127.0.0.1``) is
  used here only, at set-up, to create the role and hand it the database and the tables an
  older version created as the superuser. The password is sent as a SCRAM verifier, so the
  server's statement log never holds it.
- Redis: a redis-server of the stack's own, under its supervisor, on 127.0.0.1 with
  ``requirepass``: the machine's shared Redis is never reconfigured (other projects use it;
  an ACL user there would vanish with its next restart). Its data (queued tasks) is kept
  in the run directory across restarts.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import shutil
import subprocess
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg

SUPERUSER_SERVER = "postgresql://postgres@127.0.0.1:5432"
DATABASE_SERVER = "127.0.0.1:5432"
REDIS_HOST = "127.0.0.1"
REDIS_CANDIDATES = ("redis-server", "/usr/bin/redis-server", "/usr/sbin/redis-server")
# PostgreSQL's own choice for scram-sha-256 verifiers.
SCRAM_ITERATIONS = 4096
# How long the set-up's Redis may take to answer (seconds).
REDIS_START_WAIT = 20.0


def new_password() -> str:
    """URL-safe, so that it goes in a URL and redis.conf as it is."""
    return secrets.token_urlsafe(32)


# ---------------------------------------------------------------- PostgreSQL


def database_url(name: str, password: str) -> str:
    """The environment's DATABASE_URL: the role ``name`` on its database ``name``."""
    return f"postgresql://{name}:{password}@{DATABASE_SERVER}/{name}"


def superuser_database_url(name: str) -> str:
    """What older versions wrote: the superuser, without a password."""
    return f"{SUPERUSER_SERVER}/{name}"


def role_password(url: str, name: str) -> str | None:
    """The password of ``url`` when it is ``database_url(name, password)``, else None."""
    parts = urllib.parse.urlsplit(url)
    if (
        parts.scheme in ("postgres", "postgresql")
        and parts.username == name
        and parts.password
        and parts.netloc.endswith(f"@{DATABASE_SERVER}")
        and parts.path == f"/{name}"
    ):
        return urllib.parse.unquote(parts.password)
    return None


def scram_verifier(password: str, salt: bytes | None = None) -> str:
    """The scram-sha-256 verifier PostgreSQL stores for ``password`` (RFC 5802, 7677)."""
    salt = salt if salt is not None else secrets.token_bytes(16)
    salted = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, SCRAM_ITERATIONS)
    client_key = hmac.new(salted, b"Client Key", hashlib.sha256).digest()
    stored_key = hashlib.sha256(client_key).digest()
    server_key = hmac.new(salted, b"Server Key", hashlib.sha256).digest()

    def b64(data: bytes) -> str:
        return base64.b64encode(data).decode()

    return f"SCRAM-SHA-256${SCRAM_ITERATIONS}:{b64(salt)}${b64(stored_key)}:{b64(server_key)}"


def ensure_database(name: str, password: str, server: str = SUPERUSER_SERVER) -> None:
    """The role ``name`` (login with ``password``, no other right) and its database
    ``name``, created or brought in line; everything in the database owned by the role."""
    import psycopg
    from psycopg import sql

    role = sql.Identifier(name)
    with psycopg.connect(f"{server}/postgres", autocommit=True) as connection:
        exists = connection.execute("select 1 from pg_roles where rolname = %s", [name])
        verb = "alter" if exists.fetchone() else "create"
        connection.execute(
            sql.SQL(
                "{} role {} login nosuperuser nocreatedb nocreaterole noreplication"
                " nobypassrls password {}"
            ).format(sql.SQL(verb), role, sql.Literal(scram_verifier(password)))
        )
        if verb == "create":
            print(f"PostgreSQL role {name} created (a password, no other right)")
        exists = connection.execute("select 1 from pg_database where datname = %s", [name])
        if exists.fetchone() is None:
            connection.execute(sql.SQL("create database {} owner {}").format(role, role))
            print(f"PostgreSQL database {name} created")
        else:
            connection.execute(sql.SQL("alter database {} owner to {}").format(role, role))
        # Only its owner (and superusers) may connect.
        connection.execute(sql.SQL("revoke all on database {} from public").format(role))
    with psycopg.connect(f"{server}/{name}", autocommit=True) as connection:
        connection.execute(sql.SQL("grant usage, create on schema public to {}").format(role))
        give_tables(connection, name)


# ALTER ... OWNER TO for each kind of relation (tables first: their sequences and indexes
# follow them; a sequence that belongs to a column cannot be given on its own).
RELATION_KINDS = (
    ("r", "table"),
    ("p", "table"),
    ("v", "view"),
    ("m", "materialized view"),
    ("f", "foreign table"),
    ("S", "sequence"),
)


def give_tables(connection: psycopg.Connection[Any], name: str) -> int:
    """Every relation of the database's own schemas owned by the role ``name`` (an older
    version's tables were the superuser's). Returns how many changed hands."""
    from psycopg import sql

    given = 0
    for kind, keyword in RELATION_KINDS:
        rows = connection.execute(
            """
            select n.nspname, c.relname from pg_class c
            join pg_namespace n on n.oid = c.relnamespace
            where c.relkind = %s and pg_get_userbyid(c.relowner) <> %s
              and n.nspname not like 'pg\\_%%' and n.nspname <> 'information_schema'
              and not exists (select 1 from pg_depend d where d.classid = 'pg_class'::regclass
                              and d.objid = c.oid and d.deptype in ('a', 'i'))
            """,
            [kind, name],
        ).fetchall()
        for schema, relation in rows:
            connection.execute(
                sql.SQL("alter {} {}.{} owner to {}").format(
                    sql.SQL(keyword),
                    sql.Identifier(schema),
                    sql.Identifier(relation),
                    sql.Identifier(name),
                )
            )
            given += 1
    if given:
        print(f"PostgreSQL: {given} table(s), view(s) and sequence(s) given to the role {name}")
    return given


# ---------------------------------------------------------------- Redis


@dataclass(frozen=True)
class PrivateRedis:
    """The stack's own redis-server: where it listens, its password and its files."""

    port: int
    password: str
    conf: Path  # redis.conf: holds the password (0640 root:boggle, or 0600)
    data_dir: Path  # its dump, the site user's

    @property
    def url(self) -> str:
        return redis_url(self.port, self.password)

    def config(self) -> str:
        return (
            "\n".join(
                [
                    "# Written by bin/start --production (production.local_services): the stack's",
                    "# own Redis, on loopback, with a password; its supervisor starts it.",
                    f"bind {REDIS_HOST}",
                    f"port {self.port}",
                    "protected-mode yes",
                    f"requirepass {self.password}",
                    "daemonize no",
                    'logfile ""',
                    f'dir "{self.data_dir}"',
                    "dbfilename dump.rdb",
                    # Queued tasks (a round's end, a photo to read) outlive a restart.
                    "save 3600 1 300 100 60 10000",
                    "appendonly no",
                ]
            )
            + "\n"
        )

    def command(self) -> list[str]:
        return [redis_server(), str(self.conf)]


def redis_url(port: int, password: str) -> str:
    return f"redis://:{password}@{REDIS_HOST}:{port}/0"


def private_redis_password(url: str) -> str | None:
    """The password of ``url`` when it is the stack's own Redis (``redis_url``)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "redis" and parts.hostname == REDIS_HOST and not parts.username:
        return urllib.parse.unquote(parts.password) if parts.password else None
    return None


def redis_server() -> str:
    for candidate in REDIS_CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    raise FileNotFoundError(
        "redis-server is not installed (Debian: apt-get install redis-server; bin/start"
        " does it as root)"
    )


def redis_answers(redis: PrivateRedis) -> bool:
    import redis as redis_py

    client = redis_py.Redis(
        host=REDIS_HOST, port=redis.port, password=redis.password, socket_timeout=1
    )
    try:
        return bool(client.ping())
    except redis_py.RedisError:
        return False
    finally:
        client.close()


class RunningRedis:
    """The stack's Redis for the set-up (migrations may queue a task), stopped after it:
    its supervisor starts it again, with what it saved."""

    def __init__(self, redis: PrivateRedis, user: int | None, group: int | None) -> None:
        self.redis = redis
        self.process = subprocess.Popen(
            redis.command(),
            stdout=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            user=user,
            group=group,
            extra_groups=None if user is None else [],
        )

    def __enter__(self) -> RunningRedis:
        deadline = time.monotonic() + REDIS_START_WAIT
        while not redis_answers(self.redis):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(
                    f"the stack's Redis did not start on {REDIS_HOST}:{self.redis.port}"
                    f" (redis-server {self.redis.conf})"
                )
            time.sleep(0.1)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()  # redis-server saves its data on SIGTERM
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
