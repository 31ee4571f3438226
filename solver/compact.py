"""A word list as compact text for a browser to download and keep (offline practice).

The words sorted, each written as how many letters it shares with the word before it and
the letters that follow ("front coding"): ``cat``, ``cats``, ``catsup`` become ``0cat``,
``3s``, ``4up``. English's 270,000 words take about a third of their plain size, and gzip
(the server sends it gzipped) halves that again. The browser rebuilds its trie from the
lines in one pass: every line adds a branch to the path of the word before it.

Layout (UTF-8 text, lines separated by ``\\n``)::

    BOGGLE-WORDS 1
    {"name": "english", ...}      one line of JSON: what the list is, and its rules
    0aah
    3ed
    ...

The shared length is one character of ``SHARED_DIGITS`` (0-9 then A-Z: at most 35); a
longer shared start is written as 35 and the rest of it repeated in the letters.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from solver.errors import WordListError

MAGIC = "BOGGLE-WORDS 1"
SHARED_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
MAX_SHARED = len(SHARED_DIGITS) - 1


def encode(words: Iterable[str], header: dict) -> str:
    """The compact text of ``words`` (any order; duplicates once) with ``header`` (JSON)."""
    lines = [MAGIC, json.dumps(header, ensure_ascii=False, separators=(",", ":"), sort_keys=True)]
    previous = ""
    for word in sorted(set(words)):
        if not word or "\n" in word or any(ord(letter) > 0xFFFF for letter in word):
            # A browser counts letters in UTF-16 units: outside the BMP they would not match.
            raise WordListError(f"{word!r} cannot be written in a compact word list")
        shared = min(_shared_length(previous, word), MAX_SHARED)
        lines.append(SHARED_DIGITS[shared] + word[shared:])
        previous = word
    return "\n".join(lines) + "\n"


def decode(text: str) -> tuple[dict, list[str]]:
    """The header and the words (sorted) of a compact text; WordListError if malformed."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    if len(lines) < 2 or lines[0] != MAGIC:
        raise WordListError("not a compact word list")
    try:
        header = json.loads(lines[1])
    except ValueError:
        raise WordListError("a compact word list with a broken header") from None
    words: list[str] = []
    previous = ""
    for number, line in enumerate(lines[2:], start=3):
        shared = SHARED_DIGITS.find(line[:1]) if line else -1
        if shared < 0 or shared > len(previous) or len(line) < 2:
            raise WordListError(f"line {number} of a compact word list is malformed")
        previous = previous[:shared] + line[1:]
        words.append(previous)
    return header, words


def _shared_length(first: str, second: str) -> int:
    length = 0
    for a, b in zip(first, second, strict=False):
        if a != b:
            break
        length += 1
    return length
