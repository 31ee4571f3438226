"""Named dictionaries: the English lists shipped in ``solver/wordlists/`` and the Dutch and
French lists that Debian's ``wdutch`` and ``wfrench`` packages install.

Compiled files are cached in a directory (``BOGGLE_DICTIONARY_DIR``, default
``<repository>/var/dictionaries``) and recompiled when their source or rules change.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from solver.compiler import CompileReport, compile_file, digest
from solver.errors import WordListError
from solver.wordlist import WordList, load_word_list, read_header
from solver.wordrules import WordRules

WORDLIST_DIR = Path(__file__).resolve().parent / "wordlists"
DEFAULT_CACHE_DIR = Path(__file__).resolve().parent.parent / "var" / "dictionaries"
DEFAULT_DICTIONARY = "english"
LEXICON_SUFFIX = ".lex"


@dataclass(frozen=True)
class NamedList:
    """A word list the project knows by name."""

    name: str
    title: str
    language: str
    source: Path
    origin: str
    licence: str
    rules: WordRules
    # The Debian package that installs ``source``, for lists not shipped in the repository.
    debian_package: str = ""


NAMED_LISTS: dict[str, NamedList] = {
    entry.name: entry
    for entry in (
        NamedList(
            name="english",
            title="English (broad word-game list)",
            language="en",
            source=WORDLIST_DIR / "english.txt.gz",
            origin="npm package word-list 4.1.0 (the Letterpress word list)",
            licence="MIT (solver/wordlists/LICENSE-english.txt)",
            rules=WordRules(),
        ),
        NamedList(
            name="english-common",
            title="English (common words)",
            language="en",
            source=WORDLIST_DIR / "english-common.txt.gz",
            origin="Debian package scowl 2020.12.07: SCOWL english and american words, size 35",
            licence="SCOWL licence (solver/wordlists/LICENSE-english-common.txt)",
            rules=WordRules(),
        ),
        NamedList(
            name="dutch",
            title="Nederlands",
            language="nl",
            source=Path("/usr/share/dict/dutch"),
            origin="Debian package wdutch (OpenTaal word list)",
            licence="BSD or CC BY 3.0 (see the wdutch package)",
            rules=WordRules(fold_accents=True),
            debian_package="wdutch",
        ),
        NamedList(
            name="french",
            title="Français",
            language="fr",
            source=Path("/usr/share/dict/french"),
            origin="Debian package wfrench",
            licence="GPL-2+ (see the wfrench package)",
            rules=WordRules(fold_accents=True),
            debian_package="wfrench",
        ),
    )
}
SHIPPED = tuple(name for name, entry in NAMED_LISTS.items() if not entry.debian_package)


def cache_dir() -> Path:
    """Where compiled dictionaries live (``BOGGLE_DICTIONARY_DIR`` or ``var/dictionaries``)."""
    configured = os.environ.get("BOGGLE_DICTIONARY_DIR")
    return Path(configured) if configured else DEFAULT_CACHE_DIR


def compiled_path(name: str) -> Path:
    return cache_dir() / f"{name}{LEXICON_SUFFIX}"


def get_named_list(name: str) -> NamedList:
    try:
        return NAMED_LISTS[name]
    except KeyError:
        known = ", ".join(NAMED_LISTS)
        raise WordListError(
            f"unknown dictionary {name!r}; known: {known}, or a file path"
        ) from None


def build(name: str, force: bool = False) -> CompileReport | None:
    """Compile a named list into the cache unless it is up to date.

    Returns the report, or None when the compiled file was already current.
    """
    entry = get_named_list(name)
    if not entry.source.exists():
        hint = (
            f"; install it with: apt-get install {entry.debian_package}"
            if entry.debian_package
            else ""
        )
        raise WordListError(f"the {name} word list {entry.source} is missing{hint}")
    target = compiled_path(name)
    if not force and _is_current(target, entry):
        return None
    return compile_file(entry.source, target, entry.rules, name=name)


def load(name_or_path: str | Path) -> WordList:
    """A word list by name (compiled on first use), ``.lex`` file, or plain word-list file.

    A plain word list is compiled with the default rules and cached by its content.
    """
    text = str(name_or_path)
    if text in NAMED_LISTS:
        build(text)
        return load_word_list(compiled_path(text))
    path = Path(text)
    if not path.is_file():
        known = ", ".join(NAMED_LISTS)
        raise WordListError(f"no dictionary named {text!r} and no such file (known: {known})")
    if path.suffix == LEXICON_SUFFIX:
        return load_word_list(path)
    rules = WordRules()
    fingerprint = digest(path.read_bytes(), rules)
    target = cache_dir() / "files" / f"{fingerprint[:32]}{LEXICON_SUFFIX}"
    if not target.exists():
        compile_file(path, target, rules, name=path.name)
    return load_word_list(target)


def _is_current(target: Path, entry: NamedList) -> bool:
    if not target.exists():
        return False
    try:
        header = read_header(target)
    except WordListError:
        return False
    return header.get("source_sha256") == digest(entry.source.read_bytes(), entry.rules)
