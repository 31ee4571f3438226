"""Deleting compiled versions and uploaded word lists nothing needs (dictionaries.retention):
a version stays while it is current, a round used it, it is younger than the retention period
or its dictionary is compiling; otherwise its row and file go. Uploads a dictionary dropped go
after the period unless something uses them; files this database never used are never
touched."""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from dictionaries import files, retention, services
from dictionaries.models import Dictionary, DictionaryVersion, DiscardedFile
from games import rooms
from games.models import Round
from tests.dictionaries.helpers import TINY_LIST, compile_now, current_version, make_dictionary

pytestmark = pytest.mark.django_db

OTHER_LIST = "cat\ndog\nzebra\nquiet\n"
# A list the compile refuses: no word survives the rules (too short).
UNUSABLE_LIST = "ab\ncd\n"


def recompiled(dictionary: Dictionary, words: list[str]) -> DictionaryVersion:
    """Add ``words`` and recompile; returns the version that was current before."""
    old = dictionary.current_version
    assert old is not None
    services.do_edit_words(dictionary, words, "add", recompile=False)
    compile_now(dictionary)
    assert dictionary.current_version != old
    return old


def uploaded(dictionary: Dictionary, text: str) -> Dictionary:
    """Upload ``text`` as the dictionary's new list and compile it."""
    services.set_upload(dictionary, text.encode(), "list.txt")
    return compile_now(dictionary)


def age(version: DictionaryVersion, days: float) -> None:
    DictionaryVersion.objects.filter(pk=version.pk).update(
        created_at=timezone.now() - timedelta(days=days)
    )


def file_of(version: DictionaryVersion) -> Path:
    return files.version_path(version)


def round_with(version: DictionaryVersion) -> Round:
    """A round of a new room that played with ``version``."""
    room, _ = rooms.do_create_room("Ann", {"dictionary": "tiny"})
    return Round.objects.create(
        room=room,
        number=1,
        board="cats qiex dogz went",
        rows=4,
        cols=4,
        min_length=3,
        dictionary=version.dictionary.name,
        dictionary_version=version,
        cancel_duplicates=True,
        instant_verdicts=True,
    )


def later(days: int = 1) -> datetime:
    """A moment past the retention period of everything made now (plus ``days``)."""
    return timezone.now() + retention.retention_period() + timedelta(days=days)


# ---------------------------------------------------------------- versions


def test_an_old_version_that_is_not_current_and_no_round_used_is_deleted(tiny: Dictionary):
    """Row and file go; the current version and its file stay."""
    old = recompiled(tiny, ["gnu"])
    age(old, 31)
    current = current_version(tiny)
    assert file_of(old).exists()
    deleted = retention.delete_unused()
    assert deleted == retention.Deleted(versions=1, version_files=1, discarded_files=0)
    assert not DictionaryVersion.objects.filter(pk=old.pk).exists()
    assert not file_of(old).exists()
    assert DictionaryVersion.objects.filter(pk=current.pk).exists()
    assert file_of(current).exists()
    assert retention.delete_unused(now=later()) == retention.Deleted()


def test_a_version_younger_than_the_retention_period_is_kept(tiny: Dictionary, settings):
    """Kept at 29 days under the default 30; a period of 7 days (the setting) deletes it."""
    assert settings.BOGGLE_DICTIONARY_RETENTION_DAYS == 30
    old = recompiled(tiny, ["gnu"])
    age(old, 29)
    assert retention.delete_unused() == retention.Deleted()
    assert file_of(old).exists()
    settings.BOGGLE_DICTIONARY_RETENTION_DAYS = 7
    assert retention.delete_unused().versions == 1
    assert not file_of(old).exists()


def test_the_current_version_is_kept_however_old(tiny: Dictionary):
    current = current_version(tiny)
    assert retention.delete_unused(now=later(days=365)) == retention.Deleted()
    assert DictionaryVersion.objects.filter(pk=current.pk).exists()
    assert file_of(current).exists()


def test_a_version_a_round_used_is_kept_until_the_round_is_gone(tiny: Dictionary):
    """The round protects its version, row and file; once its room is deleted (idle rooms
    are), the version goes at the next pass."""
    old = recompiled(tiny, ["gnu"])
    round_ = round_with(old)
    assert retention.delete_unused(now=later()) == retention.Deleted()
    assert file_of(old).exists()
    round_.room.delete()
    assert retention.delete_unused(now=later()).versions == 1
    assert not file_of(old).exists()


def test_a_version_is_checked_again_when_it_is_deleted(tiny: Dictionary):
    """A version listed as unused that got a round, or became current again, before its turn
    is kept."""
    old = recompiled(tiny, ["gnu"])
    cutoff = later() - retention.retention_period()
    assert retention.expired_version_ids(cutoff) == [old.pk]
    round_ = round_with(old)
    assert retention._delete_version(old.pk, cutoff) is None
    round_.delete()
    Dictionary.objects.filter(pk=tiny.pk).update(current_version=old)
    assert retention._delete_version(old.pk, cutoff) is None
    assert file_of(old).exists()
    Dictionary.objects.filter(pk=tiny.pk).update(current_version=tiny.current_version)
    assert retention._delete_version(old.pk, cutoff) == 1


def test_a_dictionary_being_compiled_keeps_its_versions(tiny: Dictionary):
    """The compile may be about to take an old version back (the same content): kept until
    the compile is over."""
    old = recompiled(tiny, ["gnu"])
    Dictionary.objects.filter(pk=tiny.pk).update(status=Dictionary.Status.COMPILING)
    assert retention.delete_unused(now=later()) == retention.Deleted()
    Dictionary.objects.filter(pk=tiny.pk).update(status=Dictionary.Status.FAILED)
    assert retention.delete_unused(now=later()).versions == 1
    assert not DictionaryVersion.objects.filter(pk=old.pk).exists()


def test_a_version_whose_file_is_already_gone_is_deleted_without_error(tiny: Dictionary):
    old = recompiled(tiny, ["gnu"])
    file_of(old).unlink()
    deleted = retention.delete_unused(now=later())
    assert deleted == retention.Deleted(versions=1, version_files=0)
    assert not DictionaryVersion.objects.filter(pk=old.pk).exists()


# ---------------------------------------------------------------- uploaded word lists


def test_a_replaced_upload_goes_with_the_last_version_compiled_from_it(tiny: Dictionary):
    """The first list is discarded when the second one compiles; a round's version compiled
    from it keeps it; with that round gone, version and list go together."""
    first_list = dictionary_dir_of(tiny.upload)
    old = current_version(tiny)
    assert old.upload == tiny.upload
    uploaded(tiny, OTHER_LIST)
    second_list = dictionary_dir_of(tiny.upload)
    assert DiscardedFile.objects.filter(path=old.upload).exists()
    round_ = round_with(old)

    assert retention.delete_unused(now=later()) == retention.Deleted()
    assert first_list.exists()
    assert DiscardedFile.objects.filter(path=old.upload).exists()  # asked again next pass

    round_.room.delete()
    deleted = retention.delete_unused(now=later())
    assert deleted == retention.Deleted(versions=1, version_files=1, discarded_files=1)
    assert not first_list.exists()
    assert second_list.exists()
    assert not DiscardedFile.objects.exists()


def test_a_discarded_upload_is_kept_during_the_retention_period(tiny: Dictionary):
    """Discarded 29 days before: kept (though written long ago and no version uses it)."""
    first_list = dictionary_dir_of(tiny.upload)
    old = current_version(tiny)
    uploaded(tiny, OTHER_LIST)
    DictionaryVersion.objects.filter(pk=old.pk).delete()
    backdate(first_list, days=400)
    soon = timezone.now() + timedelta(days=29)
    assert retention.delete_unused(now=soon) == retention.Deleted()
    assert first_list.exists()
    assert retention.delete_unused(now=soon + timedelta(days=2)).discarded_files == 1
    assert not first_list.exists()


def test_an_upload_that_failed_to_compile_is_deleted_after_the_period(tiny: Dictionary):
    """A list the compile refused never became the dictionary's: discarded, then deleted; the
    list in use stays."""
    services.set_upload(tiny, UNUSABLE_LIST.encode(), "bad.txt")
    failed = dictionary_dir_of(tiny.pending_upload)
    compile_now(tiny)
    assert tiny.status == Dictionary.Status.FAILED
    assert retention.delete_unused() == retention.Deleted()
    assert failed.exists()
    assert retention.delete_unused(now=later()).discarded_files == 1
    assert not failed.exists()
    assert dictionary_dir_of(tiny.upload).exists()


def test_an_upload_used_again_is_kept(tiny: Dictionary):
    """The same list uploaded to another dictionary (content-addressed: the same file) is in
    use there, though the first dictionary discarded it long ago."""
    first_list = dictionary_dir_of(tiny.upload)
    old = current_version(tiny)
    uploaded(tiny, OTHER_LIST)
    DictionaryVersion.objects.filter(pk=old.pk).delete()
    DiscardedFile.objects.update(discarded_at=timezone.now() - timedelta(days=40))
    again = make_dictionary("again", TINY_LIST)
    assert dictionary_dir_of(again.upload) == first_list
    backdate(first_list, days=400)
    assert retention.delete_unused() == retention.Deleted()
    assert first_list.exists()
    again.delete()  # discarded anew: another period
    assert retention.delete_unused() == retention.Deleted()
    assert first_list.exists()
    assert retention.delete_unused(now=later()).discarded_files == 2  # the list and the .lex
    assert not first_list.exists()


def test_a_discarded_file_already_gone_is_no_error(tiny: Dictionary):
    first_list = dictionary_dir_of(tiny.upload)
    uploaded(tiny, OTHER_LIST)
    first_list.unlink()
    deleted = retention.delete_unused(now=later())
    assert deleted.versions == 1
    assert deleted.discarded_files == 0
    assert not DiscardedFile.objects.exists()


def test_a_deleted_dictionarys_files_go_after_the_period(tiny: Dictionary):
    """Its versions go with the row; their files and its list are discarded."""
    version = current_version(tiny)
    upload = dictionary_dir_of(tiny.upload)
    tiny.delete()
    assert file_of(version).exists()
    assert retention.delete_unused() == retention.Deleted()
    assert retention.delete_unused(now=later()).discarded_files == 2
    assert not file_of(version).exists()
    assert not upload.exists()


def test_files_this_database_never_used_are_never_deleted(dictionary_dir: Path):
    """The directory may be shared with another database (the tests' use var/dictionaries):
    an old file nothing here refers to, and never discarded here, stays."""
    for name in ("uploads/0123abcd.txt", "other-0123456789abcdef.lex"):
        stray = dictionary_dir / name
        stray.parent.mkdir(parents=True, exist_ok=True)
        stray.write_text("cat\n")
        backdate(stray, days=400)
    assert retention.delete_unused(now=later()) == retention.Deleted()
    assert (dictionary_dir / "uploads/0123abcd.txt").exists()
    assert (dictionary_dir / "other-0123456789abcdef.lex").exists()


def backdate(path: Path, days: float) -> None:
    """Set the file's modification time ``days`` back."""
    then = (timezone.now() - timedelta(days=days)).timestamp()
    os.utime(path, (then, then))


def dictionary_dir_of(relative: str) -> Path:
    assert relative
    return files.dictionary_dir() / relative
