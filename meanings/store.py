"""The compiled definitions file and looking a word up in it.

One file per source, ``<language>.defs`` in the definitions directory (and ``en-gcide.defs``,
asked for English words ``en.defs`` has nothing for: ``language_files``): a marisa-trie
``BytesTrie``, memory-mapped on load (every process shares its pages; opening costs a few
milliseconds). Its keys are a one-letter kind then a word folded to what a board can spell
(lower case, no accents):

- ``e<word>``: where the word's entries are (block number, line in the block) and the parts
  of speech it has as a bit mask, so WordNet's morphy tests candidates without reading text;
- ``b<number>``: a block of entries, zlib-compressed, one JSON line per word:
  ``[[headword, [[pos, text], ...]], ...]`` (several headwords fold to one key: French "a"
  and "à"). Compressing 16 KiB blocks rather than single entries makes the file a third
  of the size; a look-up inflates one block (some 40 µs);
- ``x<word>``: WordNet's irregular forms, JSON ``{"noun": ["wolf"], ...}`` (English only);
- ``m``: what the file holds, JSON (source, language, licence, counts).
"""

from __future__ import annotations

import json
import os
import struct
import threading
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import marisa_trie

from meanings import inflections, wordnet
from solver.wordrules import fold_accents

DEFAULT_DIR = Path(__file__).resolve().parent.parent / "var" / "definitions"
SUFFIX = ".defs"
# A file's layout version: a file of another one is rebuilt, never misread.
FORMAT = 3
# Senses kept per headword and part of speech (the site shows three).
MAX_SENSES_PER_POS = 3
# Senses a look-up returns.
MAX_SENSES = 6
# Uncompressed bytes of entries per compressed block.
BLOCK_BYTES = 16 * 1024

_ENTRY = "e"
_BLOCK = "b"
_EXCEPTIONS = "x"
_META = "m"
# An entry's pointer: block number, line in the block, parts-of-speech bit mask.
_POINTER = struct.Struct("<IHB")
_POS_BITS = {label: 1 << bit for bit, label in enumerate(wordnet.PARTS_OF_SPEECH.values())}


@dataclass(frozen=True)
class Sense:
    part_of_speech: str
    text: str
    lemma: str


@dataclass(frozen=True)
class Entry:
    """What a file says about a word: its lemma (the first one), the senses (of every lemma
    it may be a form of, each lemma's first sense first) and the file's source."""

    word: str
    lemma: str
    senses: tuple[Sense, ...]
    source: str
    lemmas: tuple[str, ...] = field(default=())


def definitions_dir() -> Path:
    """Where compiled definitions live (``BOGGLE_DEFINITIONS_DIR`` or ``var/definitions``)."""
    configured = os.environ.get("BOGGLE_DEFINITIONS_DIR")
    return Path(configured) if configured else DEFAULT_DIR


def store_path(name: str, directory: Path | None = None) -> Path:
    """A compiled file: ``name`` is a language ("en") or a later source of one ("en-gcide")."""
    return (directory or definitions_dir()) / f"{name}{SUFFIX}"


# A language's files in look-up order: a later one is asked only when the earlier ones have
# nothing for a word (English: WordNet, then GCIDE for the word-game words WordNet lacks).
LATER_SOURCES = {"en": ("en-gcide",)}


def language_files(language: str) -> tuple[str, ...]:
    """The names of a language's files (``store_path``), in look-up order."""
    return (language, *LATER_SOURCES.get(language, ()))


def fold(word: str) -> str:
    """The key of a word: lower case without accents, as boards spell it ("élève" -> "eleve")."""
    text = fold_accents(word.strip().lower())
    return text.replace("œ", "oe").replace("æ", "ae").replace("ß", "ss")


def _json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


Senses = list[tuple[str, str]]  # (part of speech, text), most frequent first


def write_store(
    path: Path,
    entries: Mapping[str, list[tuple[str, Senses]]],
    meta: Mapping[str, Any],
    exceptions: Mapping[str, Mapping[str, Iterable[str]]] | None = None,
    weights: Mapping[str, Mapping[str, int]] | None = None,
) -> int:
    """Write a file: ``entries`` maps a folded key to its (headword, senses) list,
    ``exceptions`` a folded irregular form to {pos: lemmas}, ``weights`` a key to how common
    each of its parts of speech is (WordNet's tagged senses: "sang" the verb before the herb). Written to a temporary name,
    then renamed, so a reader never sees half a file. Returns its size in bytes."""
    items: list[tuple[str, bytes]] = []
    block: list[bytes] = []
    size = 0

    def flush() -> None:
        nonlocal block, size
        if block:
            items.append((f"{_BLOCK}{blocks}", zlib.compress(b"\n".join(block), 9)))
            block, size = [], 0

    blocks = 0
    kept = 0
    for key in sorted(entries):  # neighbours share words: blocks compress better
        found = entries[key]
        if not found:
            continue
        line = _json(
            [[headword, [list(sense) for sense in senses]] for headword, senses in found]
            + ([dict((weights or {})[key])] if key in (weights or {}) else [])
        )
        mask = 0
        for _, senses in found:
            for part, _ in senses:
                mask |= _POS_BITS.get(part, 0)
        items.append((_ENTRY + key, _POINTER.pack(blocks, len(block), mask)))
        block.append(line)
        size += len(line)
        kept += 1
        if size >= BLOCK_BYTES:
            flush()
            blocks += 1
    flush()
    for key, by_pos in (exceptions or {}).items():
        items.append(
            (_EXCEPTIONS + key, _json({pos: list(lemmas) for pos, lemmas in by_pos.items()}))
        )
    items.append((_META, _json({**meta, "format": FORMAT, "entries": kept})))
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    marisa_trie.BytesTrie(items).save(str(temporary))
    os.replace(temporary, path)
    return path.stat().st_size


class DefinitionStore:
    """One compiled file, memory-mapped; look-ups are safe from any thread."""

    # Inflated blocks kept per file: the words of one board fall in a few dozen blocks.
    CACHED_BLOCKS = 64

    def __init__(self, path: Path) -> None:
        self.path = path
        self._trie = marisa_trie.BytesTrie()
        self._trie.mmap(str(path))
        values = self._trie.get(_META)
        self.meta: dict[str, Any] = json.loads(values[0]) if values else {}
        if self.meta.get("format") != FORMAT:
            raise ValueError(f"{path}: format {self.meta.get('format')}, expected {FORMAT}")
        self._block = lru_cache(maxsize=self.CACHED_BLOCKS)(self._read_block)

    @property
    def source(self) -> str:
        return str(self.meta.get("source", ""))

    def _read_block(self, number: int) -> list[bytes]:
        return zlib.decompress(self._trie[f"{_BLOCK}{number}"][0]).split(b"\n")

    def _pointer(self, key: str) -> tuple[int, int, int] | None:
        values = self._trie.get(_ENTRY + key)
        return _POINTER.unpack(values[0]) if values else None

    def _entries(self, key: str) -> tuple[list[tuple[str, Senses]], dict[str, int]]:
        """The headwords of a key with their senses, and how common each part of speech is."""
        pointer = self._pointer(key)
        if pointer is None:
            return [], {}
        items = json.loads(self._block(pointer[0])[pointer[1]])
        weights = items.pop() if items and isinstance(items[-1], dict) else {}
        return [(headword, [(p, t) for p, t in senses]) for headword, senses in items], weights

    def _exceptions(self, key: str) -> dict[str, list[str]]:
        values = self._trie.get(_EXCEPTIONS + key)
        return json.loads(values[0]) if values else {}

    def has_word(self, word: str) -> bool:
        return (_ENTRY + fold(word)) in self._trie

    def _is_lemma(self, lemma: str, pos: str) -> bool:
        pointer = self._pointer(lemma)
        return pointer is not None and bool(pointer[2] & _POS_BITS[wordnet.PARTS_OF_SPEECH[pos]])

    def lemmas(self, word: str) -> list[tuple[str, str]]:
        """(lemma, pos) pairs the word may be a form of: WordNet's morphy when the file has
        irregular forms (English; the word's own entry first, of any part of speech, when
        the file says ``word_first``: GCIDE), else the word itself when it has an entry, else the
        lemmas its regular endings point to (``meanings.inflections``; pos is "")."""
        key = fold(word)
        if not self.meta.get("morphy"):
            if self.has_word(key):
                return [(key, "")]
            language = str(self.meta.get("language", ""))
            return [(lemma, "") for lemma in inflections.guess_lemmas(key, language, self.has_word)]
        found = wordnet.morphy(
            key, self._is_lemma, lambda form, pos: self._exceptions(form).get(pos, ())
        )
        if self.meta.get("word_first") and self.has_word(key):
            # The word's own entry whole, then the lemmas: GCIDE's "amid" is a preposition,
            # a part of speech morphy does not know.
            found = [(key, ""), *(pair for pair in found if pair[0] != key)]
        return found

    def lookup(self, word: str) -> Entry | None:
        """The meanings of ``word`` (any form morphy resolves), or None."""
        key = fold(word)
        pairs = self.lemmas(key)
        if not pairs:
            return None
        # Groups of senses, one per (headword, part of speech), the commonest first (WordNet's
        # tagged senses: "sang" is "sing" before the herb); on a tie, morphy's order.
        groups: list[tuple[int, list[Sense]]] = []
        seen: set[tuple[str, str]] = set()
        for lemma, pos in pairs:
            wanted = wordnet.PARTS_OF_SPEECH.get(pos)
            found, weights = self._entries(lemma)
            for headword, senses in found:
                for part in dict.fromkeys(p for p, _ in senses):
                    if (wanted and part != wanted) or (headword, part) in seen:
                        continue
                    seen.add((headword, part))
                    group = [Sense(p, t, headword) for p, t in senses if p == part]
                    groups.append((-weights.get(part, 0), group))
        groups.sort(key=lambda item: item[0])  # stable: ties keep morphy's order
        lemmas = list(dict.fromkeys(group[0].lemma for _, group in groups))
        # Each group's best sense first, then the second ones...: a form of two lemmas
        # ("saw": the tool, and "see") shows both in its first senses.
        ordered: list[Sense] = []
        depth = max((len(group) for _, group in groups), default=0)
        for rank in range(depth):
            ordered.extend(group[rank] for _, group in groups if rank < len(group))
        if not ordered:
            return None
        return Entry(
            word=key,
            lemma=lemmas[0],
            senses=tuple(ordered[:MAX_SENSES]),
            source=self.source,
            lemmas=tuple(lemmas),
        )


_open: dict[Path, tuple[float, DefinitionStore | None]] = {}
_lock = threading.Lock()


def open_store(name: str, directory: Path | None = None) -> DefinitionStore | None:
    """A compiled file (``store_path``), loaded once per process (again when rebuilt), or
    None when there is none (its Debian package was not installed at build time)."""
    path = store_path(name, directory)
    try:
        stamp = path.stat().st_mtime
    except OSError:
        return None
    with _lock:
        cached = _open.get(path)
        if cached and cached[0] == stamp:
            return cached[1]
    try:
        store: DefinitionStore | None = DefinitionStore(path)
    except (OSError, RuntimeError, ValueError, zlib.error):
        store = None  # a damaged file: no definitions rather than a server error
    with _lock:
        _open[path] = (stamp, store)
    return store


def lookup(language: str, word: str, directory: Path | None = None) -> Entry | None:
    """The meanings of ``word`` in ``language`` ("en", "nl", "fr"), or None: from the
    language's first file that has any (English: WordNet, else GCIDE)."""
    for name in language_files(language):
        store = open_store(name, directory)
        entry = store.lookup(word) if store else None
        if entry is not None:
            return entry
    return None
