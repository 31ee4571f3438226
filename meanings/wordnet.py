"""Reading WordNet 3.0's database files and finding a word's lemmas (WordNet's ``morphy``).

The files are Debian ``wordnet-base``'s (``/usr/share/wordnet``): ``index.POS`` lists each
lemma with its synsets, most frequent sense first; ``data.POS`` holds each synset's gloss at
a byte offset; ``POS.exc`` maps irregular forms to their lemmas ("wolves wolf").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

WORDNET_DIR = Path("/usr/share/wordnet")
DEBIAN_PACKAGE = "wordnet-base"

# WordNet's file suffixes and the part of speech shown to players.
PARTS_OF_SPEECH = {"noun": "noun", "verb": "verb", "adj": "adjective", "adv": "adverb"}

# morphy's detachment rules (WordNet's morph.c): suffix -> replacement, tried in order.
DETACHMENT_RULES: dict[str, tuple[tuple[str, str], ...]] = {
    "noun": (
        ("s", ""),
        ("ses", "s"),
        ("xes", "x"),
        ("zes", "z"),
        ("ches", "ch"),
        ("shes", "sh"),
        ("men", "man"),
        ("ies", "y"),
    ),
    "verb": (
        ("s", ""),
        ("ies", "y"),
        ("es", "e"),
        ("es", ""),
        ("ed", "e"),
        ("ed", ""),
        ("ing", "e"),
        ("ing", ""),
    ),
    "adj": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "adv": (),
}

# Only single words of plain letters can be spelled on a board ("dog", not "hot_dog").
_PLAIN_WORD = re.compile(r"[a-z]+")


@dataclass(frozen=True)
class IndexEntry:
    lemma: str
    pos: str
    # Synset offsets in data.POS, most frequent sense first.
    offsets: tuple[int, ...]
    # How many of its senses were seen in WordNet's tagged texts: orders the parts of speech.
    tagged_senses: int


def is_plain_word(word: str) -> bool:
    return _PLAIN_WORD.fullmatch(word) is not None


def read_index(path: Path, pos: str) -> Iterator[IndexEntry]:
    """The lemmas of one ``index.POS`` file (licence lines, which start with spaces, skipped).

    Line format: lemma pos synset_cnt p_cnt [ptr_symbol]... sense_cnt tagsense_cnt offset...
    """
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.startswith(" "):
                continue
            fields = line.split()
            synsets = int(fields[2])
            pointers = int(fields[3])
            tagged = int(fields[5 + pointers])
            offsets = tuple(int(field) for field in fields[6 + pointers : 6 + pointers + synsets])
            yield IndexEntry(fields[0], pos, offsets, tagged)


def read_synset(data: bytes, offset: int) -> tuple[tuple[str, ...], str]:
    """The words and the definition of the synset at ``offset`` of a ``data.POS`` file's
    bytes. Words keep their case ("Wolf" names a composer); the definition is the gloss after
    "|" up to its first quoted example.

    Line format: offset lex_filenum ss_type w_cnt(hex) [word lex_id]... p_cnt ... | gloss
    """
    end = data.index(b"\n", offset)
    line = data[offset:end].decode("utf-8")
    head, _, gloss = line.partition(" | ")
    fields = head.split()
    count = int(fields[3], 16)
    # Adjectives may carry a syntactic marker: "galore(ip)".
    words = tuple(fields[4 + 2 * i].split("(")[0] for i in range(count))
    gloss = gloss.strip()
    # Examples follow the definition as '; "..."'; players want the definition.
    definition = re.split(r';\s*"', gloss, maxsplit=1)[0].strip().rstrip(";").strip()
    return words, definition or gloss


def read_exceptions(path: Path) -> dict[str, tuple[str, ...]]:
    """An exception list: irregular form -> its lemmas ("better" -> ("good", "well"))."""
    exceptions: dict[str, tuple[str, ...]] = {}
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            fields = line.split()
            if len(fields) >= 2:
                exceptions[fields[0]] = exceptions.get(fields[0], ()) + tuple(fields[1:])
    return exceptions


def morphy(
    word: str,
    is_lemma: Callable[[str, str], bool],
    exceptions: Callable[[str, str], Iterable[str]],
) -> list[tuple[str, str]]:
    """The (lemma, part of speech) pairs a word may be a form of, as WordNet's morphy finds
    them: the word itself, the exception lists' lemmas, then the detachment rules' results,
    each kept only when it is a lemma of that part of speech. ``is_lemma(lemma, pos)`` and
    ``exceptions(word, pos)`` read the data (pos: noun, verb, adj, adv)."""
    found: list[tuple[str, str]] = []

    def keep(candidate: str, pos: str) -> None:
        if (candidate, pos) not in found and is_lemma(candidate, pos):
            found.append((candidate, pos))

    for pos, rules in DETACHMENT_RULES.items():
        keep(word, pos)
        irregular = list(exceptions(word, pos))
        for lemma in irregular:
            keep(lemma, pos)
        if irregular:
            continue  # morph.c: an irregular form is not detached too
        # morph.c: a noun ending in "ss" ("glass") or of two letters is never detached.
        if pos == "noun" and (word.endswith("ss") or len(word) <= 2):
            continue
        for suffix, ending in rules:
            if word.endswith(suffix) and len(word) > len(suffix):
                keep(word[: -len(suffix)] + ending, pos)
    return found
