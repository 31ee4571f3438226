"""The set-up steps of ``bin/start --production`` that give the stack credentials of its own
and drop root (issue 49, item 8), one by one and quickly; tests/production/
test_least_privilege.py checks them together in the running stack."""

from __future__ import annotations

import base64
import os
import pwd
import stat
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import redis
from psycopg import sql
from supervisor.options import ServerOptions

from production import envfile, local_services, render, site_user
from production.__main__ import SHARED_REDIS, local_env_file
from web.network import free_ports

SUPERUSER = "postgresql://postgres@127.0.0.1:5432"


@pytest.fixture
def role_name(services: dict[str, bool]) -> Iterator[str]:
    """A database and role name of this test's own, both dropped afterwards."""
    if not services["postgres"]:
        pytest.skip("PostgreSQL needed on 127.0.0.1")
    name = f"boggle_test_{uuid.uuid4().hex[:12]}"
    try:
        yield name
    finally:
        with psycopg.connect(f"{SUPERUSER}/postgres", autocommit=True) as connection:
            connection.execute(
                sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name))
            )
            connection.execute(sql.SQL("drop role if exists {}").format(sql.Identifier(name)))


def test_the_password_goes_to_postgresql_as_the_verifier_it_would_store(role_name: str) -> None:
    """No password in a statement the server may log: the verifier, computed here, is the
    one PostgreSQL computes itself for the same salt."""
    with psycopg.connect(f"{SUPERUSER}/postgres", autocommit=True) as connection:
        connection.execute("set password_encryption = 'scram-sha-256'")
        connection.execute(
            sql.SQL("create role {} password 'pencil'").format(sql.Identifier(role_name))
        )
        row = connection.execute(
            "select rolpassword from pg_authid where rolname = %s", [role_name]
        ).fetchone()
    assert row is not None
    salt = base64.b64decode(row[0].split("$")[1].split(":")[1])
    assert local_services.scram_verifier("pencil", salt) == row[0]


def test_the_database_and_an_older_versions_tables_go_to_a_role_without_rights(
    role_name: str,
) -> None:
    with psycopg.connect(f"{SUPERUSER}/postgres", autocommit=True) as connection:
        connection.execute(sql.SQL("create database {}").format(sql.Identifier(role_name)))
    with psycopg.connect(f"{SUPERUSER}/{role_name}", autocommit=True) as connection:
        connection.execute("create table old_rows (id bigint generated always as identity)")
        connection.execute("create table old_serial (id serial primary key)")
        connection.execute("create sequence old_counter")
    local_services.ensure_database(role_name, "first-password")
    local_services.ensure_database(role_name, "second-password")  # again: nothing breaks
    with psycopg.connect(f"{SUPERUSER}/{role_name}", autocommit=True) as connection:
        role = connection.execute(
            "select rolsuper, rolcreatedb, rolcreaterole, rolcanlogin, rolreplication"
            " from pg_roles where rolname = %s",
            [role_name],
        ).fetchone()
        owners = connection.execute(
            "select c.relname, pg_get_userbyid(c.relowner) from pg_class c"
            " join pg_namespace n on n.oid = c.relnamespace"
            " where n.nspname = 'public' and c.relkind in ('r', 'S')"
        ).fetchall()
        public_connect = connection.execute(
            "select has_database_privilege('public', %s, 'connect')", [role_name]
        ).fetchone()
    assert role == (False, False, False, True, False)
    assert {relation for relation, _ in owners} >= {"old_rows", "old_serial", "old_counter"}
    assert {owner for _, owner in owners} == {role_name}
    assert public_connect == (False,)


def old_env_file(path: Path, database: str, **extra: str) -> None:
    values = {
        "DJANGO_SECRET_KEY": "kept-secret",
        "DATABASE_URL": local_services.superuser_database_url(database),
        "REDIS_URL": SHARED_REDIS,
        "BOGGLE_REDIS_PREFIX": "boggle_site:",
        "DJANGO_LOG_LEVEL": "WARNING",
        **extra,
    }
    path.write_text(envfile.with_values(render.ENV_TEMPLATE.read_text(), values))
    path.chmod(0o644)


def test_an_older_versions_environment_file_gets_a_role_and_a_redis_with_passwords(
    tmp_path: Path,
) -> None:
    old_env_file(tmp_path / "boggle.env", "boggle_site")
    path = local_env_file(tmp_path, "127.0.0.1", 8000, None, "boggle_site", 8100)
    values = envfile.read(path)
    database = values["DATABASE_URL"]
    password = local_services.role_password(database, "boggle_site")
    assert password and len(password) >= 40, "the role boggle_site with a password"
    redis_password = local_services.private_redis_password(values["REDIS_URL"])
    assert redis_password and len(redis_password) >= 40
    assert values["REDIS_URL"] == local_services.redis_url(8100, redis_password)
    # What the operator wrote stays.
    assert (values["DJANGO_SECRET_KEY"], values["DJANGO_LOG_LEVEL"]) == ("kept-secret", "WARNING")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    # The next start keeps the passwords; another port for the Redis follows.
    again = envfile.read(local_env_file(tmp_path, "127.0.0.1", 8000, None, "boggle_site", 8200))
    assert again["DATABASE_URL"] == database
    assert again["REDIS_URL"] == local_services.redis_url(8200, redis_password)


def test_the_operators_own_database_and_redis_are_left_as_they_are(tmp_path: Path) -> None:
    theirs = {
        "DATABASE_URL": "postgres://boggle:theirs@db.internal:5432/boggle",
        "REDIS_URL": "redis://:theirs@127.0.0.1:6379/2",
    }
    old_env_file(tmp_path / "boggle.env", "boggle_site", **theirs)
    values = envfile.read(local_env_file(tmp_path, "127.0.0.1", 8000, None, "boggle_site", 8100))
    assert {key: values[key] for key in theirs} == theirs


def test_a_new_environment_file_has_passwords_from_the_start(tmp_path: Path) -> None:
    values = envfile.read(local_env_file(tmp_path, "127.0.0.1", 8000, None, "site_x", 8100))
    assert local_services.role_password(values["DATABASE_URL"], "site_x")
    assert local_services.private_redis_password(values["REDIS_URL"])


def test_as_root_the_environment_file_is_readable_by_the_sites_group_only(
    tmp_path: Path,
) -> None:
    if os.geteuid() != 0:
        pytest.skip("the site's user exists only for a start as root")
    account = site_user.ensure()
    path = local_env_file(tmp_path, "127.0.0.1", 8000, account, "boggle_site", 8100)
    info = path.stat()
    assert (stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid) == (0o640, 0, account.gid)


def test_the_supervisor_runs_all_but_nginx_as_the_sites_user(tmp_path: Path) -> None:
    user = pwd.getpwuid(os.getuid()).pw_name  # supervisord resolves the name: one that exists
    programs = render.stack_programs(
        tmp_path / "boggle.env",
        (8101,),
        1,
        ["/usr/sbin/nginx"],
        tmp_path / "beat",
        user,
        ["/usr/bin/redis-server", str(tmp_path / "redis.conf")],
    )
    (tmp_path / "logs").mkdir()
    conf = tmp_path / "supervisord.conf"
    conf.write_text(render.supervisord(programs, tmp_path, tmp_path / "home"))
    options = ServerOptions()
    options.realize(args=["-c", str(conf)])
    configs = {group.name: group.process_configs[0] for group in options.process_group_configs}
    assert set(configs) == {"redis", "nginx", "daphne-8101", "worker-1", "beat"}
    assert configs["nginx"].uid is None
    for name in ("redis", "daphne-8101", "worker-1", "beat"):
        assert configs[name].uid == os.getuid(), name
        assert configs[name].environment["HOME"] == str(tmp_path / "home"), name
    # The Redis starts before what uses it.
    assert configs["redis"].priority < min(
        config.priority for config in configs.values() if config.name != "redis"
    )


def test_the_stacks_redis_wants_its_password(tmp_path: Path) -> None:
    (port,) = free_ports(1)
    private = local_services.PrivateRedis(
        port, "a-password-of-its-own", tmp_path / "r.conf", tmp_path
    )
    private.conf.write_text(private.config())
    with local_services.RunningRedis(private, None, None):
        with pytest.raises(redis.AuthenticationError):
            redis.Redis(host="127.0.0.1", port=port, socket_timeout=5).ping()
        assert redis.Redis.from_url(private.url, socket_timeout=5).ping()


def test_a_checkout_the_sites_user_cannot_read_is_refused_with_what_to_change(
    tmp_path: Path,
) -> None:
    if os.geteuid() != 0:
        pytest.skip("the site's user exists only for a start as root")
    account = site_user.ensure()
    secret = tmp_path / "unreadable.env"
    secret.write_text("A=1\n")
    secret.chmod(0o600)
    with pytest.raises(site_user.SiteUserError) as raised:
        site_user.check(account, [secret], [tmp_path])
    message = str(raised.value)
    assert f"cannot read {secret}" in message
    assert f"cannot write in {tmp_path}" in message
    assert f"chgrp -R {account.name}" in message and f"chown -R {account.name}" in message
    site_user.check(account, [], [])  # the checkout itself: readable, the packages import
