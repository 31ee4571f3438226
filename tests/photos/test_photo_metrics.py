"""Photos read and their times at /metrics (photos.metrics): each reading's outcome and time
are tallied where it ends, and a web process reports them, also when a worker read them
(production: the tally is in Redis, shared by every process)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from photos import metrics as photo_metrics
from photos.models import BoardPhoto
from tests.games.ws_helpers import receive_until, tear_down, two_players
from tests.photos.helpers import png_bytes, upload
from tests.site.asgi_client import request
from vision.errors import GridNotFoundError
from web import limits_redis

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
async def _close_sockets() -> AsyncIterator[None]:
    yield
    await tear_down()


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PHOTOS_READ_IN_THREAD = False


async def scrape() -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = await request("/metrics", client="127.0.0.1")
    assert response.status == 200
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(response.body.decode())
        for s in family.samples
    }


def read_count(samples: dict, outcome: str) -> float:
    return samples.get(("boggle_photos_read_total", (("outcome", outcome),)), 0.0)


async def test_readings_are_counted_by_outcome_with_their_times(fake_reader) -> None:
    before = await scrape()
    ann, bob = await two_players()
    await upload(bob.client, bob.code, png_bytes())
    await receive_until(ann.comm, "board.read")
    fake_reader.reading = GridNotFoundError("no grid")
    await upload(bob.client, bob.code, png_bytes())
    await receive_until(ann.comm, "board.unreadable")
    after = await scrape()
    assert read_count(after, "read") == read_count(before, "read") + 1
    assert read_count(after, "no_grid") == read_count(before, "no_grid") + 1
    count = ("boggle_photo_read_seconds_count", ())
    assert after[count] == before.get(count, 0.0) + 2
    assert after[("boggle_photos_waiting", ())] == 0
    assert after[("boggle_photo_oldest_waiting_seconds", ())] == 0


async def test_a_photo_still_waiting_is_reported(fake_reader, monkeypatch) -> None:
    from photos import api as photos_api

    monkeypatch.setattr(photos_api, "enqueue_read", lambda photo_id: None)  # no worker
    _, bob = await two_players()
    response = await upload(bob.client, bob.code, png_bytes())
    assert response.status_code == 202
    samples = await scrape()
    assert samples[("boggle_photos_waiting", ())] == 1
    assert samples[("boggle_photo_oldest_waiting_seconds", ())] >= 0


async def test_a_workers_readings_reach_every_web_process_through_redis(
    settings, redis_url: str, redis_prefix: str
) -> None:
    """What a worker tallied (another process: nothing of it in this one's memory) is what
    a web process reports."""
    settings.BOGGLE_LIMITS_REDIS_URL = redis_url
    settings.BOGGLE_REDIS_PREFIX = redis_prefix
    limits_redis.reset()
    try:
        queued = timezone.now() - timedelta(seconds=3)
        failed = {"code": "dice_count", "found": 15}
        # As a worker does once it saved each photo's outcome:
        photo_metrics.reading_finished(BoardPhoto(status="read", queued_at=queued))
        photo_metrics.reading_finished(
            BoardPhoto(status="failed", failure=failed, queued_at=queued)
        )
        photo_metrics.READINGS.clear_here()
        samples = await scrape()
    finally:
        limits_redis.reset()
    assert read_count(samples, "read") == 1
    assert read_count(samples, "dice_count") == 1
    assert samples[("boggle_photo_read_seconds_count", ())] == 2
    # Measured from when each was queued (3 s before): lower bounds only, however slow the
    # machine is between queueing and scraping.
    assert samples[("boggle_photo_read_seconds_bucket", (("le", "2.0"),))] == 0
    assert samples[("boggle_photo_read_seconds_sum", ())] >= 6
