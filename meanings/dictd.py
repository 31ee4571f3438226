"""Reading a dictionary in the dictd format (Debian ``dict-freedict-*``, ``dict-gcide``).

A dictionary is two files in ``/usr/share/dictd``: ``NAME.index``, one line per headword,
"headword<TAB>offset<TAB>length" with the numbers in dictd's base 64, and ``NAME.dict.dz``,
the entries' text, gzip-compressed (dictzip is gzip with a seek table; Python reads it as
gzip). Several index lines may point at one entry, and an index line's headword need not
be the entry's own (GCIDE indexes a word mentioned in another's entry).
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path

DICTD_DIR = Path("/usr/share/dictd")
B64_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64_VALUE = {digit: value for value, digit in enumerate(B64_DIGITS)}
# dictd's own entries about the dictionary: "00databaseinfo", "00-database-short", "00-gcide-url".
_DATABASE_ENTRIES = ("00database", "00-")


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
            if len(fields) != 3 or fields[0].startswith(_DATABASE_ENTRIES):
                continue
            yield fields[0].strip(), decode_number(fields[1]), decode_number(fields[2])


def read_entries(index_path: Path, data_path: Path) -> Iterator[tuple[str, str]]:
    """(index headword, entry text) for every line of the index."""
    with gzip.open(data_path) as compressed:
        data = compressed.read()
    for headword, offset, length in read_index(index_path):
        yield headword, data[offset : offset + length].decode("utf-8", errors="replace")


def dictionary_files(name: str, directory: Path = DICTD_DIR) -> tuple[Path, Path]:
    """The index and data files of a dictd dictionary, e.g. ``freedict-nld-eng``."""
    return directory / f"{name}.index", directory / f"{name}.dict.dz"
