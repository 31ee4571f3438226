"""A compiled word list: the word set (marisa-trie) and the node table the solver walks.

File format (one file, ``.lex``), little-endian:
    8 bytes   magic ``BOGLEX1\\n``
    4 bytes   length H of the JSON header
    H bytes   JSON header: rules, compile report, sizes
    ...       marisa-trie bytes (``trie_bytes`` long)
    ...       int32 node table (``table_slots`` slots), 4-byte aligned
The node table is memory-mapped, so loading takes milliseconds and several processes that
load the same file share its pages.
"""

from __future__ import annotations

import json
import mmap
import os
import struct
import sys
from array import array
from pathlib import Path

import marisa_trie

from solver.errors import WordListError
from solver.wordrules import DropReason, WordRules, normalise_word

MAGIC = b"BOGLEX1\n"
FORMAT_VERSION = 1
_HEADER_LENGTH = struct.Struct("<I")
_ALIGN = 4


class WordList:
    """The words a game accepts, and the flat trie ``solver.solve`` walks.

    ``table`` is a sequence of int32 slots (see ``compiler.build_node_table`` for the layout);
    ``root`` is the offset of the root row.
    """

    def __init__(
        self,
        trie: marisa_trie.Trie,
        table: array | memoryview,
        root: int,
        rules: WordRules,
        meta: dict | None = None,
    ) -> None:
        self.trie = trie
        self.table = table
        self.root = root
        self.rules = rules
        self.meta = dict(meta or {})
        self.alphabet = rules.alphabet
        self.symbol = {letter: index for index, letter in enumerate(rules.alphabet)}
        self.row_width = len(rules.alphabet) + 1

    @property
    def name(self) -> str:
        return self.meta.get("name", "")

    def __len__(self) -> int:
        return len(self.trie)

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word in self.trie

    def word(self, word_id: int) -> str:
        """The word with this marisa key id."""
        return self.trie.restore_key(word_id)

    def explain(self, entry: str) -> tuple[bool, str]:
        """Is ``entry`` a word here, and if not, why not? Returns (accepted, reason)."""
        word, reason = normalise_word(entry, self.rules)
        if reason is not None:
            return False, reason.value
        if word in self.trie:
            return True, f"{word!r} is in the dictionary"
        return False, f"{word!r} is not in the word list"

    def normalise(self, entry: str) -> str | None:
        """The word list form of a player's entry (folded, lower-case), or None if impossible."""
        word, _ = normalise_word(entry, self.rules)
        return word

    def drop_reason(self, entry: str) -> DropReason | None:
        return normalise_word(entry, self.rules)[1]


def write_word_list(word_list: WordList, target: str | Path) -> None:
    """Write a word list file atomically (a reader never sees a half-written file)."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    trie_bytes = word_list.trie.tobytes()
    table = array("i", word_list.table)
    if sys.byteorder != "little":
        table.byteswap()
    header = dict(word_list.meta)
    header.update(
        format=FORMAT_VERSION,
        rules=word_list.rules.to_dict(),
        words=len(word_list.trie),
        root=word_list.root,
        trie_bytes=len(trie_bytes),
        table_slots=len(table),
    )
    header_bytes = json.dumps(header, ensure_ascii=False).encode()
    prefix = MAGIC + _HEADER_LENGTH.pack(len(header_bytes)) + header_bytes + trie_bytes
    padding = b"\0" * (-len(prefix) % _ALIGN)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    with open(temporary, "wb") as stream:
        stream.write(prefix + padding)
        table.tofile(stream)
    os.replace(temporary, target)


def read_header(path: str | Path) -> dict:
    """The JSON header of a word list file, without loading the words."""
    with open(path, "rb") as stream:
        return _parse_header(stream.read(64 * 1024), path)[0]


def load_word_list(path: str | Path) -> WordList:
    """Load a word list file; raises WordListError if it is missing, corrupt or of a newer format."""
    path = Path(path)
    try:
        with open(path, "rb") as stream:
            mapped = mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError) as error:
        raise WordListError(f"cannot open dictionary {path}: {error}") from None
    header, start = _parse_header(mapped, path)
    trie_end = start + header["trie_bytes"]
    table_start = trie_end + (-trie_end % _ALIGN)
    table_end = table_start + 4 * header["table_slots"]
    if table_end != len(mapped):
        raise WordListError(f"{path} is truncated or corrupt; compile it again")
    trie = marisa_trie.Trie()
    try:
        trie.frombytes(mapped[start:trie_end])
    except Exception as error:  # marisa raises plain Exceptions for corrupt input
        raise WordListError(f"{path}: corrupt word set ({error})") from None
    table: array | memoryview
    if sys.byteorder == "little":
        table = memoryview(mapped)[table_start:table_end].cast("i")
    else:  # pragma: no cover - big-endian machines copy and swap once
        table = array("i", mapped[table_start:table_end])
        table.byteswap()
    rules = WordRules.from_dict(header["rules"])
    return WordList(trie, table, header["root"], rules, header)


def _parse_header(data: bytes | mmap.mmap, path: str | Path) -> tuple[dict, int]:
    if data[: len(MAGIC)] != MAGIC:
        raise WordListError(f"{path} is not a compiled dictionary")
    offset = len(MAGIC)
    if len(data) < offset + _HEADER_LENGTH.size:
        raise WordListError(f"{path} is truncated or corrupt; compile it again")
    (length,) = _HEADER_LENGTH.unpack(data[offset : offset + _HEADER_LENGTH.size])
    offset += _HEADER_LENGTH.size
    try:
        header = json.loads(bytes(data[offset : offset + length]))
    except ValueError:
        raise WordListError(f"{path} has a corrupt header; compile it again") from None
    if not isinstance(header, dict):
        raise WordListError(f"{path} has a corrupt header; compile it again")
    if header.get("format") != FORMAT_VERSION:
        raise WordListError(f"{path} has format {header.get('format')}, expected {FORMAT_VERSION}")
    if any(key not in header for key in ("rules", "root", "trie_bytes", "table_slots")):
        raise WordListError(f"{path} has a corrupt header; compile it again")
    return header, offset + length
