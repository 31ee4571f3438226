"""Uploading and compiling dictionaries: content-addressed versions, the report, broken
uploads that leave the old version in use, single-word edits, look-ups, the default."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from django.db import IntegrityError, transaction

from dictionaries import compiling, files, services, tasks
from dictionaries.exceptions import DictionaryUnavailable, UnusableWordList
from dictionaries.models import Dictionary, DictionaryEdit, DictionaryVersion
from solver import compiler, load_word_list
from tests.dictionaries.helpers import (
    TINY_LIST,
    TINY_WORDS,
    compile_now,
    current_version,
    make_dictionary,
)

pytestmark = pytest.mark.django_db


def words_of(version: DictionaryVersion) -> set[str]:
    return set(files.load_version(version).trie.keys())


# ---------------------------------------------------------------- uploading and compiling


def test_a_plain_upload_compiles_to_a_content_addressed_version(dictionary_dir: Path):
    """The compiled file is <name>-<sha256[:16]>.lex under BOGGLE_DICTIONARY_DIR, the
    version records digest, path, word count, size and rules, and the dictionary is ready."""
    tiny = make_dictionary()
    assert tiny.status == Dictionary.Status.READY and tiny.status_message == ""
    version = current_version(tiny)
    assert version.path == f"tiny-{version.digest[:16]}.lex"
    assert (dictionary_dir / version.path).stat().st_size == version.file_size > 0
    assert len(version.digest) == 64
    assert version.word_count == len(TINY_WORDS)
    assert version.rules["min_length"] == 3 and version.rules["fold_accents"] is False
    assert words_of(version) == TINY_WORDS
    # The upload is kept under its SHA-256, with the name staff gave it.
    assert tiny.upload.startswith("uploads/") and (dictionary_dir / tiny.upload).exists()
    assert (tiny.upload_name, tiny.upload_size) == ("tiny.txt", len(TINY_LIST.encode()))


def test_the_report_counts_kept_and_dropped_words_with_examples(tiny):
    """Kept, and dropped per reason with the entries themselves as examples."""
    report = tiny.current_version.report
    assert report["kept"] == len(TINY_WORDS)
    assert report["ignored_lines"] == 2  # the comment and the blank line
    assert report["dropped"] == {
        "proper noun (capitalised)": 1,
        "q not followed by u": 1,
        "too short": 1,
        "duplicate": 1,
        "characters outside the alphabet": 1,
    }
    assert report["examples"]["proper noun (capitalised)"] == ["Paris"]
    assert report["examples"]["characters outside the alphabet"] == ["dog's"]
    assert report["examples"]["duplicate"] == ["cats"]


def test_gzip_and_latin1_uploads(dictionary_dir: Path):
    """A gzip list and a Latin-1 list (with accents folded) compile like plain UTF-8 ones."""
    zipped = Dictionary.objects.create(name="zipped", title="Zipped")
    services.set_upload(zipped, gzip.compress(TINY_LIST.encode()), "tiny.txt.gz")
    compile_now(zipped)
    assert zipped.upload.endswith(".txt.gz")
    assert words_of(current_version(zipped)) == TINY_WORDS

    # Not valid UTF-8, so read as Latin-1; the accents then fold away.
    latin = make_dictionary(
        "latin", "café\nélève\nété\nnaïve\n", encoding="latin-1", fold_accents=True
    )
    assert words_of(current_version(latin)) == {"cafe", "eleve", "ete", "naive"}


def test_a_gzip_latin1_list_with_accents(dictionary_dir: Path):
    """Both at once: gzip around Latin-1 text, accents folded."""
    dictionary = Dictionary.objects.create(name="fr-mini", title="Mini", fold_accents=True)
    services.set_upload(dictionary, gzip.compress("été\nêtre\nfête\n".encode("latin-1")), "x.gz")
    compile_now(dictionary)
    assert words_of(current_version(dictionary)) == {"ete", "etre", "fete"}


def test_recompiling_the_same_content_reuses_the_version(tiny, dictionary_dir: Path):
    """Same list, rules and edits: the same file and the same version row, nothing new."""
    before = tiny.current_version
    files = sorted(p.name for p in dictionary_dir.iterdir())
    compile_now(tiny)
    assert tiny.current_version == before
    assert DictionaryVersion.objects.filter(dictionary=tiny).count() == 1
    assert sorted(p.name for p in dictionary_dir.iterdir()) == files


def test_changing_the_rules_makes_a_new_version(tiny):
    """A longer minimum length is a new digest, a new file, fewer words; the old version
    (and its file) stays for the rounds that used it."""
    old = tiny.current_version
    tiny.min_length = 4
    tiny.save()
    compile_now(tiny)
    new = tiny.current_version
    assert new != old and new.digest != old.digest
    assert words_of(new) == {w for w in TINY_WORDS if len(w) >= 4}
    assert words_of(old) == TINY_WORDS


def test_the_celery_task_compiles_after_commit(
    dictionary_dir: Path, django_capture_on_commit_callbacks
):
    """request_compile queues the task on commit; eager Celery runs it there."""
    dictionary = Dictionary.objects.create(name="queued", title="Queued")
    with django_capture_on_commit_callbacks(execute=True):
        services.do_upload(dictionary, TINY_LIST.encode(), "queued.txt")
        dictionary.refresh_from_db()
        assert dictionary.status == Dictionary.Status.COMPILING
    dictionary.refresh_from_db()
    assert dictionary.status == Dictionary.Status.READY
    assert current_version(dictionary).word_count == len(TINY_WORDS)


def test_a_stale_compile_does_not_switch_versions(tiny):
    """A compile task for an older revision finds a newer request and does nothing."""
    old_revision = tiny.revision
    services.request_compile(tiny, enqueue=False)
    assert compiling.compile_dictionary(tiny.pk, old_revision) is None
    assert tasks.compile_dictionary(tiny.pk, old_revision) is False
    assert tasks.compile_dictionary(123456, 1) is False  # a deleted row: quietly nothing


# ---------------------------------------------------------------- broken uploads


BROKEN_UPLOADS = {
    "binary": (b"\x00\x01\x02\x03ELF\x00", "binary file"),
    "corrupt gzip": (b"\x1f\x8b\x08\x00garbage", "gzip file is corrupt"),
    "empty": (b"", "the word list is empty"),
    "no usable words": (b"# only a comment\n\nParis\nqat\n", "no usable words"),
    "random binary without NUL": (
        bytes((i * 7919 + 13) % 255 + 1 for i in range(30_000)),
        "not a text word list",
    ),
    "long lines": (b"cat\n" + b"word" * 40 + b"\n", "line 2 is 160 characters long"),
}


@pytest.mark.parametrize("kind", sorted(BROKEN_UPLOADS))
def test_a_broken_upload_is_refused_and_the_old_version_stays(tiny, kind):
    """do_upload refuses it with a clear reason; the dictionary keeps its list, version
    and status."""
    data, message = BROKEN_UPLOADS[kind]
    version, upload = tiny.current_version, tiny.upload
    with pytest.raises(UnusableWordList, match=message):
        services.do_upload(tiny, data, "broken.txt")
    tiny.refresh_from_db()
    assert (tiny.current_version, tiny.upload, tiny.status) == (
        version,
        upload,
        Dictionary.Status.READY,
    )


@pytest.mark.parametrize("kind", sorted(BROKEN_UPLOADS))
def test_compiling_a_broken_list_fails_and_keeps_the_old_version_in_use(tiny, kind):
    """Even stored unchecked, a broken list only makes the compile fail: status failed
    with the reason, the old version still current, playable and loadable."""
    data, message = BROKEN_UPLOADS[kind]
    version, upload = tiny.current_version, tiny.upload
    services.set_upload(tiny, data, "broken.txt")
    compile_now(tiny)
    assert tiny.status == Dictionary.Status.FAILED
    assert message in tiny.status_message
    assert "broken.txt was not used" in tiny.status_message
    assert (tiny.current_version, tiny.upload, tiny.pending_upload) == (version, upload, "")
    assert services.current_version("tiny") == version
    assert "tiny" in services.playable()
    assert "cats" in files.load_version(version)


def test_a_list_broken_past_the_checked_lines_leaves_the_list_in_use(tiny, monkeypatch):
    """The upload check reads the first lines only: a list that fails later, in the compile,
    is dropped, and the next compile (here after a rule change) uses the list in use, not it."""
    monkeypatch.setattr(compiler, "MAX_WORDLIST_BYTES", 1000)
    upload = tiny.upload
    services.set_upload(tiny, b"zebra\n" + b"word\n" * 300, "long.txt")
    assert tiny.pending_upload and tiny.upload == upload  # waiting, not in use
    compile_now(tiny)
    assert tiny.status == Dictionary.Status.FAILED and "larger than" in tiny.status_message
    assert (tiny.upload, tiny.pending_upload) == (upload, "")
    tiny.min_length = 4
    tiny.save()
    compile_now(tiny)
    assert tiny.status == Dictionary.Status.READY, tiny.status_message
    assert words_of(tiny.current_version) == {w for w in TINY_WORDS if len(w) >= 4}


def test_a_new_upload_that_compiles_becomes_the_list(tiny, dictionary_dir: Path):
    services.set_upload(tiny, b"zebra\nzebras\n", "new.txt")
    compile_now(tiny)
    assert tiny.status == Dictionary.Status.READY, tiny.status_message
    assert (tiny.upload_name, tiny.upload_size, tiny.pending_upload) == ("new.txt", 13, "")
    assert (dictionary_dir / tiny.upload).read_bytes() == b"zebra\nzebras\n"


def test_an_enormous_upload_is_refused(tiny, monkeypatch):
    """Over the size limit (64 MiB; lowered here to keep the test small), before decoding."""
    monkeypatch.setattr(compiler, "MAX_WORDLIST_BYTES", 1000)
    version = tiny.current_version
    with pytest.raises(UnusableWordList, match="larger than"):
        services.do_upload(tiny, b"word\n" * 300, "big.txt")
    services.set_upload(tiny, b"word\n" * 300, "big.txt")
    compile_now(tiny)
    assert tiny.status == Dictionary.Status.FAILED and "larger than" in tiny.status_message
    assert tiny.current_version == version


def test_a_gzip_bomb_is_refused(tiny):
    """A small gzip that unpacks past the real 64 MiB limit is refused, not unpacked."""
    bomb = gzip.compress(b"a\n" * (compiler.MAX_WORDLIST_BYTES // 2 + 1), compresslevel=1)
    assert len(bomb) < 1_000_000
    with pytest.raises(UnusableWordList, match="larger than 64 MiB"):
        services.do_upload(tiny, bomb, "bomb.gz")


def test_a_missing_upload_file_fails_the_compile(tiny, dictionary_dir: Path):
    """The stored upload vanished (a wiped disk): the compile fails saying so."""
    (dictionary_dir / tiny.upload).unlink()
    version = tiny.current_version
    compile_now(tiny)
    assert tiny.status == Dictionary.Status.FAILED
    assert "cannot read the uploaded word list" in tiny.status_message
    assert tiny.current_version == version


# ---------------------------------------------------------------- edits and look-ups


def test_adding_and_removing_words_then_recompiling(tiny):
    """Single-word edits are applied on compile: a new version with the word added and the
    other removed, the report saying so; the old version's words are untouched."""
    old = tiny.current_version
    assert services.do_edit_words(tiny, ["Zorb"], DictionaryEdit.Action.ADD, recompile=False) == [
        "zorb"
    ]
    services.do_edit_words(tiny, ["zebra"], DictionaryEdit.Action.REMOVE, recompile=False)
    compile_now(tiny)
    new = tiny.current_version
    assert new != old
    assert words_of(new) == TINY_WORDS - {"zebra"} | {"zorb"}
    assert words_of(old) == TINY_WORDS
    edits = new.report["edits"]
    assert (edits["added"], edits["removed"]) == (["zorb"], ["zebra"])
    assert (edits["added_count"], edits["removed_count"]) == (1, 1)
    assert new.word_count == len(TINY_WORDS)


def test_the_newest_edit_of_a_word_wins(tiny):
    """Adding then removing the same word leaves one edit row, the removal."""
    services.do_edit_words(tiny, ["zorb"], DictionaryEdit.Action.ADD, recompile=False)
    services.do_edit_words(tiny, ["zorb"], DictionaryEdit.Action.REMOVE, recompile=False)
    assert list(tiny.edits.values_list("word", "action")) == [("zorb", "remove")]
    compile_now(tiny)
    assert "zorb" not in words_of(tiny.current_version)


def test_an_edit_the_rules_could_never_keep_is_refused(tiny):
    """Too short, a q without u, not letters: refused with the rule's reason."""
    for entry, reason in (("ox", "too short"), ("qat", "q not followed by u"), ("x-y", "outside")):
        with pytest.raises(UnusableWordList, match=reason):
            services.do_edit_words(tiny, [entry], DictionaryEdit.Action.ADD)
    assert not tiny.edits.exists()


def test_edits_are_queued_as_one_compile(tiny, django_capture_on_commit_callbacks):
    """do_edit_words with recompile queues the task after commit; it runs and switches."""
    with django_capture_on_commit_callbacks(execute=True):
        services.do_edit_words(tiny, ["gode", "wego"], DictionaryEdit.Action.ADD)
    tiny.refresh_from_db()
    assert tiny.status == Dictionary.Status.READY
    assert {"gode", "wego"} <= words_of(tiny.current_version)


def test_looking_a_word_up_says_why_it_is_not_in(tiny):
    """In, not in the list, dropped by a rule, removed by an edit."""
    assert services.lookup(tiny, "Cats") == (True, "'cats' is in the dictionary")
    assert services.lookup(tiny, "zorb") == (False, "'zorb' is not in the word list")
    assert services.lookup(tiny, "qat") == (False, "q not followed by u")
    assert services.lookup(tiny, "ox") == (False, "too short")
    services.do_edit_words(tiny, ["zebra"], DictionaryEdit.Action.REMOVE, recompile=False)
    compile_now(tiny)
    assert services.lookup(tiny, "zebra") == (
        False,
        "'zebra' is not in the word list (removed by an edit)",
    )


def test_looking_up_with_folded_accents(dictionary_dir: Path):
    """A folding dictionary finds "été" and "ete" alike."""
    french = make_dictionary("mini-fr", "été\nêtre\n", fold_accents=True)
    assert services.lookup(french, "été") == (True, "'ete' is in the dictionary")
    assert services.lookup(french, "ete") == (True, "'ete' is in the dictionary")


# ---------------------------------------------------------------- availability and the default


def test_the_shipped_lists_are_registered_after_migrate():
    """english (the default) and english-common exist as rows with a compiled version."""
    rows = {d.name: d for d in Dictionary.objects.select_related("current_version")}
    assert {"english", "english-common"} <= set(rows)
    assert rows["english"].is_default and not rows["english-common"].is_default
    assert Dictionary.objects.filter(is_default=True).count() == 1
    for name in ("english", "english-common"):
        assert rows[name].named_list == name
        assert rows[name].current_version is not None, rows[name].status_message
    assert rows["english"].current_version.word_count > 270_000
    assert list(services.playable())[:2] == ["english", "english-common"]
    assert services.default_name() == "english"
    # Registering again changes nothing.
    services.register_builtins()
    assert Dictionary.objects.filter(name__startswith="english").count() == 2


def test_the_builtins_are_queued_for_compiling_when_no_file_exists(
    dictionary_dir: Path, monkeypatch, tmp_path
):
    """With no compiled file to reuse (no earlier compile, no ``python -m solver build``),
    registering the shipped lists queues their compile; the worker's compile then puts the
    version in the dictionary directory."""
    monkeypatch.setenv("BOGGLE_DICTIONARY_DIR", str(tmp_path / "no-prebuilt"))
    Dictionary.objects.filter(name__startswith="english").delete()
    english, common = services.register_builtins()
    assert english.is_default
    for dictionary in (english, common):
        assert dictionary.status == Dictionary.Status.COMPILING
        assert dictionary.current_version is None
    # The queued task runs after commit (never, in this test's transaction): run it here.
    assert tasks.compile_dictionary(common.pk, common.revision)
    common.refresh_from_db()
    assert common.status == Dictionary.Status.READY
    assert current_version(common).word_count == 39_051
    assert (dictionary_dir / current_version(common).path).exists()


def test_there_is_exactly_one_default(tiny):
    """Making another dictionary the default unsets the old one; the database refuses two."""
    tiny.is_default = True
    tiny.save()
    assert list(Dictionary.objects.filter(is_default=True)) == [tiny]
    assert services.default_name() == "tiny"
    assert next(iter(services.playable())) == "tiny"
    with pytest.raises(IntegrityError), transaction.atomic():
        Dictionary.objects.filter(name="english").update(is_default=True)


def test_why_a_dictionary_cannot_be_played(dictionary_dir: Path, tiny):
    """current_version names the reason: unknown, switched off, not compiled, failed."""
    with pytest.raises(DictionaryUnavailable, match="no dictionary 'klingon'"):
        services.current_version("klingon")
    Dictionary.objects.filter(pk=tiny.pk).update(enabled=False)
    with pytest.raises(DictionaryUnavailable, match="switched off"):
        services.current_version("tiny")
    assert "tiny" not in services.playable()
    fresh = Dictionary.objects.create(name="fresh", title="Fresh")
    with pytest.raises(DictionaryUnavailable, match="not compiled yet"):
        services.current_version("fresh")
    services.set_upload(fresh, b"\x00", "x")
    compile_now(fresh)
    with pytest.raises(DictionaryUnavailable, match=r"failed to compile: .*binary"):
        services.current_version("fresh")
    assert "fresh" not in services.playable()


def test_a_truncated_compiled_file_is_compiled_again(tiny, dictionary_dir: Path):
    """A content-addressed file that no longer loads is not reused: compiling rewrites it."""
    path = dictionary_dir / tiny.current_version.path
    path.write_bytes(path.read_bytes()[:-8])
    compile_now(tiny)
    assert set(load_word_list(path).trie.keys()) == TINY_WORDS


def test_compiling_streams_the_list(tiny, dictionary_dir: Path, monkeypatch):
    """The compile reads the list in chunks and lines, never whole into memory."""

    def whole(self):
        raise AssertionError(f"read whole: {self}")

    monkeypatch.setattr(Path, "read_bytes", whole)
    monkeypatch.setattr(Path, "read_text", whole)
    services.set_upload(tiny, b"zebra\nzebras\n", "new.txt")
    compile_now(tiny)
    assert tiny.status == Dictionary.Status.READY, tiny.status_message
    assert set(files.load_version(tiny.current_version).trie.keys()) == {"zebra", "zebras"}
