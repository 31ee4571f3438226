"""Compiling a dictionary to a content-addressed file and switching to it.

``compile_dictionary`` is the body of the Celery task (``dictionaries.tasks``). Compiled files
live in ``settings.BOGGLE_DICTIONARY_DIR`` as ``<name>-<sha256[:16]>.lex``: the digest covers
the word list, the rules and the edits, so a file is never rewritten with other words, and a
round holding a version keeps its words. Queueing a compile is ``services.request_compile``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import marisa_trie
from django.db import transaction
from django.utils import timezone

from dictionaries.exceptions import UnusableWordList
from dictionaries.files import check_named_list, dictionary_dir
from dictionaries.models import Dictionary, DictionaryEdit, DictionaryVersion, DiscardedFile
from solver import compiler
from solver import dictionaries as named_lists
from solver.errors import SolverError, WordListError
from solver.wordlist import WordList, load_word_list, read_header, write_word_list
from solver.wordrules import WordRules, normalise_word

logger = logging.getLogger(__name__)

# At most this many words are listed per kind of edit in a compile report.
EDIT_EXAMPLES = 50

# The fields of a new upload waiting for its compile (``services._set_pending_upload``).
PENDING_UPLOAD_FIELDS = ("pending_upload", "pending_upload_name", "pending_upload_size")


def compile_dictionary(dictionary_id: int, revision: int | None = None) -> DictionaryVersion | None:
    """Compile a dictionary to a new version and switch to it (the task's body).

    Returns the version, or None when the row is gone, a newer compile was requested
    (``revision`` is stale), or compiling failed: then the status says why and the current
    version stays in use. Idempotent: the same content gives the same file and version.
    """
    dictionary = Dictionary.objects.filter(pk=dictionary_id).first()
    if dictionary is None:
        return None
    if revision is None:
        revision = dictionary.revision
    if dictionary.revision != revision:
        return None
    try:
        version = build_version(dictionary, compile_allowed=True)
    except (SolverError, UnusableWordList, OSError) as error:
        logger.warning("dictionary %s failed to compile: %s", dictionary.name, error)
        record_failure(dictionary, revision, str(error))
        return None
    assert version is not None  # compile_allowed always yields one
    switch_to(dictionary, version, revision)
    return version


def record_failure(dictionary: Dictionary, revision: int, reason: str) -> None:
    """Status failed with the reason, unless a newer compile was requested meanwhile. A new
    upload that failed is dropped: the dictionary keeps the list (and version) it had."""
    changes: dict[str, Any] = {"status": Dictionary.Status.FAILED, "status_message": reason}
    if dictionary.pending_upload:
        kept = "; the previous list stays in use" if dictionary.current_version_id else ""
        changes["status_message"] = (
            f"the uploaded list {dictionary.pending_upload_name} was not used: {reason}{kept}"
        )
        changes.update(pending_upload="", pending_upload_name="", pending_upload_size=None)
    updated = Dictionary.objects.filter(pk=dictionary.pk, revision=revision).update(**changes)
    if updated:
        DiscardedFile.record(dictionary.pending_upload)


def switch_to(dictionary: Dictionary, version: DictionaryVersion, revision: int) -> None:
    """Make ``version`` current, unless a newer compile was requested meanwhile; the new
    upload it was compiled from (if any) becomes the dictionary's list."""
    with transaction.atomic():
        locked = Dictionary.objects.select_for_update().filter(pk=dictionary.pk).first()
        if locked is None or locked.revision != revision:
            return
        locked.current_version = version
        locked.status = Dictionary.Status.READY
        locked.status_message = ""
        locked.compiled_at = timezone.now()
        fields = ["current_version", "status", "status_message", "compiled_at"]
        if locked.pending_upload:
            if locked.upload != locked.pending_upload:
                DiscardedFile.record(locked.upload)  # kept while a version compiled from it is
            locked.upload = locked.pending_upload
            locked.upload_name = locked.pending_upload_name
            locked.upload_size = locked.pending_upload_size
            locked.uploaded_at = timezone.now()
            locked.pending_upload, locked.pending_upload_name = "", ""
            locked.pending_upload_size = None
            fields += ["upload", "upload_name", "upload_size", "uploaded_at"]
            fields += PENDING_UPLOAD_FIELDS
        locked.save(update_fields=fields)
    for field in fields:
        setattr(dictionary, field, getattr(locked, field))


def source_path(dictionary: Dictionary) -> Path:
    """The file of the dictionary's word list: a new upload waiting to compile, else its
    upload, else its named list."""
    upload = dictionary.pending_upload or dictionary.upload
    if upload:
        path = dictionary_dir() / upload
        try:
            if path.stat().st_size > compiler.MAX_WORDLIST_BYTES:
                raise UnusableWordList(
                    f"the word list is larger than {compiler.MAX_WORDLIST_BYTES // 2**20} MiB"
                )
        except OSError as error:
            raise UnusableWordList(
                f"cannot read the uploaded word list: {error.strerror}"
            ) from None
        return path
    if dictionary.named_list:
        return check_named_list(dictionary.named_list).source
    raise UnusableWordList("no word list: upload one")


def build_version(dictionary: Dictionary, compile_allowed: bool) -> DictionaryVersion | None:
    """The version for the dictionary's present content: an existing file is reused, a
    current ``python -m solver build`` file adopted, else (if allowed) it is compiled.
    Returns None when a compile would be needed but is not allowed."""
    source = source_path(dictionary)
    if not source.stat().st_size:
        raise UnusableWordList("the word list is empty")
    rules = dictionary.rules()
    edits = list(dictionary.edits.order_by("word").values_list("word", "action"))
    digest = compiler.digest_file(source, rules)
    if edits:
        digest = hashlib.sha256((digest + json.dumps(edits)).encode()).hexdigest()
    filename = f"{dictionary.name}-{digest[:16]}{named_lists.LEXICON_SUFFIX}"
    target = dictionary_dir() / filename
    header = _usable_header(target, digest)
    uploaded = dictionary.upload or dictionary.pending_upload
    if header is None and not edits and dictionary.named_list and not uploaded:
        header = _adopt_prebuilt(dictionary.named_list, digest, target)
    if header is None:
        if not compile_allowed:
            return None
        header = _compile(dictionary, source, rules, edits, digest, target)
    report = dict(header.get("report") or {})
    if header.get("edits"):
        report["edits"] = header["edits"]
    version, _ = DictionaryVersion.objects.get_or_create(
        dictionary=dictionary,
        digest=digest,
        defaults={
            "path": filename,
            "upload": dictionary.pending_upload or dictionary.upload,
            "word_count": header["words"],
            "file_size": target.stat().st_size,
            "rules": rules.to_dict(),
            "report": report,
        },
    )
    return version


def _usable_header(path: Path, digest: str) -> dict | None:
    """The header of a compiled file if it exists, loads and was made from ``digest``."""
    if not path.exists():
        return None
    try:
        header = read_header(path)
        if header.get("source_sha256") != digest:
            return None
        load_word_list(path)  # a truncated file fails here and is compiled again
    except WordListError:
        return None
    return header


def _adopt_prebuilt(name: str, digest: str, target: Path) -> dict | None:
    """Reuse the file ``python -m solver build`` made for a named list, if it is current:
    a hard link (or copy) under the content-addressed name, so later builds do not touch it."""
    prebuilt = named_lists.compiled_path(name)
    if _usable_header(prebuilt, digest) is None:
        return None
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        os.link(prebuilt, temporary)
    except OSError:
        shutil.copyfile(prebuilt, temporary)
    os.replace(temporary, target)
    return _usable_header(target, digest)


def _compile(
    dictionary: Dictionary,
    source: Path,
    rules: WordRules,
    edits: list[tuple[str, str]],
    digest: str,
    target: Path,
) -> dict:
    """Compile the word list plus edits to ``target``; returns the file's header. The list
    is streamed: memory holds the kept words, not the file."""
    try:
        words, report = compiler.select_words(compiler.iter_wordlist(source), rules)
    except WordListError as error:
        raise UnusableWordList(str(error)) from None
    words, edit_report = apply_edits(words, edits, rules)
    if not words:
        raise UnusableWordList(nothing_kept_message(report))
    trie = marisa_trie.Trie(words)
    table, root = compiler.build_node_table(words, trie, rules.alphabet)
    meta = {
        "name": dictionary.name,
        "rules": rules.to_dict(),
        "report": report.to_dict(),
        "source_sha256": digest,
    }
    if edits:
        meta["edits"] = edit_report
    write_word_list(WordList(trie, table, root, rules, meta), target)
    return read_header(target)


def apply_edits(
    words: list[str], edits: Iterable[tuple[str, str]], rules: WordRules
) -> tuple[list[str], dict[str, list | int]]:
    """Apply (word, action) edits to the sorted, unique words of a WordList; returns the new words and
    what each edit did: added, removed, unchanged (already so), refused (with the reason)."""
    kept = set(words)
    outcome: dict[str, list] = {"added": [], "removed": [], "unchanged": [], "refused": []}
    for entry, action in edits:
        word, reason = normalise_word(entry, rules)
        if reason is not None:
            outcome["refused"].append([entry, reason.value])
            continue
        assert word is not None  # normalise_word gives (word, None) or (None, reason)
        if action == DictionaryEdit.Action.ADD and word not in kept:
            kept.add(word)
            outcome["added"].append(word)
        elif action == DictionaryEdit.Action.REMOVE and word in kept:
            kept.discard(word)
            outcome["removed"].append(word)
        else:
            outcome["unchanged"].append(word)
    counts = {f"{kind}_count": len(items) for kind, items in outcome.items()}
    outcome = {kind: items[:EDIT_EXAMPLES] for kind, items in outcome.items()}
    return sorted(kept), {**outcome, **counts}


def nothing_kept_message(report: compiler.CompileReport) -> str:
    """Why a word list gave no word: all blank, or what the rules dropped."""
    if not report.dropped:
        return "no usable words: every line is blank or a comment"
    reasons = ", ".join(f"{count} {reason}" for reason, count in report.dropped.items())
    return f"no usable words under these rules: {reasons}"
