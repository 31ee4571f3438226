"""GET /healthz and GET /readyz (web.health), through the site's whole ASGI application: the
process answers; it is ready once its database, channel layer, word lists (and the photo
reader it preloads) are; JSON without secrets or host names; never limited, redirected,
refused for its Host, or given a cookie."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator

import pytest

from photos import reading
from tests.site.asgi_client import PUBLIC_CLIENT, request
from web import health

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
async def _stop_background() -> AsyncIterator[None]:
    """The site's application starts the process's background loops: stopped after."""
    from tests.games.ws_helpers import tear_down

    yield
    await tear_down()


@pytest.fixture(autouse=True)
def fresh_checks(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No state kept between answers, and the checks as they were after the test."""
    monkeypatch.setattr(health, "CACHE_SECONDS", 0.0)
    saved = dict(health._checks)
    for check in saved.values():  # a state kept by an earlier test is not this one's
        monkeypatch.setattr(check, "state", None)
    # An earlier test in this process may have preloaded the reader (tests/photos): its
    # check is that test's, not part of a process that does not preload.
    health._checks.pop("reader", None)
    yield
    health._checks.clear()
    health._checks.update(saved)


async def test_healthz_answers_without_touching_anything(monkeypatch) -> None:
    def fail() -> None:
        raise AssertionError("healthz ran a readiness check")

    health.add_check("database", fail)
    response = await request("/healthz")
    assert response.status == 200
    assert response.json() == {"status": "ok"}
    assert response.header("content-type") == "application/json"
    assert response.header("set-cookie") is None


async def test_readyz_lists_each_check_ready() -> None:
    response = await request("/readyz")
    assert response.status == 200, response.body
    assert response.json() == {
        "status": "ready",
        "checks": {
            "database": "ok",
            "channel_layer": "ok",
            "word_lists": "ok",
        },
    }
    assert response.header("set-cookie") is None


async def test_a_failed_check_is_503_without_its_error_text() -> None:
    def database_down() -> None:
        raise OSError("connection to server at db.internal:5432 refused, password=hunter2")

    health.add_check("database", database_down)
    response = await request("/readyz")
    assert response.status == 503
    assert response.json()["status"] == "not ready"
    assert response.json()["checks"]["database"] == "failed"
    assert response.json()["checks"]["channel_layer"] == "ok"
    assert b"db.internal" not in response.body and b"hunter2" not in response.body


async def test_a_check_that_hangs_is_timeout_and_the_answer_does_not_wait_for_it(
    monkeypatch,
) -> None:
    monkeypatch.setattr(health, "ANSWER_WITHIN_SECONDS", 0.2)
    released = threading.Event()
    health.add_check("database", lambda: released.wait(30))
    try:
        response = await request("/readyz")
        again = await request("/readyz")  # joins the run still going, starts none
    finally:
        released.set()
    # Only the hung check is asserted: the others' state depends on how fast this machine
    # answers them within the shortened bound.
    assert response.status == 503
    assert response.json()["checks"]["database"] == "timeout"
    assert set(response.json()["checks"]) == {"database", "channel_layer", "word_lists"}
    assert again.json()["checks"]["database"] == "timeout"


async def test_not_ready_while_the_preloaded_reader_loads(monkeypatch, settings) -> None:
    """A process that preloads the photo reader (the embedded Daphne) is ready once loaded."""
    settings.PHOTOS_PRELOAD_READER = True
    monkeypatch.setattr(reading, "_reader", None)
    monkeypatch.setattr(reading._reading_threads, "submit", lambda *args, **kwargs: None)
    reading.preload_reader()
    loading = await request("/readyz")
    assert loading.status == 503
    assert loading.json()["checks"]["reader"] == "loading"
    monkeypatch.setattr(reading, "_reader", object())
    loaded = await request("/readyz")
    assert loaded.status == 200
    assert loaded.json()["checks"]["reader"] == "ok"


async def test_no_reader_check_where_the_reader_is_not_preloaded() -> None:
    response = await request("/readyz")
    assert "reader" not in response.json()["checks"]


async def test_probes_are_never_rate_limited(settings) -> None:
    settings.BOGGLE_RATE_LIMITS = True
    statuses = {(await request(path)).status for path in ("/healthz", "/readyz") * 40}
    assert statuses == {200}


async def test_probes_answer_any_host_over_plain_http(settings) -> None:
    """A probe on 127.0.0.1:8001 reaches a site that names only its public host and
    redirects http to https: answered, not 400 (Host) or 301 (https)."""
    settings.ALLOWED_HOSTS = ["boggle.example.org"]
    settings.BOGGLE_SERVES_LOCAL_NETWORK = False
    settings.SECURE_SSL_REDIRECT = True
    page = await request("/api/dictionaries", host="127.0.0.1:8001")
    assert page.status == 400  # the site itself refuses the Host
    for path in ("/healthz", "/readyz"):
        response = await request(path, host="127.0.0.1:8001", client=PUBLIC_CLIENT)
        assert response.status == 200, (path, response.status, response.body)


async def test_only_get_and_head() -> None:
    assert (await request("/healthz", method="POST")).status == 405
    head = await request("/readyz", method="HEAD")
    assert head.status == 200 and head.body == b""
