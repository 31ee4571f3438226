"""Dictionary administration: what rooms may use and the version a new round plays with,
registering the named lists, uploads and single-word edits, and asking for a compile.

``check_*`` validate, ``do_*`` change rows. ``request_compile`` queues the Celery task
(``dictionaries.tasks``), or a thread of this process when tasks run eagerly; the compiling
itself is ``dictionaries.compiling``, and where the files live is ``dictionaries.files``.
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
import tempfile
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from django.conf import settings
from django.db import connections, transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from dictionaries import compiling, tasks
from dictionaries.exceptions import DictionaryUnavailable, UnusableWordList
from dictionaries.files import (
    UPLOAD_FOLDER,
    check_named_list,
    dictionary_dir,
    load_version,
    write_atomically,
)
from dictionaries.models import Dictionary, DictionaryEdit, DictionaryVersion, DiscardedFile
from solver import compiler
from solver import dictionaries as named_lists
from solver.errors import SolverError, WordListError
from solver.wordrules import WordRules, normalise_word

logger = logging.getLogger(__name__)

# The admin refuses uploads larger than this (bytes, as uploaded; a gzip may unpack to at
# most compiler.MAX_WORDLIST_BYTES).
MAX_UPLOAD_BYTES = 20 * 2**20


# ---------------------------------------------------------------- what rooms may use


def playable_rows() -> QuerySet[Dictionary]:
    """The dictionaries rooms may choose, with their current version: enabled and compiled
    (a failed or running recompile keeps the previous version in use), the default first,
    then by title."""
    rows = Dictionary.objects.filter(enabled=True, current_version__isnull=False)
    return rows.select_related("current_version").order_by("-is_default", "title")


def playable() -> dict[str, str]:
    """Name -> title of ``playable_rows``."""
    return dict(playable_rows().values_list("name", "title"))


def default_name() -> str:
    """The default dictionary's name (``english`` before any row exists)."""
    name = Dictionary.objects.filter(is_default=True).values_list("name", flat=True).first()
    return name or named_lists.DEFAULT_DICTIONARY


def current_version(name: str) -> DictionaryVersion:
    """The version a new round with dictionary ``name`` plays with; DictionaryUnavailable
    says why there is none."""
    dictionary = Dictionary.objects.select_related("current_version").filter(name=name).first()
    if dictionary is None:
        raise DictionaryUnavailable(f"there is no dictionary {name!r}")
    if not dictionary.enabled:
        raise DictionaryUnavailable(f"the dictionary {name!r} is switched off; pick another")
    if dictionary.current_version is None:
        if dictionary.status == Dictionary.Status.FAILED:
            raise DictionaryUnavailable(
                f"the dictionary {name!r} failed to compile: {dictionary.status_message}"
            )
        raise DictionaryUnavailable(
            f"the dictionary {name!r} is not compiled yet; try again in a moment"
        )
    return dictionary.current_version


# ---------------------------------------------------------------- named lists


def register_named_list(name: str, default: bool = False) -> Dictionary:
    """The row for a named list (``solver.dictionaries.NAMED_LISTS``), created if missing.

    An existing row is left as staff edited it. ``default`` makes a new row the default
    only when there is no default yet. Raises WordListError for an unknown name.
    """
    entry = named_lists.get_named_list(name)
    rules = entry.rules
    dictionary, _ = Dictionary.objects.get_or_create(
        name=name,
        defaults={
            "title": entry.title,
            "language": entry.language,
            "source": entry.origin,
            "licence": entry.licence,
            "named_list": name,
            "alphabet": rules.alphabet,
            "fold_accents": rules.fold_accents,
            "qu_rule": rules.qu_rule,
            "min_length": rules.min_length,
            "max_length": rules.max_length,
            "keep_capitalised": rules.keep_capitalised,
            "is_default": default and not Dictionary.objects.filter(is_default=True).exists(),
        },
    )
    return dictionary


def register_builtins() -> list[Dictionary]:
    """Make sure the shipped lists (english, the default, and english-common) exist as rows
    with a version. A version is taken without compiling when the file already exists (from
    an earlier compile, or ``python -m solver build``); otherwise a compile is queued."""
    registered = []
    for name in named_lists.SHIPPED:
        dictionary = register_named_list(name, default=name == named_lists.DEFAULT_DICTIONARY)
        if dictionary.current_version_id is None:
            try:
                version = compiling.build_version(dictionary, compile_allowed=False)
            except (SolverError, UnusableWordList, OSError) as error:
                logger.warning("dictionary %s: %s", name, error)
                version = None
            if version is not None:
                compiling.switch_to(dictionary, version, dictionary.revision)
            else:
                request_compile(dictionary)
        registered.append(dictionary)
    return registered


def register_builtins_after_migrate(sender: Any, using: str = "default", **kwargs: Any) -> None:
    """post_migrate receiver: register the shipped lists once the tables exist."""
    if Dictionary._meta.db_table not in connections[using].introspection.table_names():
        return  # migrated to a state before this app's tables
    register_builtins()


def import_named_list(name: str) -> Dictionary:
    """Register a named list (dutch, french, ...) and compile it now, in this process.

    Raises UnusableWordList when its file is missing (saying which package installs it) or
    cannot be compiled, WordListError for an unknown name.
    """
    check_named_list(name)
    dictionary = register_named_list(name)
    revision = request_compile(dictionary, enqueue=False)
    compiling.compile_dictionary(dictionary.pk, revision)
    dictionary.refresh_from_db()
    if dictionary.status == Dictionary.Status.FAILED:
        raise UnusableWordList(f"{name}: {dictionary.status_message}")
    return dictionary


# ---------------------------------------------------------------- uploads and edits


@dataclass(frozen=True)
class CheckedUpload:
    """A word list (or its first lines) that passed ``check_wordlist``/``check_upload``."""

    kept: int
    complete: bool


def check_wordlist(data: bytes, rules: WordRules | None = None) -> CheckedUpload:
    """Refuse a word list that is empty, binary, corrupt gzip, too large or (with ``rules``)
    not a word list or without a usable word. Raises UnusableWordList with a message for
    staff. The whole list is checked (see ``check_upload`` for the quick check)."""
    if not data:
        raise UnusableWordList("the word list is empty")
    return check_upload(io.BytesIO(data), rules, max_lines=None)


def check_upload(
    stream: IO[bytes], rules: WordRules | None = None, max_lines: int | None = None
) -> CheckedUpload:
    """Check an uploaded file without holding it in memory: size, gzip, binary data and
    encoding over the whole file (fast), then the rules over the first ``max_lines`` lines
    (all of them if None). UnusableWordList says what is wrong."""
    try:
        stream.seek(0, io.SEEK_END)
        size = stream.tell()
        stream.seek(0)
        if not size:
            raise UnusableWordList("the word list is empty")
        if size > compiler.MAX_WORDLIST_BYTES:
            raise UnusableWordList(
                f"the file is larger than {compiler.MAX_WORDLIST_BYTES // 2**20} MiB"
            )
        lines = compiler.iter_wordlist_stream(stream)  # type: ignore[arg-type]
        if rules is None:
            for _ in lines:
                pass
            return CheckedUpload(0, True)
        limit = max_lines if max_lines is not None else compiler.MAX_WORDLIST_BYTES
        words, report, complete = compiler.check_sample(lines, rules, limit)
    except WordListError as error:
        raise UnusableWordList(str(error)) from None
    finally:
        stream.seek(0)
    if complete and not words:
        raise UnusableWordList(compiling.nothing_kept_message(report))
    return CheckedUpload(len(words), complete)


def store_upload(data: bytes) -> str:
    """Save an upload under its SHA-256; returns its path relative to the dictionary dir."""
    suffix = ".txt.gz" if data[:2] == compiler.GZIP_MAGIC else ".txt"
    relative = f"{UPLOAD_FOLDER}/{hashlib.sha256(data).hexdigest()}{suffix}"
    target = dictionary_dir() / relative
    try:
        # Stored before: touched, so that the clean-up (dictionaries.retention) sees a file
        # in use again if it was discarded long ago.
        os.utime(target)
    except FileNotFoundError:
        write_atomically(target, data)
    return relative


def store_upload_file(stream: IO[bytes]) -> tuple[str, int]:
    """Save an uploaded file under its SHA-256, copying it in chunks; returns its path
    relative to the dictionary dir and its size."""
    folder = dictionary_dir() / UPLOAD_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    hasher = hashlib.sha256()
    size = 0
    stream.seek(0)
    head = stream.read(2)
    stream.seek(0)
    with tempfile.NamedTemporaryFile(dir=folder, prefix=".upload-", delete=False) as out:
        try:
            while chunk := stream.read(compiler.CHUNK_BYTES):
                hasher.update(chunk)
                size += len(chunk)
                out.write(chunk)
        except BaseException:
            os.unlink(out.name)
            raise
    suffix = ".txt.gz" if head == compiler.GZIP_MAGIC else ".txt"
    relative = f"{UPLOAD_FOLDER}/{hasher.hexdigest()}{suffix}"
    os.replace(out.name, dictionary_dir() / relative)
    return relative, size


def set_upload_file(dictionary: Dictionary, upload: Any) -> None:
    """Store an uploaded file (a Django UploadedFile) as the dictionary's next word list."""
    relative, size = store_upload_file(upload.file)
    _set_pending_upload(dictionary, relative, upload.name, size)


def do_upload(dictionary: Dictionary, data: bytes, filename: str) -> int:
    """Check and store a new word list for ``dictionary`` and queue a compile; returns the
    compile's revision. UnusableWordList leaves the dictionary as it was."""
    check_wordlist(data, dictionary.rules())
    set_upload(dictionary, data, filename)
    return request_compile(dictionary)


def set_upload(dictionary: Dictionary, data: bytes, filename: str) -> None:
    """Store ``data`` as the dictionary's next word list (unchecked; the compile checks it)."""
    _set_pending_upload(dictionary, store_upload(data), filename, len(data))


def _set_pending_upload(dictionary: Dictionary, relative: str, filename: str, size: int) -> None:
    """The stored upload waits as ``pending_upload``: the next compile reads it, and only a
    compile that succeeds makes it the dictionary's ``upload`` (``compiling.switch_to``). One
    that fails drops it, and the list in use stays (the upload checks only the first lines)."""
    replaced = dictionary.pending_upload
    dictionary.pending_upload = relative
    dictionary.pending_upload_name = Path(filename).name[:200]
    dictionary.pending_upload_size = size
    dictionary.save(update_fields=[*compiling.PENDING_UPLOAD_FIELDS])
    if replaced != relative:
        DiscardedFile.record(replaced)  # waited and never compiled


def check_edit_word(dictionary: Dictionary, entry: str) -> str:
    """The dictionary's form of ``entry`` (lower-case, folded); UnusableWordList if the
    rules could never keep it."""
    entry = (entry or "").strip()
    if not entry:
        raise UnusableWordList("type a word")
    # Lower-cased first: an edit is a word, not a proper noun.
    word, reason = normalise_word(entry.lower(), dictionary.rules())
    if reason is not None:
        raise UnusableWordList(f"{entry!r} cannot be a word of {dictionary.name}: {reason.value}")
    assert word is not None  # normalise_word gives (word, None) or (None, reason)
    return word


def do_edit_words(
    dictionary: Dictionary,
    entries: Iterable[str],
    action: str,
    note: str = "",
    user: Any = None,
    recompile: bool = True,
    background: bool = False,
) -> list[str]:
    """Add (or remove) single words; a word's newest edit replaces an older one. Returns the
    words as stored, and queues one compile. UnusableWordList names the first bad entry."""
    if action not in DictionaryEdit.Action.values:
        raise ValueError(f"unknown edit action {action!r}")
    words = [check_edit_word(dictionary, entry) for entry in entries]
    with transaction.atomic():
        for word in words:
            DictionaryEdit.objects.update_or_create(
                dictionary=dictionary,
                word=word,
                defaults={"action": action, "note": note[:200], "created_by": user},
            )
        if recompile and words:
            request_compile(dictionary, background=background)
    return words


def lookup(dictionary: Dictionary, entry: str) -> tuple[bool, str]:
    """Is ``entry`` a word of the dictionary's current version, and if not, why not?"""
    entry = (entry or "").strip()
    if not entry:
        return False, "type a word to look up"
    version = dictionary.current_version
    if version is None:
        return False, f"{dictionary.name} has no compiled version yet"
    try:
        word_list = load_version(version)
    except WordListError as error:
        return False, str(error)
    accepted, reason = word_list.explain(entry.lower())
    word = word_list.normalise(entry.lower())
    edit = dictionary.edits.filter(word=word).first() if word else None
    if edit is not None:
        pending = dictionary.status == Dictionary.Status.COMPILING
        verb = "added" if edit.action == DictionaryEdit.Action.ADD else "removed"
        reason += f" ({verb} by an edit{', being compiled' if pending else ''})"
    return accepted, reason


# ---------------------------------------------------------------- asking for a compile


def request_compile(dictionary: Dictionary, enqueue: bool = True, background: bool = False) -> int:
    """Mark the dictionary compiling and queue the task after commit; returns the revision
    the task compiles. A compile queued earlier finds a newer revision and does nothing.

    ``background``: when tasks run eagerly (no broker: development, the embedded site),
    compile in a thread of this process, so a web request does not wait for it."""
    now = timezone.now()
    Dictionary.objects.filter(pk=dictionary.pk).update(
        revision=F("revision") + 1,
        status=Dictionary.Status.COMPILING,
        status_message="",
        compile_requested_at=now,
    )
    dictionary.refresh_from_db(fields=["revision", "status", "status_message"])
    revision = dictionary.revision
    if enqueue:
        transaction.on_commit(lambda: _enqueue(dictionary.pk, revision, background))
    return revision


def run_in_background(work: Callable[[], None]) -> None:
    """Run ``work`` in a daemon thread that closes its database connections when done
    (tests replace this to run it at once)."""

    def target() -> None:
        try:
            work()
        finally:
            connections.close_all()

    threading.Thread(target=target, name="dictionary-compile", daemon=True).start()


def _compile_guarded(dictionary_id: int, revision: int) -> None:
    """The compile of a background thread: an unexpected error is recorded, not lost."""
    try:
        compiling.compile_dictionary(dictionary_id, revision)
    except Exception as error:
        logger.exception("compiling dictionary %s crashed", dictionary_id)
        dictionary = Dictionary.objects.filter(pk=dictionary_id).first()
        if dictionary is not None:
            compiling.record_failure(dictionary, revision, f"compiling crashed: {error}")


def _enqueue(dictionary_id: int, revision: int, background: bool = False) -> None:
    if background and settings.CELERY_TASK_ALWAYS_EAGER:
        run_in_background(lambda: _compile_guarded(dictionary_id, revision))
        return
    try:
        tasks.compile_dictionary.delay(dictionary_id, revision)
    except Exception as error:  # the broker is down: say so instead of "compiling" forever
        logger.exception("could not queue the compile of dictionary %s", dictionary_id)
        Dictionary.objects.filter(pk=dictionary_id, revision=revision).update(
            status=Dictionary.Status.FAILED,
            status_message=f"could not queue the compile task ({error}); recompile later",
        )
