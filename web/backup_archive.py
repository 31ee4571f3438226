"""A backup archive (``manage.py backup`` and ``restore``): what goes in it, its manifest,
and the checks an archive passes before anything of it is put back. No Django here: the
commands hand in the directories and the database dump (``web.backup_database``).

One gzipped tar, private to its owner (0600)::

    files/<source>/<path>   the files of each source directory (dictionaries, media, var)
    database.jsonl          the database as data (Django's dumpdata, one object a line)
    manifest.json           last: format, created at, migrations, rows per model, and the
                            size and SHA-256 of every other member

The manifest comes last, so an archive cut short has none and is refused as truncated.
An archive is input: restore reads it twice, first to check every member (only regular
files, under names that stay inside their directory, each as the manifest says), then to
put the members back, each written beside its target and renamed into place only once its
checksum matched again.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import json
import os
import posixpath
import tarfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

FORMAT = "boggle_site backup"
FORMAT_VERSION = 1
MANIFEST_NAME = "manifest.json"
DATABASE_NAME = "database.jsonl"
FILES_FOLDER = "files"
# The manifest lists every file: large for a site with many photos, never this large.
MAX_MANIFEST_BYTES = 256 * 2**20
CHUNK_BYTES = 1 << 20

# What a site has that the archive leaves out, and why (also in the manifest).
NOT_INCLUDED = {
    "definitions": "BOGGLE_DEFINITIONS_DIR is rebuilt by `python -m meanings build`",
    "static": "var/static is rebuilt by `python manage.py collectstatic`",
    "dice sets": "none on disk: their dice (exemplar crops) are rows of the database",
    "cache": "none: the site keeps no cache table (Django's default in-process cache)",
    "environment": "the environment file (DJANGO_SECRET_KEY, passwords) is configuration: "
    "keep it with the machine's configuration",
}


class ArchiveError(Exception):
    """The archive cannot be written, or is refused; the message says why."""


@dataclass(frozen=True)
class Source:
    """A directory whose files go in the archive under ``files/<name>/``. ``only``: just
    these names at its top (var/ holds much else); ``private``: restored 0600, not 0640."""

    name: str
    root: Path
    setting: str
    only: tuple[str, ...] | None = None
    private: bool = False

    def target(self, relative: str) -> Path:
        return self.root.joinpath(*relative.split("/"))


def site_sources(dictionary_dir: Path, media_dir: Path, var_dir: Path) -> list[Source]:
    """The site's files: compiled dictionaries and uploaded word lists, board photos, and
    the secrets var/ keeps (bin/start's secret key, the daily board's secret) if present."""
    return [
        Source("dictionaries", dictionary_dir, "BOGGLE_DICTIONARY_DIR"),
        Source("media", media_dir, "BOGGLE_MEDIA_DIR"),
        Source("var", var_dir, "var/", only=("secret_key", "daily_secret"), private=True),
    ]


@dataclass
class Member:
    size: int
    sha256: str


@dataclass
class SourceSummary:
    files: int = 0
    bytes: int = 0
    # Listed, then gone before they were read: deleted by the site meanwhile.
    vanished: int = 0


# ---------------------------------------------------------------- writing


class _HashingReader:
    """A file read through, its bytes counted and hashed (tarfile copies from ``read``)."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw
        self.digest = hashlib.sha256()
        self.size = 0

    def read(self, size: int = -1) -> bytes:
        data = self.raw.read(size)
        self.digest.update(data)
        self.size += len(data)
        return data


class ArchiveWriter:
    """Writes an archive to ``path`` + ".partial" (0600) and renames it into place in
    ``finish``; ``abort`` deletes the partial file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.partial = path.with_name(path.name + ".partial")
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(self.partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        self._file = os.fdopen(fd, "wb")
        # Closed by finish or abort.
        self._tar = tarfile.open(  # noqa: SIM115
            fileobj=self._file, mode="w|gz", format=tarfile.PAX_FORMAT
        )
        self.members: dict[str, Member] = {}

    def add_file(self, name: str, path: Path) -> Member:
        """Add ``path`` as ``name``; FileNotFoundError if it is gone."""
        with path.open("rb") as raw:
            info = tarfile.TarInfo(name)
            stat = os.fstat(raw.fileno())
            info.size, info.mtime, info.mode = stat.st_size, int(stat.st_mtime), 0o600
            reader = _HashingReader(raw)
            self._tar.addfile(info, reader)  # read() is all it uses
        member = Member(reader.size, reader.digest.hexdigest())
        self.members[name] = member
        return member

    def add_source(self, source: Source, leave_out: set[Path]) -> SourceSummary:
        """Add the source's files (``leave_out``: the archive being written, should it lie
        inside a source). Hidden files are left out: the site writes a file under a dot
        name and renames it when whole."""
        summary = SourceSummary()
        for relative, path in _files_of(source):
            if path.resolve() in leave_out:
                continue
            try:
                member = self.add_file(f"{FILES_FOLDER}/{source.name}/{relative}", path)
            except FileNotFoundError:
                summary.vanished += 1
                continue
            summary.files += 1
            summary.bytes += member.size
        return summary

    def finish(self, manifest: dict[str, Any]) -> Path:
        """Add the manifest (with every member's size and checksum) last, and put the
        archive in place."""
        manifest = {**manifest, "members": {n: vars(m) for n, m in self.members.items()}}
        data = json.dumps(manifest, indent=1, sort_keys=True).encode()
        info = tarfile.TarInfo(MANIFEST_NAME)
        info.size, info.mode = len(data), 0o600
        info.mtime = int(Path(self.partial).stat().st_mtime)
        self._tar.addfile(info, io.BytesIO(data))
        self._tar.close()
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        os.replace(self.partial, self.path)
        return self.path

    def abort(self) -> None:
        for closing in (self._tar.close, self._file.close):
            with contextlib.suppress(Exception):  # already broken: the partial file goes anyway
                closing()
        self.partial.unlink(missing_ok=True)


def _files_of(source: Source) -> Iterator[tuple[str, Path]]:
    """(relative name, path) of each regular file of the source, in a stable order;
    symbolic links are not followed."""
    if source.only is not None:
        for name in source.only:
            path = source.root / name
            if path.is_file() and not path.is_symlink():
                yield name, path
        return
    if not source.root.is_dir():
        return
    for folder, folders, names in os.walk(source.root):
        folders[:] = sorted(name for name in folders if not name.startswith("."))
        for name in sorted(names):
            path = Path(folder) / name
            if name.startswith(".") or path.is_symlink() or not path.is_file():
                continue
            yield path.relative_to(source.root).as_posix(), path


# ---------------------------------------------------------------- checking


@dataclass
class CheckedArchive:
    """An archive whose every member matched its manifest."""

    path: Path
    manifest: dict[str, Any]
    members: dict[str, Member] = field(default_factory=dict)

    def files(self) -> dict[str, Member]:
        return {n: m for n, m in self.members.items() if n.startswith(FILES_FOLDER + "/")}


def check_member_name(name: str, sources: dict[str, Source]) -> tuple[Source, str] | None:
    """The source and relative path a member goes to (None for the database and manifest
    members). ArchiveError for a name that is absolute, climbs out with ``..``, or names
    no known place: the archive is input and decides nothing about where files go."""
    if name in (MANIFEST_NAME, DATABASE_NAME):
        return None
    parts = name.split("/")
    if (
        not name
        or "\\" in name
        or "\x00" in name
        or name.startswith("/")
        or posixpath.isabs(name)
        or any(part in ("", ".", "..") for part in parts)
    ):
        raise ArchiveError(f"refused: the member {name!r} would leave its directory")
    if len(parts) < 3 or parts[0] != FILES_FOLDER or parts[1] not in sources:
        raise ArchiveError(f"refused: the member {name!r} belongs to no place a backup fills")
    source, relative = sources[parts[1]], "/".join(parts[2:])
    if source.only is not None and relative not in source.only:
        raise ArchiveError(f"refused: {name!r} is not a file {source.name}/ keeps")
    return source, relative


def _check_member(member: tarfile.TarInfo, sources: dict[str, Source]) -> None:
    if not member.isreg():
        kind = "link" if member.issym() or member.islnk() else "non-file"
        raise ArchiveError(f"refused: the member {member.name!r} is a {kind}; only files")
    check_member_name(member.name, sources)


def _read_chunks(stream: IO[bytes] | _Guarded) -> Iterator[bytes]:
    while chunk := stream.read(CHUNK_BYTES):
        yield chunk


# A damaged stream: gzip's own checks (BadGzipFile is an OSError), zlib's, tar's headers.
DAMAGE = (tarfile.TarError, OSError, EOFError, zlib.error)


class _Guarded:
    """A member's content whose read errors (a damaged stream) are ArchiveErrors."""

    def __init__(self, raw: IO[bytes], path: Path) -> None:
        self.raw, self.path = raw, path

    def read(self, size: int = -1) -> bytes:
        try:
            return self.raw.read(size)
        except DAMAGE as error:
            raise ArchiveError(f"{self.path} is corrupt or truncated ({error})") from None


def _members(path: Path, sources: dict[str, Source]) -> Iterator[tuple[tarfile.TarInfo, _Guarded]]:
    """Each member with its content, checked for its kind and name first; then the rest of
    the file is read, so that gzip checks its CRC over all of it. A damaged archive raises
    ArchiveError, however far in the damage is."""
    if not path.is_file():
        raise ArchiveError(f"{path}: no such file")
    with gzip.open(path, "rb") as compressed:
        try:
            with tarfile.open(fileobj=compressed, mode="r|") as tar:
                for member in tar:
                    _check_member(member, sources)
                    content = tar.extractfile(member)
                    assert content is not None  # a regular file
                    yield member, _Guarded(content, path)
            while compressed.read(CHUNK_BYTES):
                pass
        except DAMAGE as error:
            raise ArchiveError(f"{path} is corrupt or truncated ({error})") from None


def check_archive(path: Path, sources: list[Source]) -> CheckedArchive:
    """Read the whole archive once: every member a regular file under a name that stays in
    its place, the manifest last, and each member as large and with the checksum the
    manifest gives, none missing and none more. ArchiveError says what is wrong."""
    by_name = {source.name: source for source in sources}
    seen: dict[str, Member] = {}
    manifest_data: bytes | None = None
    for member, content in _members(path, by_name):
        if manifest_data is not None:
            raise ArchiveError(f"refused: {member.name!r} comes after the manifest")
        if member.name in seen:
            raise ArchiveError(f"refused: the member {member.name!r} appears twice")
        if member.name == MANIFEST_NAME:
            if member.size > MAX_MANIFEST_BYTES:
                raise ArchiveError("refused: the manifest is too large")
            manifest_data = content.read()
            continue
        digest, size = hashlib.sha256(), 0
        for chunk in _read_chunks(content):
            digest.update(chunk)
            size += len(chunk)
        seen[member.name] = Member(size, digest.hexdigest())
    if manifest_data is None:
        raise ArchiveError(f"{path} is truncated or not a backup: it has no manifest")
    # Read only now that gzip has checked the whole file: the manifest has no checksum of
    # its own.
    manifest = _parse_manifest(manifest_data)
    listed = {name: Member(**fields) for name, fields in manifest["members"].items()}
    for name in sorted(set(listed) | set(seen)):
        if name not in seen:
            raise ArchiveError(f"{path} is incomplete: {name} is missing")
        if name not in listed:
            raise ArchiveError(f"refused: {name} is not in the manifest")
        if seen[name] != listed[name]:
            raise ArchiveError(f"{path} is damaged: {name} does not match its checksum")
        check_member_name(name, by_name)  # the manifest's names too
    if DATABASE_NAME not in seen:
        raise ArchiveError(f"{path} holds no database")
    return CheckedArchive(path, manifest, seen)


def _parse_manifest(data: bytes) -> dict[str, Any]:
    try:
        manifest = json.loads(data)
    except ValueError:
        raise ArchiveError("the manifest is not JSON") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ArchiveError("this is not a boggle_site backup (its manifest says otherwise)")
    version = manifest.get("version")
    if version != FORMAT_VERSION:
        raise ArchiveError(
            f"the archive's format version is {version!r}; this release reads {FORMAT_VERSION}"
        )
    members = manifest.get("members")
    if not isinstance(members, dict) or not all(
        isinstance(entry, dict)
        and isinstance(entry.get("size"), int)
        and isinstance(entry.get("sha256"), str)
        and len(entry) == 2
        for entry in members.values()
    ):
        raise ArchiveError("the manifest's member list is malformed")
    migrations, database = manifest.get("migrations"), manifest.get("database")
    if not (
        isinstance(manifest.get("created_at"), str)
        and isinstance(migrations, dict)
        and all(
            isinstance(names, list) and all(isinstance(n, str) for n in names)
            for names in migrations.values()
        )
        and isinstance(database, dict)
        and isinstance(database.get("rows"), dict)
        and all(isinstance(count, int) for count in database["rows"].values())
    ):
        raise ArchiveError("the manifest is malformed (created_at, migrations, database rows)")
    return manifest


# ---------------------------------------------------------------- putting back


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for chunk in _read_chunks(file):
            digest.update(chunk)
    return digest.hexdigest()


def conflicts(archive: CheckedArchive, sources: list[Source]) -> list[Path]:
    """Files already at a member's place with other content (the same content is no
    conflict: a restore run again skips it)."""
    by_name = {source.name: source for source in sources}
    found = []
    for name, member in archive.files().items():
        place = check_member_name(name, by_name)
        assert place is not None
        target = place[0].target(place[1])
        if not (target.exists() or target.is_symlink()):
            continue
        if (
            target.is_symlink()
            or not target.is_file()
            or target.stat().st_size != member.size
            or file_sha256(target) != member.sha256
        ):
            found.append(target)
    return found


@dataclass
class PutBack:
    written: dict[str, int] = field(default_factory=dict)  # per source
    unchanged: int = 0


def put_back(archive: CheckedArchive, sources: list[Source], database_to: Path) -> PutBack:
    """Read the archive again: write each file to its place (beside it first, renamed once
    its checksum matched again) and the database member to ``database_to`` (0600)."""
    by_name = {source.name: source for source in sources}
    done = PutBack()
    for member, content in _members(archive.path, by_name):
        if member.name == MANIFEST_NAME:
            continue
        expected = archive.members.get(member.name)
        if expected is None:
            raise ArchiveError(f"{member.name} changed since the archive was checked")
        if member.name == DATABASE_NAME:
            _write_checked(content, database_to, expected, 0o600)
            continue
        place = check_member_name(member.name, by_name)
        assert place is not None
        source, relative = place
        target = source.target(relative)
        if target.is_file() and not target.is_symlink() and file_sha256(target) == expected.sha256:
            done.unchanged += 1
            continue
        target.parent.mkdir(mode=0o750, parents=True, exist_ok=True)
        _inside(target.parent, source.root)
        _write_checked(content, target, expected, 0o600 if source.private else 0o640)
        # Its time as archived: the site's clean-ups judge a file's age by it.
        os.utime(target, (member.mtime, member.mtime))
        done.written[source.name] = done.written.get(source.name, 0) + 1
    return done


def _inside(folder: Path, root: Path) -> None:
    """Refuse a folder that resolves outside ``root`` (a symbolic link on the way)."""
    if os.path.commonpath([folder.resolve(), root.resolve()]) != str(root.resolve()):
        raise ArchiveError(f"refused: {folder} leads outside {root}")


def _write_checked(content: _Guarded, target: Path, expected: Member, mode: int) -> None:
    temporary = target.with_name(f".{target.name}.restore-{os.getpid()}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, mode)
    digest, size = hashlib.sha256(), 0
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in _read_chunks(content):
                digest.update(chunk)
                size += len(chunk)
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        if Member(size, digest.hexdigest()) != expected:
            raise ArchiveError(f"{target.name} changed since the archive was checked")
        os.chmod(temporary, mode)  # whatever the umask
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
