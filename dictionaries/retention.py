"""Deleting compiled versions and uploaded word lists nothing needs any more.

Every compile that changes a dictionary writes a new ``.lex`` file and a ``DictionaryVersion``
row, and every upload stores a new file under ``uploads/``; nothing else deletes them.
``delete_unused`` (hourly: ``games.housekeeping.delete_unused_files``) deletes

- a version (its row, then its file) that is not its dictionary's current version, that no
  round used (``Round.dictionary_version``, which protects it), and that is older than
  ``settings.BOGGLE_DICTIONARY_RETENTION_DAYS``; a dictionary being compiled keeps all its
  versions for now (the compile may be about to reuse one, file and row);
- a ``DiscardedFile`` discarded that long ago (an uploaded list a dictionary replaced or
  dropped, the files of a deleted dictionary) that no dictionary uses or waits to compile
  and no remaining version is (or was compiled from).

Only files this database used are deleted, never "whatever else is in the folder": the
directory may be shared with other databases (the tests' databases use var/dictionaries).
Each version is deleted in a transaction holding its dictionary's row (as a compile switching
versions does) and checked again there, so a version that just became current or got a round
stays. A file already gone is no error; two processes may run this at once.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.db.models import ProtectedError
from django.utils import timezone

from dictionaries import files
from dictionaries.models import Dictionary, DictionaryVersion, DiscardedFile

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Deleted:
    """What one ``delete_unused`` pass deleted."""

    versions: int = 0  # DictionaryVersion rows
    version_files: int = 0  # their .lex files (fewer when a file was already gone)
    discarded_files: int = 0  # uploaded word lists, files of deleted dictionaries


def retention_period() -> timedelta:
    """How long unused versions and uploads are kept (BOGGLE_DICTIONARY_RETENTION_DAYS)."""
    return timedelta(days=settings.BOGGLE_DICTIONARY_RETENTION_DAYS)


def delete_unused(now: datetime | None = None, retention: timedelta | None = None) -> Deleted:
    """Delete the versions and uploads nothing needs that are older than ``retention``
    (default: the setting) at ``now`` (default: now); returns the counts."""
    cutoff = (now or timezone.now()) - (retention if retention is not None else retention_period())
    versions = files = 0
    for version_id in expired_version_ids(cutoff):
        deleted = _delete_version(version_id, cutoff)
        if deleted is not None:
            versions += 1
            files += deleted
    discarded = _delete_discarded_files(cutoff)
    if versions or discarded:
        logger.info(
            "deleted %d unused dictionary versions (%d files) and %d discarded files",
            versions,
            files,
            discarded,
        )
    return Deleted(versions=versions, version_files=files, discarded_files=discarded)


def expired_version_ids(cutoff: datetime) -> list[int]:
    """Versions created before ``cutoff`` that are not current, no round used, and whose
    dictionary is not being compiled."""
    current = Dictionary.objects.filter(current_version__isnull=False).values("current_version")
    return list(
        DictionaryVersion.objects.filter(created_at__lt=cutoff, rounds__isnull=True)
        .exclude(pk__in=current)
        .exclude(dictionary__status=Dictionary.Status.COMPILING)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def _delete_version(version_id: int, cutoff: datetime) -> int | None:
    """Delete one version if it is still unused, then its file unless another row names it.
    Returns None when it was kept, else how many files were deleted (0 or 1)."""
    dictionary_id = (
        DictionaryVersion.objects.filter(pk=version_id).values_list("dictionary_id", flat=True)
    ).first()
    if dictionary_id is None:
        return None  # deleted meanwhile (another process's pass)
    with transaction.atomic():
        # The dictionary's row first, then the version's: the order of compiling.switch_to.
        dictionary = Dictionary.objects.select_for_update().filter(pk=dictionary_id).first()
        version = DictionaryVersion.objects.select_for_update().filter(pk=version_id).first()
        if (
            dictionary is None
            or version is None
            or dictionary.current_version_id == version.pk
            or dictionary.status == Dictionary.Status.COMPILING
            or version.created_at >= cutoff
            or version.rounds.exists()
        ):
            return None
        try:
            version.delete()
        except ProtectedError:  # a round took it after all
            return None
        if DictionaryVersion.objects.filter(path=version.path).exists():
            return 0
        # Inside the transaction, while the dictionary is held: a compile about to adopt
        # this file must find it gone. Should the commit fail, the row stays without its
        # file; recompiling that content writes the file again.
        _unlink(files.compact_path(version.path))  # made from it for browsers, if ever
        return _unlink(files.dictionary_dir() / version.path)


def files_in_use() -> set[str]:
    """Files (names under the dictionary directory) a dictionary or a version uses: the
    dictionaries' lists and lists waiting to compile, the versions' files and their lists."""
    used: set[str] = set()
    for upload, pending in Dictionary.objects.values_list("upload", "pending_upload"):
        used.update((upload, pending))
    for path, upload in DictionaryVersion.objects.values_list("path", "upload"):
        used.update((path, upload))
    used.discard("")
    return used


def _delete_discarded_files(cutoff: datetime) -> int:
    """Delete the files discarded before ``cutoff`` that nothing uses now and that were not
    stored again since (``services.store_upload`` touches a list uploaded again); returns
    how many files were deleted. A file still in use keeps its entry, for a later pass."""
    discarded = list(DiscardedFile.objects.filter(discarded_at__lt=cutoff).order_by("pk"))
    if not discarded:
        return 0
    used = files_in_use()
    deleted = 0
    for entry in discarded:
        if entry.path in used:
            continue
        path = files.dictionary_dir() / entry.path
        try:
            if path.stat().st_mtime >= cutoff.timestamp():
                continue
        except FileNotFoundError:
            pass
        else:
            deleted += _unlink(path)
        # Unless discarded again meanwhile (a new date: its period starts over).
        DiscardedFile.objects.filter(pk=entry.pk, discarded_at=entry.discarded_at).delete()
    return deleted


def _unlink(path: Path) -> int:
    """1 if this call deleted the file, 0 if it was already gone."""
    try:
        path.unlink()
    except FileNotFoundError:
        return 0
    return 1
