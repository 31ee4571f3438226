"""Where the dictionaries' files live: the dictionary directory (compiled ``.lex`` files and
the ``uploads/`` folder), a version's file, the file of a named list, and writing a file
whole or not at all. Used by ``services`` (uploads), ``compiling`` and ``retention``.
"""

from __future__ import annotations

import os
from pathlib import Path

from django.conf import settings

from dictionaries.exceptions import UnusableWordList
from dictionaries.models import DictionaryVersion
from solver import dictionaries as named_lists
from solver.wordlist import WordList, load_word_list

# Uploaded word lists are kept under this folder of the dictionary directory.
UPLOAD_FOLDER = "uploads"


def dictionary_dir() -> Path:
    """Where compiled dictionaries and uploads live (shared by web processes and workers)."""
    return Path(settings.BOGGLE_DICTIONARY_DIR)


def version_path(version: DictionaryVersion) -> Path:
    return dictionary_dir() / version.path


# A version's compact word list for browsers (dictionaries.compact) sits beside its file
# under this suffix, and is deleted with it (retention).
COMPACT_SUFFIX = ".words.gz"


def compact_path(version_file: str) -> Path:
    """Where the compact word list of the version stored as ``version_file`` is kept."""
    return dictionary_dir() / f"{version_file}{COMPACT_SUFFIX}"


def load_version(version: DictionaryVersion) -> WordList:
    """Load a version's compiled file (uncached; ``games.room_dictionaries`` caches for play)."""
    return load_word_list(version_path(version))


def check_named_list(name: str) -> named_lists.NamedList:
    """The named list, if its file is there; UnusableWordList otherwise, saying which Debian
    package installs it. WordListError for an unknown name."""
    entry = named_lists.get_named_list(name)
    if not entry.source.exists():
        hint = f"; install it with: apt-get install {entry.debian_package}"
        raise UnusableWordList(
            f"the {name} word list {entry.source} is missing"
            + (hint if entry.debian_package else "")
        )
    return entry


def write_atomically(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, target)
