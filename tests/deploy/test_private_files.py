"""The files the site creates are private (issue 48, item 8): the SQLite database, the stored
photos and the logs were world-readable (0644). ``bin/start`` and ``manage.py`` run with
umask 027, the systemd units with ``UMask=0027``, and Django stores uploads 0640 in folders
0750 whatever the umask (``FILE_UPLOAD_PERMISSIONS``): group-readable at most, for the
operator's backups, never by every account of the machine. The production stack's logs
are checked where it runs, tests/production/test_private_logs.py."""

from __future__ import annotations

import configparser
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async

from photos import api as photos_api
from photos.models import BoardPhoto
from tests.games.ws_helpers import create_room, tear_down
from tests.photos.helpers import png_bytes, upload

REPO = Path(__file__).resolve().parents[2]


def world_can_read(path: Path) -> bool:
    return bool(path.stat().st_mode & (stat.S_IROTH | stat.S_IWOTH | stat.S_IXOTH))


def test_the_database_manage_py_creates_is_private(tmp_path: Path) -> None:
    """``manage.py migrate`` (as bin/start runs it) from a shell whose umask is 022."""
    database = tmp_path / "db.sqlite3"
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "BOGGLE_")) and key not in ("DATABASE_URL", "REDIS_URL")
    }
    env["DATABASE_URL"] = f"sqlite:///{database}"
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "--verbosity", "0"],
        cwd=REPO,
        env=env,
        check=True,
        timeout=300,
        preexec_fn=lambda: os.umask(0o022),
    )
    assert database.is_file()
    assert not world_can_read(database), oct(database.stat().st_mode)


@pytest.mark.django_db(transaction=True)
async def test_a_stored_photo_and_its_folders_are_private(settings, tmp_path, monkeypatch):
    settings.MEDIA_ROOT = tmp_path / "media"
    monkeypatch.setattr(photos_api, "enqueue_read", lambda photo_id: None)  # not read here
    previous = os.umask(0o022)  # a Daphne started by hand, not through bin/start
    try:
        ann = await create_room("Ann")
        response = await upload(ann.client, ann.code, png_bytes(), name="b.png")
        assert response.status_code == 202
        photo = await sync_to_async(BoardPhoto.objects.get)(pk=response.json()["photo"]["id"])
        stored = Path(photo.image.path)
        assert not world_can_read(stored), oct(stored.stat().st_mode)
        for folder in (stored.parent, stored.parent.parent):  # photos/<room>/, photos/
            assert not world_can_read(folder), f"{folder}: {oct(folder.stat().st_mode)}"
    finally:
        os.umask(previous)
        await tear_down()


def test_bin_start_runs_everything_with_a_private_umask() -> None:
    """Both of bin/start's paths (the games night and --production) set the umask before
    anything creates a file: the line comes before the first command that does."""
    lines = (REPO / "bin" / "start").read_text().splitlines()
    umask = next(i for i, line in enumerate(lines) if line.strip() == "umask 027")
    production = next(
        i for i, line in enumerate(lines) if line.startswith("if ") and "--production" in line
    )
    assert umask < production


@pytest.mark.parametrize("unit", sorted((REPO / "deploy" / "systemd").glob("*.service")))
def test_every_systemd_unit_runs_with_a_private_umask(unit: Path) -> None:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(unit)
    assert parser.get("Service", "UMask", fallback=None) == "0027", unit.name
