"""The compiled definitions for tests that read the real sources (Debian's wordnet-base,
dict-gcide, dict-freedict-nld-eng, dict-freedict-fra-eng): built once into the default folder, which
the test server reads too. Without a package those tests skip, saying which one to
install, except under CI=true, where they fail (CI must not pass without them)."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

from boggle_site.env import get_bool
from meanings import dictd
from meanings.build import build, sources
from meanings.store import definitions_dir

# Languages built (or found current) in this test process: checked once, not per test.
_ready: set[str] = set()
HINT = (
    "apt-get install wordnet-base dict-gcide dict-freedict-nld-eng dict-freedict-fra-eng"
    " (bin/test does it as root)"
)


def require_definitions(*languages: str) -> Path:
    """Build these files (a no-op when current; a language's name, or a later source's
    such as "en-gcide") and return their folder."""
    known = sources()
    for language in languages:
        if language in _ready:
            continue
        source = known[language]
        missing = source.missing()
        if missing:
            message = f"{missing[0]} is missing (Debian {source.debian_package}): {HINT}"
            if get_bool(os.environ, "CI"):
                pytest.fail(f"{message}. CI=true: the definition tests must run.")
            pytest.skip(message)
        build(source, definitions_dir())
        _ready.add(language)
    return definitions_dir()


def encode(number: int) -> str:
    """A dictd index number in base 64 (what ``dictd.decode_number`` reads)."""
    digits = ""
    while True:
        digits = dictd.B64_DIGITS[number % 64] + digits
        number //= 64
        if not number:
            return digits


def write_dictd_files(
    folder: Path, name: str, entries: list[tuple[str, str]], header: str
) -> tuple[Path, Path]:
    """A dictd index (``header`` its first line) and gzipped data file of ``entries``
    (headword, text) in ``folder``."""
    index, data = dictd.dictionary_files(name, folder)
    body = b""
    lines = [header]
    for headword, text in entries:
        raw = text.encode()
        lines.append(f"{headword}\t{encode(len(body))}\t{encode(len(raw))}")
        body += raw
    index.write_text("\n".join(lines) + "\n", encoding="utf-8")
    data.write_bytes(gzip.compress(body))
    return index, data
