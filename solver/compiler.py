"""Compile a word list into a lexicon: the marisa-trie word set plus the solver's node table.

Reading: plain text or gzip, UTF-8 or Latin-1, one word per line; blank lines and lines
starting with "#" are ignored. Every other line is kept or dropped by ``wordrules``; the
``CompileReport`` counts both, with examples of each reason.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import zlib
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import marisa_trie

from solver.errors import LexiconError
from solver.lexicon import Lexicon, write_lexicon
from solver.wordrules import DropReason, LexiconRules, normalise_word

# How many dropped words to keep as examples for each reason.
EXAMPLES_PER_REASON = 5
# Refuse word lists larger than this (bytes, after decompression): no real list comes close.
MAX_WORDLIST_BYTES = 64 * 1024 * 1024
GZIP_MAGIC = b"\x1f\x8b"


@dataclass
class CompileReport:
    """What compiling a word list kept and dropped, and why."""

    lines: int = 0
    ignored_lines: int = 0
    kept: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def drop(self, reason: DropReason, raw: str) -> None:
        self.dropped[reason.value] = self.dropped.get(reason.value, 0) + 1
        examples = self.examples.setdefault(reason.value, [])
        if len(examples) < EXAMPLES_PER_REASON:
            examples.append(raw)

    @property
    def dropped_total(self) -> int:
        return sum(self.dropped.values())

    def to_dict(self) -> dict:
        return {
            "lines": self.lines,
            "ignored_lines": self.ignored_lines,
            "kept": self.kept,
            "dropped": dict(self.dropped),
            "examples": {key: list(value) for key, value in self.examples.items()},
        }

    def summary(self) -> str:
        """A few human-readable lines."""
        out = [f"{self.kept} words kept, {self.dropped_total} dropped"]
        for reason, count in sorted(self.dropped.items(), key=lambda item: -item[1]):
            examples = ", ".join(self.examples.get(reason, []))
            out.append(f"  {count:>8}  {reason}  (e.g. {examples})")
        return "\n".join(out)


def read_wordlist_bytes(data: bytes) -> list[str]:
    """Decode a word list: gunzip if needed, UTF-8 or else Latin-1; return its lines.

    Raises LexiconError for binary data, corrupt gzip or oversize input.
    """
    if data[:2] == GZIP_MAGIC:
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
                data = stream.read(MAX_WORDLIST_BYTES + 1)
        except (OSError, EOFError, zlib.error) as error:
            raise LexiconError(f"the gzip file is corrupt: {error}") from None
    if len(data) > MAX_WORDLIST_BYTES:
        raise LexiconError(f"the word list is larger than {MAX_WORDLIST_BYTES // 2**20} MiB")
    if b"\x00" in data:
        raise LexiconError("this is a binary file, not a word list (one word per line)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return text.splitlines()


def read_wordlist(path: str | Path) -> list[str]:
    """Read a word-list file (see ``read_wordlist_bytes``)."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_WORDLIST_BYTES:
            raise LexiconError(f"{path.name} is larger than {MAX_WORDLIST_BYTES // 2**20} MiB")
        return read_wordlist_bytes(path.read_bytes())
    except OSError as error:
        raise LexiconError(f"cannot read word list {path}: {error.strerror}") from None


def select_words(lines: Iterable[str], rules: LexiconRules) -> tuple[list[str], CompileReport]:
    """Apply the rules to every line; return the kept words (sorted, unique) and the report."""
    report = CompileReport()
    kept: set[str] = set()
    for line in lines:
        report.lines += 1
        entry = line.strip()
        if not entry or entry.startswith("#"):
            report.ignored_lines += 1
            continue
        word, reason = normalise_word(entry, rules)
        if reason is not None:
            report.drop(reason, entry)
        elif word in kept:
            report.drop(DropReason.DUPLICATE, entry)
        else:
            assert word is not None  # normalise_word gives (word, None) or (None, reason)
            kept.add(word)
    report.kept = len(kept)
    return sorted(kept), report


def compile_lexicon(
    lines: Iterable[str], rules: LexiconRules, name: str = "", source_digest: str = ""
) -> tuple[Lexicon, CompileReport]:
    """Compile word-list lines into an in-memory Lexicon (and its report)."""
    words, report = select_words(lines, rules)
    if not words:
        raise LexiconError("no usable words: every line was blank, a comment or dropped")
    trie = marisa_trie.Trie(words)
    table, root = build_node_table(words, trie, rules.alphabet)
    meta = {
        "name": name,
        "rules": rules.to_dict(),
        "report": report.to_dict(),
        "source_sha256": source_digest,
    }
    return Lexicon(trie, table, root, rules, meta), report


def compile_file(
    source: str | Path, target: str | Path, rules: LexiconRules, name: str = ""
) -> CompileReport:
    """Compile a word-list file to a lexicon file; return the report."""
    try:
        data = Path(source).read_bytes()
    except OSError as error:
        raise LexiconError(f"cannot read word list {source}: {error.strerror}") from None
    lexicon, report = compile_lexicon(
        read_wordlist_bytes(data), rules, name=name, source_digest=digest(data, rules)
    )
    write_lexicon(lexicon, target)
    return report


def digest(data: bytes, rules: LexiconRules) -> str:
    """A fingerprint of a word list and its rules: a compiled file is stale when it differs."""
    hasher = hashlib.sha256(data)
    hasher.update(repr(sorted(rules.to_dict().items())).encode())
    return hasher.hexdigest()


def build_node_table(words: list[str], trie: marisa_trie.Trie, alphabet: str) -> tuple[array, int]:
    """Lay the words out as the flat trie that ``solve`` walks.

    The table is rows of ``len(alphabet) + 1`` int32 slots, one row per node with children.
    Slot ``s`` of a row holds the child reached by letter ``s``: the child's row *offset* in
    the table (> 0) if it has children of its own, ``-(word_id + 1)`` if it is a leaf (always
    a word), or 0 if no word continues with that letter. The last slot holds
    ``word_id + 1`` if the row's own prefix is a word, else 0. Word ids are marisa key ids.
    Row 0 is left empty so that 0 can mean "no child". Returns (table, root offset).

    Precondition: ``words`` sorted and unique, every letter in ``alphabet``.
    """
    width = len(alphabet) + 1
    symbol = {letter: index for index, letter in enumerate(alphabet)}
    table = array("i", bytes(4 * width))
    # Build post-order from sorted words: a stack holds the open nodes of the current word,
    # each as [children {symbol: value}, word_id + 1]; a node is written out once no later
    # word can extend it.
    stack: list[list] = [[{}, 0]]
    previous = ""

    def close_node(children: dict[int, int], word_mark: int) -> int:
        if not children:
            assert word_mark, "a leaf of a trie built from words is a word"
            return -word_mark
        offset = len(table)
        row = [0] * width
        for sym, value in children.items():
            row[sym] = value
        row[-1] = word_mark
        table.extend(row)
        return offset

    def close_deeper_than(depth: int) -> None:
        while len(stack) > depth + 1:
            children, word_mark = stack.pop()
            stack[-1][0][symbol[previous[len(stack) - 1]]] = close_node(children, word_mark)

    for word in words:
        shared = 0
        limit = min(len(word), len(previous))
        while shared < limit and word[shared] == previous[shared]:
            shared += 1
        close_deeper_than(shared)
        for _ in word[shared:]:
            stack.append([{}, 0])
        stack[-1][1] = trie[word] + 1
        previous = word
    close_deeper_than(0)
    offset = close_node(*stack[0])
    if len(table) >= 2**31:
        raise LexiconError("the word list is too large for a 32-bit node table")
    return table, offset
