"""Compile a source word list (text, one word per line) into a WordList: the marisa-trie word set plus the solver's node table.

Reading: plain text or gzip, UTF-8 or Latin-1, one word per line; blank lines and lines
starting with "#" are ignored. Every other line is kept or dropped by ``wordrules``; the
``CompileReport`` counts both, with examples of each reason.

A file is read as a stream (``iter_wordlist``): memory grows with the words kept, not with
the file. A file that is not a word list is refused (WordListError) rather than compiled
into a few stray "words": NUL bytes, control characters, a line longer than
``MAX_LINE_CHARS`` (comments: ``MAX_COMMENT_CHARS``), or fewer than ``MIN_WORDLIKE_SHARE``
of its word lines looking like words written in the rules' alphabet.
"""

from __future__ import annotations

import codecs
import gzip
import hashlib
import io
import itertools
import re
import zlib
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import marisa_trie

from solver.errors import WordListError
from solver.wordlist import WordList, write_word_list
from solver.wordrules import DropReason, WordRules, normalise_word

# How many dropped words to keep as examples for each reason.
EXAMPLES_PER_REASON = 5
# Refuse word lists larger than this (bytes, after decompression): no real list comes close.
MAX_WORDLIST_BYTES = 64 * 1024 * 1024
GZIP_MAGIC = b"\x1f\x8b"
# A word line longer than this (characters, stripped) is not a word: the file is refused.
MAX_LINE_CHARS = 64
# Comment lines (licence text) may be longer, up to this.
MAX_COMMENT_CHARS = 4096
# At least this share of the word lines (not blank, not comments) must look like words.
MIN_WORDLIKE_SHARE = 0.5
# How many lines a quick check of an upload looks at (``check_sample``).
SAMPLE_LINES = 20_000
# Read and hash files in chunks of this many bytes.
CHUNK_BYTES = 1 << 20
# Control characters (tab allowed): no word list has them, binary data always does.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")
# Letters, optionally joined by an apostrophe, hyphen, dot or space ("dog's", "well-known").
_WORDLIKE = re.compile(r"[^\W\d_]+(?:['\u2019.\- ][^\W\d_]*)*")


@dataclass
class CompileReport:
    """What compiling a word list kept and dropped, and why."""

    lines: int = 0
    ignored_lines: int = 0
    kept: int = 0
    # Word lines (not blank, not comments) that look like words of the alphabet.
    wordlike: int = 0
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
            "wordlike": self.wordlike,
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

    Raises WordListError for binary data, corrupt gzip or oversize input.
    """
    return list(iter_wordlist_stream(io.BytesIO(data)))


def read_wordlist(path: str | Path) -> list[str]:
    """Read a word-list file (see ``read_wordlist_bytes``)."""
    return list(iter_wordlist(path))


def iter_wordlist(path: str | Path) -> Iterator[str]:
    """The lines of a word-list file, read as a stream (see ``iter_wordlist_stream``)."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_WORDLIST_BYTES:
            raise WordListError(f"{path.name} is larger than {MAX_WORDLIST_BYTES // 2**20} MiB")
        with path.open("rb") as stream:
            yield from iter_wordlist_stream(stream)
    except OSError as error:
        raise WordListError(f"cannot read word list {path}: {error.strerror}") from None


def iter_wordlist_stream(stream: BinaryIO) -> Iterator[str]:
    """The lines of a word list in a seekable binary stream, one at a time.

    Gzip is unpacked on the fly. A first pass checks size, NUL bytes and whether the text
    is UTF-8 (else it is Latin-1); the second yields the decoded lines. Memory stays at a
    chunk and a line. Raises WordListError for binary data, corrupt gzip or oversize input.
    """
    start = stream.tell()
    encoding = _scan(stream)
    stream.seek(start)
    with _unpacked(stream) as raw:
        text = io.TextIOWrapper(raw, encoding=encoding, newline=None)
        try:
            while True:
                # Bounded: a "line" of a binary file may be megabytes long.
                line = text.readline(MAX_COMMENT_CHARS + 2)
                if not line:
                    return
                if not line.endswith("\n"):
                    if len(line) > MAX_COMMENT_CHARS:
                        raise WordListError(
                            "a line is longer than "
                            f"{MAX_COMMENT_CHARS} characters: this is not a word list "
                            "(one word per line)"
                        )
                    yield line
                else:
                    yield line[:-1]
        finally:
            text.detach()


def _unpacked(stream: BinaryIO):
    """The stream itself, or a gzip reader over it (a context manager either way)."""
    head = stream.read(2)
    stream.seek(-len(head), io.SEEK_CUR)
    if head == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=stream, mode="rb")
    return _Unclosed(stream)


class _Unclosed(io.BufferedReader):
    """A reader over ``stream`` that leaves it open (its caller closes it)."""

    def __init__(self, stream: BinaryIO) -> None:
        super().__init__(stream)  # type: ignore[arg-type]
        self._stream = stream

    def close(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        pass


def _scan(stream: BinaryIO) -> str:
    """Read the (unpacked) stream once: size, NUL bytes, encoding ("utf-8-sig"/"latin-1")."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    utf8 = True
    total = 0
    try:
        with _unpacked(stream) as raw:
            while chunk := raw.read(CHUNK_BYTES):
                total += len(chunk)
                if total > MAX_WORDLIST_BYTES:
                    raise WordListError(
                        f"the word list is larger than {MAX_WORDLIST_BYTES // 2**20} MiB"
                    )
                if b"\x00" in chunk:
                    raise WordListError(
                        "this is a binary file, not a word list (one word per line)"
                    )
                if utf8:
                    try:
                        decoder.decode(chunk)
                    except UnicodeDecodeError:
                        utf8 = False
            if utf8:
                try:
                    decoder.decode(b"", final=True)
                except UnicodeDecodeError:
                    utf8 = False
    except (OSError, EOFError, zlib.error) as error:
        raise WordListError(f"the gzip file is corrupt: {error}") from None
    return "utf-8-sig" if utf8 else "latin-1"


def digest_file(path: str | Path, rules: WordRules) -> str:
    """``digest`` of a file's bytes, read in chunks."""
    hasher = hashlib.sha256()
    with Path(path).open("rb") as stream:
        while chunk := stream.read(CHUNK_BYTES):
            hasher.update(chunk)
    return _with_rules(hasher, rules)


def select_words(lines: Iterable[str], rules: WordRules) -> tuple[list[str], CompileReport]:
    """Apply the rules to every line; return the kept words (sorted, unique) and the report.

    Raises WordListError when the lines are not a word list (see ``check_line`` and
    ``check_wordlike``); only the kept words are held in memory.
    """
    report = CompileReport()
    kept: set[str] = set()
    letters = frozenset(rules.alphabet)
    for line in lines:
        report.lines += 1
        entry = line.strip()
        check_line(entry, report.lines)
        if not entry or entry.startswith("#"):
            report.ignored_lines += 1
            continue
        if _WORDLIKE.fullmatch(entry) and not letters.isdisjoint(entry.lower()):
            report.wordlike += 1
        word, reason = normalise_word(entry, rules)
        if reason is not None:
            report.drop(reason, entry)
        elif word in kept:
            report.drop(DropReason.DUPLICATE, entry)
        else:
            assert word is not None  # normalise_word gives (word, None) or (None, reason)
            kept.add(word)
    report.kept = len(kept)
    if kept:
        check_wordlike(report)
    return sorted(kept), report


def check_sample(
    lines: Iterable[str], rules: WordRules, max_lines: int = SAMPLE_LINES
) -> tuple[list[str], CompileReport, bool]:
    """Check the first ``max_lines`` lines as ``select_words`` does (WordListError if they
    are not a word list). Returns their kept words, the report, and whether they were all
    the lines (only then does "no word kept" mean the whole list is unusable)."""
    iterator = iter(lines)
    words, report = select_words(itertools.islice(iterator, max_lines), rules)
    check_wordlike(report)
    complete = next(iterator, None) is None
    return words, report, complete


def check_line(entry: str, number: int) -> None:
    """WordListError if a (stripped) line cannot be part of a word list."""
    control = _CONTROL.search(entry)
    if control:
        raise WordListError(
            f"line {number} has a control character (U+{ord(control.group()):04X}): this is "
            "not a text word list (one word per line, UTF-8 or Latin-1)"
        )
    limit = MAX_COMMENT_CHARS if entry.startswith("#") else MAX_LINE_CHARS
    if len(entry) > limit:
        raise WordListError(
            f"line {number} is {len(entry)} characters long (at most {limit}): this is not "
            "a word list (one word per line)"
        )


def check_wordlike(report: CompileReport) -> None:
    """WordListError if too few word lines look like words written in the alphabet."""
    word_lines = report.lines - report.ignored_lines
    if word_lines and report.wordlike < MIN_WORDLIKE_SHARE * word_lines:
        share = 100 * report.wordlike / word_lines
        raise WordListError(
            f"only {report.wordlike} of {word_lines} lines ({share:.0f}%) look like words "
            f"in the alphabet; at least {MIN_WORDLIKE_SHARE:.0%} must: is this a word list "
            "(one word per line) for this language?"
        )


def compile_word_list(
    lines: Iterable[str], rules: WordRules, name: str = "", source_digest: str = ""
) -> tuple[WordList, CompileReport]:
    """Compile word-list lines into an in-memory WordList (and its report)."""
    words, report = select_words(lines, rules)
    if not words:
        raise WordListError("no usable words: every line was blank, a comment or dropped")
    trie = marisa_trie.Trie(words)
    table, root = build_node_table(words, trie, rules.alphabet)
    meta = {
        "name": name,
        "rules": rules.to_dict(),
        "report": report.to_dict(),
        "source_sha256": source_digest,
    }
    return WordList(trie, table, root, rules, meta), report


def compile_file(
    source: str | Path, target: str | Path, rules: WordRules, name: str = ""
) -> CompileReport:
    """Compile a word-list text file to a compiled WordList file; return the report."""
    word_list, report = compile_word_list(iter_wordlist(source), rules, name=name)
    try:
        word_list.meta["source_sha256"] = digest_file(source, rules)
    except OSError as error:
        raise WordListError(f"cannot read word list {source}: {error.strerror}") from None
    write_word_list(word_list, target)
    return report


def digest(data: bytes, rules: WordRules) -> str:
    """A fingerprint of a word list and its rules: a compiled file is stale when it differs."""
    return _with_rules(hashlib.sha256(data), rules)


def _with_rules(hasher, rules: WordRules) -> str:
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
        raise WordListError("the word list is too large for a 32-bit node table")
    return table, offset
