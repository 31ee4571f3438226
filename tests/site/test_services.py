"""Integration: the production settings against a real PostgreSQL and Redis."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import redis
from celery import Celery
from channels_redis.core import RedisChannelLayer

from boggle_site import env
from tests.servers import throwaway_postgres_database

pytestmark = pytest.mark.integration

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_postgres_answers(postgres_url: str) -> None:
    """A plain connection runs a query."""
    with psycopg.connect(postgres_url, connect_timeout=5) as connection:
        assert connection.execute("select 1").fetchone() == (1,)


@pytest.fixture
def throwaway_database(postgres_url: str) -> Iterator[str]:
    """A new, empty PostgreSQL database, dropped afterwards; yields its URL."""
    with throwaway_postgres_database(postgres_url) as url:
        yield url


def test_migrations_run_on_postgres(throwaway_database: str) -> None:
    """`manage.py migrate` with DATABASE_URL set builds the schema in PostgreSQL."""
    child_env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "DJANGO_DEBUG"}}
    child_env |= {"DATABASE_URL": throwaway_database, "DJANGO_SECRET_KEY": "integration-test"}

    result = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=REPO_ROOT,
        env=child_env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert result.returncode == 0, result.stderr
    with psycopg.connect(throwaway_database, connect_timeout=5) as connection:
        applied = connection.execute("select count(*) from django_migrations").fetchone()
        assert applied is not None and applied[0] > 0
        assert connection.execute("select to_regclass('auth_user')").fetchone() == ("auth_user",)


async def test_redis_channel_layer_round_trip(redis_url: str, redis_prefix: str) -> None:
    """Two channels on the production layer config exchange a message each way; every key
    the layer wrote carries BOGGLE_REDIS_PREFIX."""
    config = env.channel_layers({"REDIS_URL": redis_url, "BOGGLE_REDIS_PREFIX": redis_prefix})
    layer = RedisChannelLayer(**config["default"]["CONFIG"])
    try:
        alice = await layer.new_channel()
        bob = await layer.new_channel()
        await layer.group_add("table", bob)

        await layer.send(bob, {"type": "chat.message", "text": "hello", "reply_to": alice})
        received = await asyncio.wait_for(layer.receive(bob), timeout=5)
        assert received["text"] == "hello"

        await layer.send(received["reply_to"], {"type": "chat.message", "text": "hi back"})
        reply = await asyncio.wait_for(layer.receive(alice), timeout=5)
        assert reply["text"] == "hi back"

        with redis.Redis.from_url(redis_url, socket_timeout=5) as client:
            assert client.exists(f"{redis_prefix}asgi:group:table")
            assert not client.exists("asgi:group:table")
    finally:
        await layer.close_pools()


def test_celery_task_runs_on_real_worker(redis_url: str, redis_prefix: str) -> None:
    """A task sent through the Redis broker runs in a `celery worker` subprocess; its queue
    and its result live under BOGGLE_REDIS_PREFIX."""
    queue = f"test-{uuid.uuid4().hex[:8]}"
    worker_env = os.environ | {
        "PROBE_REDIS_URL": redis_url,
        "PROBE_REDIS_PREFIX": redis_prefix,
        "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), str(Path(__file__).parent)]),
    }
    worker = subprocess.Popen(
        [
            *[sys.executable, "-m", "celery", "-A", "celery_probe", "worker"],
            *["--pool", "solo", "--queues", queue, "--loglevel", "warning"],
            *["--without-heartbeat", "--without-mingle", "--without-gossip"],
        ],
        env=worker_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    client = Celery("celery_probe_client")
    client.conf.update(
        env.celery_config({"REDIS_URL": redis_url, "BOGGLE_REDIS_PREFIX": redis_prefix})
    )
    try:
        result = client.send_task("celery_probe.add", args=(2, 3), queue=queue)
        assert result.get(timeout=30) == 5
        with redis.Redis.from_url(redis_url, socket_timeout=5) as store:
            assert store.exists(f"{redis_prefix}celery-task-meta-{result.id}")
            assert not store.exists(f"celery-task-meta-{result.id}")
            assert store.exists(f"{redis_prefix}_kombu.binding.{queue}")
    finally:
        worker.terminate()
        try:
            output, _ = worker.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            worker.kill()
            output, _ = worker.communicate()
        client.close()
    assert "Traceback" not in output, output
