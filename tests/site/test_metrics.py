"""GET /metrics (web.metrics and the apps' metrics): Prometheus text for loopback and for
the token's bearer only, never for a client a proxy forwards; and the figures move when a
word is judged on a real socket, a round runs or ends late, a limit refuses, a handler
fails, the site answers 5xx, and tasks wait in Celery's queue."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from datetime import timedelta
from pathlib import Path
from typing import cast

import pytest
import redis
from asgiref.sync import sync_to_async
from django.utils import timezone
from kombu import Connection
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from games import socket_requests
from games.models import Round
from games.socket_requests import RequestingSocket
from tests.games.ws_helpers import ask, set_round_times, start_round, submit, two_players
from tests.site.asgi_client import PUBLIC_CLIENT, request
from web import limits_redis, metrics, request_log, throttle

pytestmark = pytest.mark.django_db(transaction=True)

PROXY = "127.0.0.1"
TOKEN = "a-metrics-token-of-forty-characters-0123"


@pytest.fixture(autouse=True)
async def _close_sockets() -> AsyncIterator[None]:
    from tests.games.ws_helpers import tear_down

    yield
    await tear_down()


@pytest.fixture(autouse=True)
def _fresh_limits() -> Iterator[None]:
    throttle.reset()
    limits_redis.reset()
    yield
    throttle.reset()
    limits_redis.reset()


def sample(name: str, **labels: str) -> float:
    """One sample of this process's own metrics (read without the scrape-time collectors,
    which read the database: not from the event loop)."""
    for family in REGISTRY.restricted_registry([name]).collect():
        for found in family.samples:
            if found.name == name and found.labels == labels:
                return found.value
    return 0.0


def scraped(body: bytes) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a scrape: (name, labels) -> value."""
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(body.decode())
        for s in family.samples
    }


# ---------------------------------------------------------------- who may read them


async def test_loopback_reads_the_metrics() -> None:
    response = await request("/metrics", client="127.0.0.1")
    assert response.status == 200
    assert (response.header("content-type") or "").startswith("text/plain")
    samples = scraped(response.body)
    assert ("boggle_sockets_open", ()) in samples
    assert ("boggle_task_queue_depth", ()) in samples
    assert ("boggle_rounds_running", ()) in samples
    assert response.header("set-cookie") is None


async def test_a_client_elsewhere_gets_404() -> None:
    response = await request("/metrics", client=PUBLIC_CLIENT)
    assert response.status == 404
    assert b"boggle_" not in response.body


async def test_a_client_forwarded_by_a_trusted_proxy_is_not_loopback(settings) -> None:
    """nginx on this machine (a trusted proxy) passes on a request from the Internet: its
    TCP peer is loopback, the client is not."""
    settings.BOGGLE_TRUSTED_PROXIES = [f"{PROXY}/32"]
    forwarded = [("X-Forwarded-For", PUBLIC_CLIENT)]
    assert (await request("/metrics", client=PROXY, headers=forwarded)).status == 404


async def test_a_request_an_undeclared_proxy_forwards_is_not_loopback(settings) -> None:
    settings.BOGGLE_TRUSTED_PROXIES = []
    forwarded = [("X-Forwarded-For", PUBLIC_CLIENT)]
    assert (await request("/metrics", client=PROXY, headers=forwarded)).status == 404
    forged = [("X-Forwarded-For", "127.0.0.1")]
    assert (await request("/metrics", client=PUBLIC_CLIENT, headers=forged)).status == 404


async def test_the_token_lets_a_forwarded_client_in_and_only_in_its_header(settings) -> None:
    settings.BOGGLE_TRUSTED_PROXIES = [f"{PROXY}/32"]
    settings.BOGGLE_METRICS_TOKEN = TOKEN
    forwarded = [("X-Forwarded-For", PUBLIC_CLIENT)]
    bearer = [*forwarded, ("Authorization", f"Bearer {TOKEN}")]
    assert (await request("/metrics", client=PROXY, headers=bearer)).status == 200
    wrong = [*forwarded, ("Authorization", f"Bearer {TOKEN[:-1]}x")]
    assert (await request("/metrics", client=PROXY, headers=wrong)).status == 404
    in_url = await request(f"/metrics?token={TOKEN}", client=PROXY, headers=forwarded)
    assert in_url.status == 404
    assert (await request("/metrics", client=PUBLIC_CLIENT, headers=bearer[1:])).status == 200


# ---------------------------------------------------------------- what moves them


async def test_a_word_judged_on_a_real_socket_moves_the_counters() -> None:
    before = {
        "accepted": sample("boggle_words_judged_total", verdict="accepted"),
        "not_on_board": sample("boggle_words_judged_total", verdict="not_on_board"),
        "latency": sample("boggle_verdict_seconds_count"),
        "open": sample("boggle_sockets_open"),
    }
    ann, bob = await two_players(round_seconds=60)
    assert sample("boggle_sockets_open") == before["open"] + 2
    await start_round(ann, bob)
    assert (await submit(bob.comm, "went"))["verdict"] == "accepted"
    assert (await submit(bob.comm, "zebra"))["verdict"] == "not_on_board"
    assert sample("boggle_words_judged_total", verdict="accepted") == before["accepted"] + 1
    assert sample("boggle_words_judged_total", verdict="not_on_board") == before["not_on_board"] + 1
    assert sample("boggle_verdict_seconds_count") == before["latency"] + 2
    samples = scraped((await request("/metrics", client="127.0.0.1")).body)
    accepted = ("boggle_words_judged_total", (("verdict", "accepted"),))
    assert samples[accepted] == before["accepted"] + 1
    assert samples[("boggle_rounds_running", ())] >= 1
    assert bob.comm is not None
    await bob.comm.disconnect()
    assert sample("boggle_sockets_open") == before["open"] + 1


async def test_rounds_ended_late_and_overdue_are_read_from_the_database() -> None:
    ann, bob = await two_players(round_seconds=60)
    round_ = await start_round(ann, bob)
    await set_round_times(round_, ends_at=timezone.now() - timedelta(seconds=30))
    samples = scraped((await request("/metrics", client="127.0.0.1")).body)
    assert samples[("boggle_rounds_overdue", ())] == 1
    ended_late = samples[("boggle_rounds_ended_late", ())]
    late = timezone.now() - timedelta(seconds=20)
    await sync_to_async(Round.objects.filter(pk=round_.pk).update)(
        status=Round.Status.ENDED, ended_at=late
    )
    samples = scraped((await request("/metrics", client="127.0.0.1")).body)
    assert samples[("boggle_rounds_overdue", ())] == 0
    assert samples[("boggle_rounds_ended_late", ())] == ended_late + 1


async def test_a_failed_handler_counts_a_socket_server_error(monkeypatch) -> None:
    async def broken(consumer: RequestingSocket, message: dict) -> dict:
        raise RuntimeError("a bug")

    monkeypatch.setitem(socket_requests.HANDLERS, "sync", broken)
    before = sample("boggle_socket_server_errors_total")
    ann, _ = await two_players()
    assert ann.comm is not None
    assert (await ask(ann.comm, "sync"))["code"] == "server_error"
    assert sample("boggle_socket_server_errors_total") == before + 1


def test_a_refusal_counts_the_limit_hit(settings) -> None:
    settings.BOGGLE_RATE_LIMITS = True
    before = sample("boggle_limits_hit_total", limit="create")
    for _ in range(throttle.CREATE.burst):
        throttle.take(throttle.CREATE, PUBLIC_CLIENT)
    assert sample("boggle_limits_hit_total", limit="create") == before
    assert not throttle.allows(throttle.CREATE, PUBLIC_CLIENT)
    assert sample("boggle_limits_hit_total", limit="create") == before + 1
    before_messages = sample("boggle_limits_hit_total", limit="player_message")
    while throttle.spend(throttle.PLAYER_MESSAGE, "player:1"):
        pass
    assert sample("boggle_limits_hit_total", limit="player_message") == before_messages + 1


async def test_5xx_answers_are_counted_and_probes_are_not() -> None:
    async def failing(scope, receive, send) -> None:
        raise RuntimeError("a bug")

    async def unavailable(scope, receive, send) -> None:
        await send({"type": "http.response.start", "status": 503, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    before = sample("boggle_http_server_errors_total", status="500")
    with pytest.raises(RuntimeError):
        await request("/api/anything", app=request_log.logged(failing))
    assert sample("boggle_http_server_errors_total", status="500") == before + 1
    before = sample("boggle_http_server_errors_total", status="503")
    await request("/readyz", app=request_log.logged(unavailable))
    assert sample("boggle_http_server_errors_total", status="503") == before
    await request("/api/anything", app=request_log.logged(unavailable))
    assert sample("boggle_http_server_errors_total", status="503") == before + 1


async def test_the_task_queue_depth_is_celerys_queue_in_redis(
    settings, redis_url: str, redis_prefix: str
) -> None:
    settings.BOGGLE_LIMITS_REDIS_URL = redis_url
    settings.BOGGLE_REDIS_PREFIX = redis_prefix
    settings.CELERY_TASK_ALWAYS_EAGER = False

    def depth() -> float:
        collected = list(metrics.TaskQueueDepth().collect())
        return collected[0].samples[0].value

    assert depth() == 0
    # Published as Celery publishes a task: kombu, the site's key prefix, the default queue.
    options = {"global_keyprefix": redis_prefix}
    with Connection(redis_url, transport_options=options) as connection:
        queue = connection.SimpleQueue("celery")
        queue.put({"task": "games.tasks.end_round"})
        queue.put({"task": "games.tasks.end_round"}, priority=6)
        queue.close()
    assert depth() == 2
    keys = cast(list[bytes], redis.Redis.from_url(redis_url).keys(f"{redis_prefix}*"))
    assert keys and all(key.startswith(redis_prefix.encode()) for key in keys)


def test_the_embedded_default_has_no_queue() -> None:
    collected = list(metrics.TaskQueueDepth().collect())
    assert collected[0].samples[0].value == 0


def test_the_documented_metrics_are_the_ones_served() -> None:
    """docs/operations.md's tables and example alerts name no metric the site lacks."""
    from games.metrics import RoundsCollector
    from photos.metrics import PhotosCollector

    served: set[str] = set()
    families = [
        *RoundsCollector().describe(),
        *PhotosCollector().describe(),
        *metrics.TaskQueueDepth().describe(),
    ]
    for metric in (metrics.SOCKETS_OPEN, metrics.HTTP_SERVER_ERRORS, metrics.LIMITS_HIT):
        families.extend(metric.describe())
    from games.metrics import VERDICT_SECONDS, WORDS_JUDGED

    families.extend([*VERDICT_SECONDS.describe(), *WORDS_JUDGED.describe()])
    families.extend(metrics.SOCKET_SERVER_ERRORS.describe())
    from web.loop_lag import LOOP_LAG

    families.extend(LOOP_LAG.describe())
    suffixes = {"counter": ("_total",), "histogram": ("_bucket", "_count", "_sum")}
    for family in families:
        served.add(family.name)
        served.update(family.name + suffix for suffix in suffixes.get(family.type, ()))
    text = (Path(__file__).resolve().parents[2] / "docs" / "operations.md").read_text()
    section = text[text.index("## Metrics and alerts") : text.index("## Logs")]
    named = set(re.findall(r"\bboggle_[a-z_]+", section)) - {"boggle_"}
    assert named, "no metric named in docs/operations.md"
    assert named <= served, named - served
