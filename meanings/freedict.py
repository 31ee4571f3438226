"""Reading a FreeDict dictionary (Debian ``dict-freedict-*``; the dictd files are read by
``meanings.dictd``). An entry reads::

    abattis /abati/ <n, masc>
    1. debris, rubbish, rubble
    2.  [cul] giblets

(one translation line without a number when there is one sense).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from meanings.dictd import read_entries

# FreeDict's grammar tags and the part of speech shown to players.
PARTS_OF_SPEECH = {
    "n": "noun",
    "v": "verb",
    "vt": "verb",
    "vi": "verb",
    "adj": "adjective",
    "adv": "adverb",
    "prep": "preposition",
    "num": "numeral",
    "pron": "pronoun",
    "int": "interjection",
    "conj": "conjunction",
    "art": "article",
}
GENDERS = {"masc": "masculine", "fem": "feminine", "neut": "neuter"}

_HEAD_LINE = re.compile(r"^(?P<head>.*?)\s*(?:/[^/]*/)?\s*(?:<(?P<grammar>[^>]*)>)?\s*$")
_NUMBERED = re.compile(r"^\s*\d+\.\s*")


@dataclass(frozen=True)
class FreeDictEntry:
    headword: str
    part_of_speech: str
    translations: tuple[str, ...]


def parse_entry(text: str) -> FreeDictEntry | None:
    """One entry's text: its head line (headword, pronunciation, grammar) and its
    translations, one per numbered line or the single line."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if len(lines) < 2:
        return None
    match = _HEAD_LINE.match(lines[0])
    headword = match["head"].strip() if match else lines[0]
    grammar = (match["grammar"] or "") if match else ""
    tags = [tag.strip() for tag in grammar.split(",") if tag.strip()]
    part = PARTS_OF_SPEECH.get(tags[0], tags[0]) if tags else ""
    genders = [GENDERS[tag] for tag in tags[1:] if tag in GENDERS]
    if genders:
        part = f"{part}, {' '.join(genders)}"
    translations = tuple(
        cleaned for line in lines[1:] if (cleaned := _NUMBERED.sub("", line).strip())
    )
    if not translations:
        return None
    return FreeDictEntry(headword, part, translations)


def read_dictionary(index_path: Path, data_path: Path) -> Iterator[tuple[str, FreeDictEntry]]:
    """(index headword, entry) for every entry of a dictionary."""
    for headword, text in read_entries(index_path, data_path):
        entry = parse_entry(text)
        if entry is not None:
            yield headword, entry
