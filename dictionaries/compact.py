"""A dictionary version's word list as browsers keep it for offline practice: the compact
text of ``solver.compact``, gzipped, made from the version's compiled file the first time
a browser asks and kept beside it (``files.compact_path``; retention deletes both).

A version's file never changes, so neither does its compact list: it is named by the
version, and a browser may keep it for good.
"""

from __future__ import annotations

import gzip
import threading
from pathlib import Path

from dictionaries.files import compact_path, load_version, write_atomically
from dictionaries.models import DictionaryVersion
from solver import compact

# Letters of a version's digest in its compact list's address: enough to tell versions of
# one dictionary apart, short enough to read.
VERSION_LETTERS = 16

# One build per file at a time in this process (another process writing the same file
# replaces it atomically with the same bytes).
_building: dict[str, threading.Lock] = {}
_building_lock = threading.Lock()


def version_tag(version: DictionaryVersion) -> str:
    return version.digest[:VERSION_LETTERS]


def compact_file(version: DictionaryVersion) -> Path:
    """The gzipped compact word list of ``version``, made now if it is not there yet."""
    target = compact_path(version.path)
    if target.exists():
        return target
    with _building_lock:
        lock = _building.setdefault(version.path, threading.Lock())
    with lock:
        if not target.exists():
            write_atomically(target, _build(version))
    return target


def _build(version: DictionaryVersion) -> bytes:
    word_list = load_version(version)
    header = {
        "dictionary": version.dictionary.name,
        "version": version_tag(version),
        "words": len(word_list),
        "rules": word_list.rules.to_dict(),
    }
    text = compact.encode(word_list.trie.keys(), header)
    # mtime=0: the same version always gives the same bytes (and ETag).
    return gzip.compress(text.encode(), compresslevel=9, mtime=0)
