"""Compiling the definition sources the machine has into the files the site reads.

Each source is one file: English WordNet (``wordnet-base``) then GCIDE (``dict-gcide``, asked
only for words WordNet has nothing for), Dutch and French FreeDict's English translations
(``dict-freedict-nld-eng``, ``dict-freedict-fra-eng``). A missing package is reported and the
other sources are still built; a language without any then shows "no definition available"
with the Wiktionary link.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from meanings import dictd, freedict, gcide, wordnet
from meanings.store import (
    FORMAT,
    MAX_SENSES_PER_POS,
    DefinitionStore,
    Senses,
    fold,
    store_path,
    write_store,
)

# GCIDE's cross-reference: a sense that is only "See Abraid."
_SEE = re.compile(r"See ([A-Za-z]+)\.")


class SourceMissing(Exception):
    """A source's files are not installed; the message says which package to install."""


@dataclass(frozen=True)
class Source:
    name: str  # its file's name: the language ("en"), or "en-gcide" for a later source
    language: str
    kind: str  # "wordnet", "gcide" or "freedict"
    debian_package: str
    files: tuple[Path, ...]
    licence: str

    def missing(self) -> list[Path]:
        return [path for path in self.files if not path.is_file()]


def _wordnet_files(directory: Path) -> tuple[Path, ...]:
    names = [f"{kind}.{pos}" for pos in wordnet.DETACHMENT_RULES for kind in ("index", "data")]
    return tuple(
        directory / name for name in [*names, *(f"{pos}.exc" for pos in wordnet.DETACHMENT_RULES)]
    )


def sources(
    wordnet_dir: Path = wordnet.WORDNET_DIR, dictd_dir: Path = dictd.DICTD_DIR
) -> dict[str, Source]:
    """The sources by file name (a language's in look-up order: ``store.language_files``),
    looked for in these folders (Debian's by default)."""
    return {
        "en": Source(
            "en",
            "en",
            "wordnet",
            wordnet.DEBIAN_PACKAGE,
            _wordnet_files(wordnet_dir),
            "WordNet 3.0 licence (Princeton University; permissive, see the wordnet-base package)",
        ),
        "en-gcide": Source(
            "en-gcide",
            "en",
            "gcide",
            gcide.DEBIAN_PACKAGE,
            dictd.dictionary_files(gcide.DICTIONARY, dictd_dir),
            "GPL-2+ (GCIDE, the Collaborative International Dictionary of English; see the dict-gcide package)",
        ),
        "nl": Source(
            "nl",
            "nl",
            "freedict",
            "dict-freedict-nld-eng",
            dictd.dictionary_files("freedict-nld-eng", dictd_dir),
            "GPL (FreeDict Dutch-English; see the dict-freedict-nld-eng package)",
        ),
        "fr": Source(
            "fr",
            "fr",
            "freedict",
            "dict-freedict-fra-eng",
            dictd.dictionary_files("freedict-fra-eng", dictd_dir),
            "GPL-2+ (FreeDict French-English; see the dict-freedict-fra-eng package)",
        ),
    }


@dataclass(frozen=True)
class BuildResult:
    name: str
    path: Path
    compiled: bool  # False: the file was already up to date
    words: int
    size: int

    def summary(self) -> str:
        state = "compiled" if self.compiled else "up to date"
        return f"{self.name}: {state}, {self.words:,} words, {self.size / 1e6:.1f} MB ({self.path})"


def source_digest(source: Source) -> str:
    digest = hashlib.sha256(f"{FORMAT}:{MAX_SENSES_PER_POS}:{source.kind}".encode())
    for path in source.files:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def build(source: Source, directory: Path | None = None, force: bool = False) -> BuildResult:
    """Compile one source unless its file is up to date; raises SourceMissing."""
    missing = source.missing()
    if missing:
        raise SourceMissing(
            f"{source.name}: {missing[0]} is missing; install it with: "
            f"apt-get install {source.debian_package}"
        )
    target = store_path(source.name, directory)
    digest = source_digest(source)
    if not force and target.is_file():
        try:
            current = DefinitionStore(target)
            if current.meta.get("source_digest") == digest:
                return BuildResult(
                    source.name,
                    target,
                    False,
                    int(current.meta.get("entries", 0)),
                    target.stat().st_size,
                )
        except (OSError, RuntimeError, ValueError):
            pass  # unreadable: rebuild it
    meta = {
        "source": source.kind,
        "language": source.language,
        "licence": source.licence,
        "debian_package": source.debian_package,
        "source_digest": digest,
    }
    if source.kind == "wordnet":
        entries, exceptions, weights = compile_wordnet(source.files[0].parent)
        size = write_store(target, entries, {**meta, "morphy": True}, exceptions, weights)
    elif source.kind == "gcide":
        entries = compile_gcide(source.files[0], source.files[1])
        # morphy finds a form's lemmas in it too ("zaxes" -> "zax"), without irregular forms.
        size = write_store(target, entries, {**meta, "morphy": True, "word_first": True})
    else:
        entries = compile_freedict(source.files[0], source.files[1])
        size = write_store(target, entries, meta)
    return BuildResult(source.name, target, True, len(entries), size)


def compile_wordnet(
    directory: Path,
) -> tuple[
    dict[str, list[tuple[str, Senses]]], dict[str, dict[str, list[str]]], dict[str, dict[str, int]]
]:
    """The entries (single plain words only: what a board can spell), the irregular forms,
    and how common each lemma's parts of speech are (senses seen in WordNet's tagged texts)."""
    # lemma -> (tagged senses, part of speech, common senses, proper-noun senses)
    by_lemma: dict[str, list[tuple[int, str, list[str], list[str]]]] = defaultdict(list)
    for pos, label in wordnet.PARTS_OF_SPEECH.items():
        data = (directory / f"data.{pos}").read_bytes()
        for item in wordnet.read_index(directory / f"index.{pos}", pos):
            if not wordnet.is_plain_word(item.lemma):
                continue
            common: list[str] = []
            proper: list[str] = []
            for offset in item.offsets:
                words, gloss = wordnet.read_synset(data, offset)
                # "Wolf" (a composer) is a name, not the word a player spelled.
                (common if item.lemma in words else proper).append(gloss)
                if len(common) >= MAX_SENSES_PER_POS:
                    break
            by_lemma[item.lemma].append((item.tagged_senses, label, common, proper))
    entries: dict[str, list[tuple[str, Senses]]] = {}
    weights: dict[str, dict[str, int]] = {}
    for lemma, parts in by_lemma.items():
        # The part of speech seen most in WordNet's tagged texts first ("run": verb, then noun).
        parts.sort(key=lambda part: -part[0])
        senses = [(label, gloss) for _, label, common, _ in parts for gloss in common]
        if not senses:  # only ever a name ("mars"): better that than nothing
            senses = [(label, gloss) for _, label, _, proper in parts for gloss in proper[:1]]
        entries[lemma] = [(lemma, senses)]
        weights[lemma] = {label: tagged for tagged, label, _, _ in parts if tagged}
    exceptions: dict[str, dict[str, list[str]]] = defaultdict(dict)
    for pos, label in wordnet.PARTS_OF_SPEECH.items():
        for form, lemmas in wordnet.read_exceptions(directory / f"{pos}.exc").items():
            kept = [
                lemma
                for lemma in lemmas
                if lemma in entries and any(p == label for p, _ in entries[lemma][0][1])
            ]
            if wordnet.is_plain_word(form) and kept:
                exceptions[form][pos] = kept
    return entries, dict(exceptions), weights


def compile_freedict(index_path: Path, data_path: Path) -> dict[str, list[tuple[str, Senses]]]:
    """The entries by folded headword; capitalised headwords (names) only where no
    lower-case one has that spelling ("paris", bets, rather than Paris)."""
    entries: dict[str, list[tuple[str, Senses]]] = defaultdict(list)
    for index_headword, entry in freedict.read_dictionary(index_path, data_path):
        key = fold(index_headword)
        # Phrases ("a prima vista") and affixes ("huis-" with a Unicode hyphen) cannot be spelled on a board.
        if not key.isalpha() or fold(entry.headword) != key:
            continue
        senses = [(entry.part_of_speech, text) for text in entry.translations[:MAX_SENSES_PER_POS]]
        found = entries[key]
        same = next((item for item in found if item[0] == entry.headword), None)
        if same is not None:
            room = MAX_SENSES_PER_POS * 2 - len(same[1])
            same[1].extend([sense for sense in senses if sense not in same[1]][: max(room, 0)])
        else:
            found.append((entry.headword, senses))
    for key, found in entries.items():
        lower = [item for item in found if not item[0][:1].isupper()]
        entries[key] = lower or found
    return dict(entries)


def compile_gcide(index_path: Path, data_path: Path) -> dict[str, list[tuple[str, Senses]]]:
    """The entries of the headwords a board can spell (single words of letters a-z), a
    headword's parts of speech in GCIDE's order, at most three senses of each."""
    entries: dict[str, list[tuple[str, Senses]]] = defaultdict(list)
    for index_headword, entry in gcide.read_dictionary(index_path, data_path):
        key = index_headword.lower()
        if not wordnet.is_plain_word(key):
            continue
        # Webster's capitalises every headword ("Dog"): names cannot be told apart.
        headword = entry.headword.lower()
        senses = [(entry.part_of_speech, text) for text in entry.senses[:MAX_SENSES_PER_POS]]
        found = entries[key]
        same = next((item for item in found if item[0] == headword), None)
        if same is None:
            found.append((headword, senses))
            continue
        kept = sum(1 for part, _ in same[1] if part == entry.part_of_speech)
        room = MAX_SENSES_PER_POS - kept
        same[1].extend([sense for sense in senses if sense not in same[1]][: max(room, 0)])
    return {key: _follow_references(found, entries) for key, found in entries.items()}


def _follow_references(
    found: list[tuple[str, Senses]], entries: dict[str, list[tuple[str, Senses]]]
) -> list[tuple[str, Senses]]:
    """GCIDE's cross-references ("See Abraid.") are left out where a headword has senses of
    its own; a headword with nothing else gets the other headword's entries instead, as a
    form of it ("abray" -> "abraid")."""
    kept = [
        (headword, own)
        for headword, senses in found
        if (own := [sense for sense in senses if not _SEE.fullmatch(sense[1])])
    ]
    if kept:
        return kept
    reference = _SEE.fullmatch(found[0][1][0][1]) if found and found[0][1] else None
    target = entries.get(reference[1].lower(), []) if reference else []
    if target and all(not _SEE.fullmatch(text) for _, senses in target for _, text in senses):
        return target
    return found
