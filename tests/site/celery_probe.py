"""A throwaway Celery app for the integration test's worker subprocess.

Not a test module. Preconditions: the repository root is importable, and
PROBE_REDIS_URL names the Redis to use and PROBE_REDIS_PREFIX its keys' prefix; the test
sends to the queue it chooses.
"""

import os

from celery import Celery

from boggle_site.env import celery_config

app = Celery("celery_probe")
app.conf.update(
    celery_config(
        {
            "REDIS_URL": os.environ["PROBE_REDIS_URL"],
            "BOGGLE_REDIS_PREFIX": os.environ["PROBE_REDIS_PREFIX"],
        }
    )
)


@app.task(name="celery_probe.add")
def add(x: int, y: int) -> int:
    return x + y
