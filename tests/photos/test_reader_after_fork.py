"""A Celery worker's main process imports the reader's libraries before it forks its pool
(``boggle_site.celery``, ``photos.reading.import_reader_libraries``), and each child loads
the models and reads photos: a child forked after the import reads a real photo.

The scenario runs in a subprocess (this file run as a script, which forks as the pool
does), so the test process neither imports TensorFlow nor freezes its collector.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.photos.helpers import PHOTO, PHOTO_BOARD, photo_bytes
from tests.servers import REPO_ROOT

# The child's whole load and read; a reader that hangs after the fork fails here.
CHILD_SECONDS = 120


def test_a_pool_child_forked_after_the_import_reads_photos() -> None:
    photo_bytes()  # skips without the labelled photos
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "BOGGLE_"))}
    done = subprocess.run(
        [sys.executable, __file__, str(PHOTO)],
        cwd=REPO_ROOT,
        env=env | {"DJANGO_SETTINGS_MODULE": "boggle_site.settings", "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        timeout=CHILD_SECONDS + 60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-5000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found == {"child": PHOTO_BOARD, "parent_loaded_models": False}


def scenario(photo: str) -> dict:
    import signal

    import django

    django.setup()
    from photos import reading

    reading.import_reader_libraries()
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # a pool child: loads the models, reads, tells the parent
        signal.alarm(CHILD_SECONDS)
        os.close(read)
        with open(photo, "rb") as handle:
            board = reading.get_reader().read(handle.read()).text()
        os.write(write, board.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        board = pipe.read()
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0, f"the child ended with {status}"
    return {"child": board, "parent_loaded_models": reading._reader is not None}


if __name__ == "__main__":
    print(json.dumps(scenario(sys.argv[1])))
