"""Reading a FreeDict dictionary in the dictd format (Debian ``dict-freedict-*``).

A dictionary is two files in ``/usr/share/dictd``: ``NAME.index``, one line per headword,
"headword<TAB>offset<TAB>length" with the numbers in dictd's base 64, and ``NAME.dict.dz``,
the entries' text, gzip-compressed (dictzip is gzip with a seek table; Python reads it as
gzip). An entry reads::

    abattis /abati/ <n, masc>
    1. debris, rubbish, rubble
    2.  [cul] giblets

(one translation line without a number when there is one sense).
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

DICTD_DIR = Path("/usr/share/dictd")
B64_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64_VALUE = {digit: value for value, digit in enumerate(B64_DIGITS)}

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


def decode_number(text: str) -> int:
    """A dictd index number: base 64, most significant digit first ("8m" -> 2022)."""
    value = 0
    for digit in text:
        value = value * 64 + _B64_VALUE[digit]
    return value


def read_index(path: Path) -> Iterator[tuple[str, int, int]]:
    """(headword, offset, length) for each line of a ``.index`` file, dictd's own
    ``00database...`` entries left out."""
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 3 or fields[0].startswith("00database"):
                continue
            yield fields[0].strip(), decode_number(fields[1]), decode_number(fields[2])


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
    with gzip.open(data_path) as compressed:
        data = compressed.read()
    for headword, offset, length in read_index(index_path):
        entry = parse_entry(data[offset : offset + length].decode("utf-8", errors="replace"))
        if entry is not None:
            yield headword, entry


def dictionary_files(name: str, directory: Path = DICTD_DIR) -> tuple[Path, Path]:
    """The index and data files of a dictd dictionary, e.g. ``freedict-nld-eng``."""
    return directory / f"{name}.index", directory / f"{name}.dict.dz"
