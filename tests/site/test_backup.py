"""``manage.py backup`` and ``restore`` (web.backup_archive, web.backup_database).

The round trip, on SQLite and on a throwaway PostgreSQL database: a site (a database and a
var/ of its own) gets an uploaded word list, a room playing with it, a round played over
its websockets, a photo, a staff account; it is backed up, restored into an empty database
and empty directories, and the restored room plays a second round. Each step runs in a
subprocess (this file run as a script, or manage.py) with the site's environment.

Then the archive as input: a changed byte, a member that climbs out of its directory or is
a link, a cut archive, a newer schema, and a database that is not empty are all refused
with nothing changed.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest

from web import backup_archive
from web.backup_archive import ArchiveError, ArchiveWriter, Source

REPO_ROOT = Path(__file__).resolve().parents[2]
SECRET_KEY = "the-secret-key-of-the-site-being-backed-up"
DAILY_SECRET = "the-daily-secret-of-the-site-being-backed-up"
BOARD = "cats qiex dogz went"  # tests.games.ws_helpers.BOARD
PHOTO_BYTES = b"\xff\xd8\xff\xe0 not really a board, but a file the row names \xff\xd9"


# ---------------------------------------------------------------- the round trip


def site_env(site: Path, database_url: str) -> dict[str, str]:
    """A production-like site (its database, in-memory channels, eager tasks) whose files
    all live under ``site``."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "BOGGLE_", "REDIS_", "DATABASE_"))
    }
    return env | {
        "DATABASE_URL": database_url,
        "DJANGO_SECRET_KEY": SECRET_KEY,
        "DJANGO_SETTINGS_MODULE": "tests.site.backup_site_settings",
        "DJANGO_ALLOWED_HOSTS": "testserver,localhost",
        "DJANGO_LOG_LEVEL": "WARNING",
        "BOGGLE_TEST_SITE_DIR": str(site),
        "BOGGLE_DICTIONARY_DIR": str(site / "var" / "dictionaries"),
        "BOGGLE_MEDIA_DIR": str(site / "var" / "media"),
        "BOGGLE_RATE_LIMITS": "0",
        "BOGGLE_PRELOAD_READER": "0",
        "BOGGLE_WARM_UP_ROUNDS": "0",
        "PYTHONPATH": str(REPO_ROOT),
        "PYTHONUNBUFFERED": "1",
    }


def run(env: dict[str, str], *argv: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *map(str, argv)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def manage(env: dict[str, str], *argv: str | Path) -> str:
    result = run(env, "manage.py", *argv)
    assert result.returncode == 0, f"manage.py {argv}:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def step(env: dict[str, str], name: str, given: dict | None = None) -> dict:
    """Run this file's scenario step ``name`` on the site; returns what it printed last."""
    result = run(env, __file__, name, json.dumps(given or {}))
    assert result.returncode == 0, f"step {name}:\n{result.stdout}\n{result.stderr}"
    return json.loads(result.stdout.strip().splitlines()[-1])


def tree(folder: Path) -> dict[str, tuple[str, int]]:
    """Every file under ``folder``: its SHA-256 and permission bits."""
    return {
        path.relative_to(folder).as_posix(): (
            hashlib.sha256(path.read_bytes()).hexdigest(),
            path.stat().st_mode & 0o777,
        )
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def round_trip(tmp_path: Path, first_url: str, second_url: str) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    (first / "var").mkdir(parents=True)
    (second / "var").mkdir(parents=True)
    for name, text in (("secret_key", SECRET_KEY), ("daily_secret", DAILY_SECRET)):
        (first / "var" / name).write_text(text)
        (first / "var" / name).chmod(0o600)
    first_env, second_env = site_env(first, first_url), site_env(second, second_url)
    manage(first_env, "migrate", "--noinput", "-v0")
    built = step(first_env, "build")
    archive = tmp_path / "site.tar.gz"
    printed = manage(first_env, "backup", "--output", archive)
    assert f"wrote {archive}" in printed
    assert archive.stat().st_mode & 0o777 == 0o600
    files_before = tree(first / "var")

    # Refused with nothing changed: a changed byte, then an archive cut short.
    for spoilt, spoil in (("changed.tar.gz", change_a_byte), ("cut.tar.gz", cut_short)):
        copy = tmp_path / spoilt
        copy.write_bytes(spoil(archive.read_bytes()))
        refused = run(second_env, "manage.py", "restore", copy, "--yes")
        assert refused.returncode == 1, refused.stdout
        assert "nothing was changed" in refused.stderr, refused.stderr
    assert tree(second / "var") == {}

    printed = manage(second_env, "restore", archive, "--yes")
    assert "restored" in printed and "warning" not in printed, printed
    # Every file came back, with its bytes, readable by the site's user and group only
    # (the secrets by the user only), whatever the umask that wrote them.
    restored = tree(second / "var")
    assert {name: digest for name, (digest, _) in restored.items()} == {
        name: digest for name, (digest, _) in files_before.items()
    }
    assert {name: mode for name, (_, mode) in restored.items()} == {
        name: 0o600 if name in ("secret_key", "daily_secret") else 0o640 for name in restored
    }
    assert any(name.startswith("dictionaries/uploads/") for name in files_before)
    assert any(name.startswith("media/photos/") for name in files_before)

    played = step(second_env, "play", built)
    # Every model's rows came back (counted by this test, not by the code under test).
    assert played["rows_after_restore"] == built["rows"]
    assert all(built["rows"].values()), built["rows"]  # no table empty: none can be missed
    # ... and as they were, column for column.
    assert played["digests_after_restore"] == built["digests"]
    assert played["you"] == {"token": built["ann"]["id"], "session": built["bob"]["id"]}
    assert played["old_results"] == built["results"]
    assert played["photo"] == hashlib.sha256(PHOTO_BYTES).hexdigest()
    assert played["staff"] == {"password": True, "permissions": ["games.change_room"]}
    assert played["round_number"] == 2
    assert played["verdicts"] == {"cat": "accepted", "went": "accepted", "zebra": "not_on_board"}
    assert played["scores"] == {"Ann": 1, "Bob": 1}

    # A database that holds rows is never merged into.
    again = run(second_env, "manage.py", "restore", archive, "--yes")
    assert again.returncode == 1 and "is not empty" in again.stderr, again.stderr
    assert "nothing was changed" in again.stderr


def test_a_site_backed_up_on_sqlite_is_restored_and_plays_on(tmp_path: Path) -> None:
    round_trip(
        tmp_path,
        f"sqlite:///{tmp_path / 'first.sqlite3'}",
        f"sqlite:///{tmp_path / 'second.sqlite3'}",
    )


@pytest.mark.integration
def test_a_site_backed_up_on_postgres_is_restored_and_plays_on(
    tmp_path: Path, postgres_url: str
) -> None:
    from tests.servers import throwaway_postgres_database

    with (
        throwaway_postgres_database(postgres_url) as first_url,
        throwaway_postgres_database(postgres_url) as second_url,
    ):
        round_trip(tmp_path, first_url, second_url)


def change_a_byte(data: bytes, where: float = 0.5) -> bytes:
    """One bit of one byte flipped: ``where`` is a fraction of the length, or an index
    from the end."""
    at = int(len(data) * where) if 0 < where < 1 else len(data) + int(where)
    return data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1 :]


def cut_short(data: bytes) -> bytes:
    return data[: len(data) * 3 // 4]


# ---------------------------------------------------------------- the archive as input


@pytest.fixture
def sources(tmp_path: Path) -> list[Source]:
    return backup_archive.site_sources(
        tmp_path / "dictionaries", tmp_path / "media", tmp_path / "var"
    )


def written_archive(tmp_path: Path, sources: list[Source]) -> Path:
    """An archive of two files and a database member, made by ArchiveWriter."""
    (tmp_path / "media" / "photos" / "ABCD").mkdir(parents=True)
    (tmp_path / "media" / "photos" / "ABCD" / "one.jpg").write_bytes(PHOTO_BYTES)
    (tmp_path / "var").mkdir()
    (tmp_path / "var" / "secret_key").write_text(SECRET_KEY)
    (tmp_path / "var" / "unrelated").write_text("not a backup's")
    database = tmp_path / "database.jsonl"
    database.write_text('{"model": "games.room", "pk": 1, "fields": {}}\n')
    path = tmp_path / "archive.tar.gz"
    writer = ArchiveWriter(path)
    for source in sources:
        writer.add_source(source, set())
    writer.add_file(backup_archive.DATABASE_NAME, database)
    writer.finish(
        {
            "format": backup_archive.FORMAT,
            "version": backup_archive.FORMAT_VERSION,
            "created_at": "2026-06-01T04:30:00+00:00",
            "migrations": {"games": ["0001_initial"]},
            "database": {"rows": {"games.room": 1}},
        }
    )
    return path


def test_an_archive_as_written_passes_and_puts_its_files_back(tmp_path: Path, sources) -> None:
    path = written_archive(tmp_path, sources)
    checked = backup_archive.check_archive(path, sources)
    assert sorted(checked.files()) == ["files/media/photos/ABCD/one.jpg", "files/var/secret_key"]
    target = tmp_path / "restored"
    elsewhere = backup_archive.site_sources(target / "d", target / "m", target / "v")
    backup_archive.put_back(checked, elsewhere, tmp_path / "loaded.jsonl")
    assert (target / "m" / "photos" / "ABCD" / "one.jpg").read_bytes() == PHOTO_BYTES
    assert (target / "v" / "secret_key").stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "loaded.jsonl").read_text().startswith('{"model": "games.room"')


@pytest.mark.parametrize("where", [0.2, 0.5, 0.8, -8, -1])
def test_a_changed_byte_is_refused(tmp_path: Path, sources, where: float) -> None:
    """Anywhere past gzip's header (which holds no data): in the members, the manifest, or
    gzip's own CRC and length at the end."""
    path = written_archive(tmp_path, sources)
    path.write_bytes(change_a_byte(path.read_bytes(), where))
    with pytest.raises(ArchiveError, match=r"corrupt|truncated|damaged|not a backup"):
        backup_archive.check_archive(path, sources)


def test_a_member_rewritten_under_the_same_manifest_fails_its_checksum(
    tmp_path: Path, sources
) -> None:
    """Recompressed whole, so only the manifest's checksum can tell."""
    path = written_archive(tmp_path, sources)
    members = read_members(path)
    members["files/media/photos/ABCD/one.jpg"] = PHOTO_BYTES.replace(b"board", b"bored")
    write_members(path, members, relist=False)
    with pytest.raises(ArchiveError, match="does not match its checksum"):
        backup_archive.check_archive(path, sources)


def test_a_cut_archive_is_refused(tmp_path: Path, sources) -> None:
    path = written_archive(tmp_path, sources)
    path.write_bytes(cut_short(path.read_bytes()))
    with pytest.raises(ArchiveError, match=r"corrupt or truncated|no manifest"):
        backup_archive.check_archive(path, sources)


@pytest.mark.parametrize(
    "name",
    [
        "files/media/../../escaped",
        "files/media/photos/../../../escaped",
        "/tmp/escaped",
        "files/elsewhere/escaped",
        "files/var/not-a-secret",
        "escaped",
    ],
)
def test_a_member_that_leaves_its_directory_is_refused(tmp_path: Path, sources, name) -> None:
    """Listed in the manifest with its right checksum, and refused all the same."""
    path = written_archive(tmp_path, sources)
    members = read_members(path)
    members[name] = b"written where it should not be"
    write_members(path, members)
    with pytest.raises(ArchiveError, match="refused"):
        backup_archive.check_archive(path, sources)
    assert not any(tmp_path.parent.glob("**/escaped"))


@pytest.mark.parametrize("kind", [tarfile.SYMTYPE, tarfile.LNKTYPE, tarfile.DIRTYPE])
def test_a_member_that_is_not_a_file_is_refused(tmp_path: Path, sources, kind) -> None:
    path = written_archive(tmp_path, sources)
    members = read_members(path)
    write_members(path, members, extra=("files/media/photos/ABCD/link.jpg", kind))
    with pytest.raises(ArchiveError, match=r"refused: .* is a (link|non-file)"):
        backup_archive.check_archive(path, sources)


def test_files_that_differ_are_conflicts_and_the_same_ones_are_not(tmp_path: Path, sources):
    checked = backup_archive.check_archive(written_archive(tmp_path, sources), sources)
    assert backup_archive.conflicts(checked, sources) == []  # the very files it was made of
    (tmp_path / "var" / "secret_key").write_text("another key")
    assert backup_archive.conflicts(checked, sources) == [tmp_path / "var" / "secret_key"]


def test_an_archive_of_another_schema_is_refused() -> None:
    from web.backup_database import schema_difference

    code = {"games": ["0001_initial", "0002_more"]}
    assert schema_difference(code, code) is None
    newer = schema_difference({"games": ["0001_initial", "0002_more", "0003_new"]}, code)
    assert newer is not None and "newer release" in newer and "games.0003_new" in newer
    older = schema_difference({"games": ["0001_initial"]}, code)
    assert older is not None and "older release" in older and "games.0002_more" in older


def read_members(path: Path) -> dict[str, bytes]:
    with tarfile.open(path, "r:gz") as tar:
        return {
            member.name: tar.extractfile(member).read()  # type: ignore[union-attr]
            for member in tar
        }


def write_members(
    path: Path,
    members: dict[str, bytes],
    extra: tuple[str, bytes] | None = None,
    relist: bool = True,
) -> None:
    """Rewrite the archive with ``members`` and a manifest that lists each one truly
    (``relist``; else the manifest as it was), and an ``extra`` member of another kind (a
    link or a directory)."""
    manifest = json.loads(members.pop(backup_archive.MANIFEST_NAME))
    if relist:
        manifest["members"] = {
            name: {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
            for name, data in members.items()
        }
    members[backup_archive.MANIFEST_NAME] = json.dumps(manifest).encode()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        if extra is not None:
            info = tarfile.TarInfo(extra[0])
            info.type, info.linkname = extra[1], "/etc/passwd"
            tar.addfile(info)
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    path.write_bytes(gzip.compress(buffer.getvalue()))


# ---------------------------------------------------------------- the scenario's steps


def every_model_counted() -> dict[str, int]:
    """Rows per model of every app (not only those the backup says it takes)."""
    from django.apps import apps

    return {
        model._meta.label_lower: model._base_manager.count()
        for model in apps.get_models(include_auto_created=True)
        if model._meta.app_label != "contenttypes" and model._meta.label_lower != "auth.permission"
    }


def every_model_digest() -> dict[str, str]:
    """A digest of each model's rows, every column of every row in primary key order:
    equal only if the rows came back as they were (times that ``auto_now`` would reset,
    binary crops, JSON...). Content types and permissions are the database's own."""
    from django.apps import apps

    def plain(value: Any) -> str:
        return bytes(value).hex() if isinstance(value, bytes | memoryview) else str(value)

    return {
        model._meta.label_lower: hashlib.sha256(
            json.dumps(
                list(model._base_manager.order_by("pk").values_list()), default=plain
            ).encode()
        ).hexdigest()
        for model in apps.get_models(include_auto_created=True)
        if model._meta.app_label != "contenttypes" and model._meta.label_lower != "auth.permission"
    }


def fill_every_other_table(room: Any, staff: Any) -> None:
    """A row in each table the game above leaves empty, so that the round trip misses no
    table (rows that ``migrate`` makes on any site would not tell)."""
    from django.contrib.admin.models import CHANGE, LogEntry
    from django.contrib.contenttypes.models import ContentType
    from django.utils import timezone

    from daily.models import DailyBoard, DailyGame, DailyScore
    from definitions.models import Definition
    from dicesets.models import DiceSet, Exemplar, RoomDiceSet
    from dictionaries.models import Dictionary, DictionaryEdit, DiscardedFile, ThemeList
    from games import rooms
    from games.models import Challenge, Hint, JoinRequest
    from profiles.models import ProfileRound
    from quickplay.models import Rating, Report, Seat, Ticket
    from web.models import IdempotentResponse

    today = timezone.localdate()
    round_ = room.rounds.get(number=1)
    ann = room.players.get(nickname="Ann")
    LogEntry.objects.create(
        user=staff,
        content_type=ContentType.objects.get_for_model(room),
        object_id=str(room.pk),
        object_repr=room.code,
        action_flag=CHANGE,
        change_message="renamed nothing",
    )
    IdempotentResponse.objects.create(key="k-1", path="/api/rooms", status=201, body={})
    DiscardedFile.record("uploads/long-gone.txt")
    DictionaryEdit.objects.create(
        dictionary=Dictionary.objects.get(name="tiny"), word="zebu", action="add"
    )
    ThemeList.objects.create(name="animals", title="Animals")
    Hint.objects.create(round=round_, player=ann, word="cat")
    Challenge.objects.create(room=room, round=round_, player=ann, word="dogs", dictionary="tiny")
    JoinRequest.objects.create(room=room, nickname="Late")
    daily_room, dee = rooms.do_create_room("Dee", {})
    DailyBoard.objects.create(
        date=today, board=BOARD, dictionary="english", word_count=10, roll_number=1
    )
    DailyGame.objects.create(room=daily_room, date=today, player=dee)
    DailyScore.objects.create(
        date=today,
        nickname="Dee",
        nickname_key="dee",
        points=3,
        words=2,
        finished_at=timezone.now(),
    )
    Definition.objects.create(language="en", word="cat", key="cat", text="a small animal")
    own = DiceSet.objects.create(name="Grandma's dice", started_in=room)
    Exemplar.objects.create(dice_set=own, face="a", crop=bytes(range(64)))
    RoomDiceSet.objects.create(room=room, dice_set=own)
    now = timezone.now()
    ProfileRound.objects.create(
        user=staff, record_id="abcd/1/1/1", ended_at=now, data={"id": "abcd/1/1/1", "score": 3}
    )
    Ticket.objects.create(
        nickname="Eve", identity="device:e", dictionary="english", created_at=now, seen_at=now
    )
    Seat.objects.create(player=ann, identity="device:a")
    Rating.objects.create(
        identity="device:a",
        nickname="Ann",
        mu=27.1,
        sigma=8.2,
        ordinal=2.5,
        games=1,
        updated_at=now,
    )
    Report.objects.create(
        room=room,
        room_code=room.code,
        reported=ann,
        reported_nickname="Ann",
        reporter_nickname="Bob",
        reason="nickname",
    )


async def build_site() -> dict:
    """A word list uploaded and compiled, a room playing with it, a round of two players
    over their sockets, a photo, a staff account in a group."""
    from asgiref.sync import sync_to_async
    from django.contrib.auth.models import Group, Permission, User
    from django.core.files.base import ContentFile

    from games import results_cache
    from games.models import Room
    from photos.models import BoardPhoto
    from tests.dictionaries.helpers import make_dictionary
    from tests.games.ws_helpers import (
        ask,
        connect,
        create_room,
        join_room,
        receive_until,
        start_round,
        submit,
        tear_down,
        whole_results,
    )

    await sync_to_async(make_dictionary)("tiny")
    ann = await create_room("Ann", {"dictionary": "tiny"})
    bob = await join_room(ann.code, "Bob")
    await connect(ann)
    await connect(bob)
    await start_round(ann, bob)
    assert ann.comm is not None and bob.comm is not None
    for player, word in ((ann, "cats"), (ann, "dog"), (bob, "cats"), (bob, "went")):
        assert (await submit(player.comm, word))["verdict"] == "accepted", word
    assert (await ask(ann.comm, "end_round"))["type"] == "ok"
    ended = await receive_until(ann.comm, "round.ended")

    def rows_beside_the_game() -> None:
        room = Room.objects.get(code=ann.code)
        photo = BoardPhoto(room=room, uploaded_by_id=ann.id)
        photo.image.save("board.jpg", ContentFile(PHOTO_BYTES), save=False)
        photo.status = BoardPhoto.Status.READ
        photo.save()
        staff = User.objects.create_user("staff", password="a long staff password", is_staff=True)
        group = Group.objects.create(name="referees")
        group.permissions.add(Permission.objects.get(codename="change_room"))
        staff.groups.add(group)
        staff.user_permissions.add(Permission.objects.get(codename="view_round"))
        fill_every_other_table(room, staff)

    await sync_to_async(rows_beside_the_game)()
    results_cache.clear()  # the results as a fresh process reads them: the challenge too
    results = await whole_results(ann.comm, ended, ann.id)
    await tear_down()
    counted = await sync_to_async(every_model_counted)()
    digests = await sync_to_async(every_model_digest)()

    def credentials(p: Any) -> dict:
        return {"id": p.id, "token": p.token, "cookie": p.client.cookies["sessionid"].value}

    return {
        "code": ann.code,
        "ann": credentials(ann),
        "bob": credentials(bob),
        "results": results,
        "rows": counted,
        "digests": digests,
    }


async def play_on(built: dict) -> dict:
    """The restored site: rows counted first; the host by token and Bob by his browser's
    session are themselves; round 1's results are there; round 2 is played."""
    from asgiref.sync import sync_to_async
    from django.contrib.auth.models import User
    from django.test import Client

    from photos.models import BoardPhoto
    from tests.games import ws_helpers
    from tests.games.ws_helpers import ask, receive, receive_until, start_round, submit

    rows = await sync_to_async(every_model_counted)()
    digests = await sync_to_async(every_model_digest)()
    code = built["code"]
    ann = ws_helpers.Player(
        {"player": {**built["ann"], "nickname": "Ann"}, "room": {"code": code}}, Client()
    )
    bob = ws_helpers.Player(
        {"player": {**built["bob"], "nickname": "Bob"}, "room": {"code": code}}, Client()
    )
    ann.comm = await ws_helpers.open_socket(code, ann.token)
    by_token = (await receive(ann.comm))["state"]["you"]
    browser = [
        (b"cookie", f"sessionid={built['bob']['cookie']}".encode()),
        (b"host", b"localhost"),
        (b"origin", b"http://localhost"),
    ]
    bob.comm = await ws_helpers.open_socket(code, headers=browser)
    by_session = (await receive(bob.comm))["state"]["you"]
    old = await ask(ann.comm, "results", round_number=1)

    def beside_the_game() -> tuple[str, dict]:
        photo = BoardPhoto.objects.get(room__code=code)
        with photo.image.open("rb") as file:
            digest = hashlib.sha256(file.read()).hexdigest()
        staff = User.objects.get(username="staff")
        return digest, {
            "password": staff.check_password("a long staff password"),
            "permissions": sorted(staff.get_group_permissions()),
        }

    photo, staff = await sync_to_async(beside_the_game)()
    round_ = await start_round(ann, bob)
    verdicts = {
        word: (await submit(player.comm, word)).get("verdict")
        for player, word in ((ann, "cat"), (bob, "went"), (bob, "zebra"))
    }
    assert (await ask(ann.comm, "end_round"))["type"] == "ok"
    ended = await receive_until(bob.comm, "round.ended")
    await ws_helpers.tear_down()
    return {
        "rows_after_restore": rows,
        "digests_after_restore": digests,
        "you": {"token": by_token, "session": by_session},
        "old_results": old["results"],
        "photo": photo,
        "staff": staff,
        "round_number": round_.number,
        "verdicts": verdicts,
        "scores": {p["nickname"]: p["round_points"] for p in ended["scores"]["players"]},
    }


def main(name: str, given: dict) -> None:
    import django

    django.setup()
    found = asyncio.run(build_site() if name == "build" else play_on(given))
    print(json.dumps(found))


if __name__ == "__main__":
    main(sys.argv[1], json.loads(sys.argv[2]))
