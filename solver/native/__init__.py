"""The solver's compiled core: the board walk of ``solver.solve`` in C (``walk.c``), via ctypes.

Optional: ``python -m solver.native build`` compiles ``walk.c`` with the system C compiler
into ``LIBRARY`` (bin/start and bin/test do it); without the library, or with one that is
stale (built from another ``walk.c``) or does not load, ``load`` returns None and
``solver.solve`` walks the board in pure Python, with the same answers.

Preconditions of the C walk, checked here or there: at most ``MAX_CELLS`` cells (a 64-bit
used-cells mask; boards have at most 36) and 8 neighbours a cell (a grid), a node table of
4-byte ints. A table that is not a buffer is walked in Python.
"""

from __future__ import annotations

import ctypes
import hashlib
import itertools
import logging
import os
import re
import shlex
import shutil
import subprocess
import sysconfig
import threading
import weakref
from array import array
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import NamedTuple

from solver.board import Board, neighbour_table
from solver.errors import SolverError, WordListError
from solver.wordlist import WordList

logger = logging.getLogger(__name__)

SOURCE = Path(__file__).resolve().with_name("walk.c")
LIBRARY = SOURCE.with_name("_walk" + (sysconfig.get_config_var("SHLIB_SUFFIX") or ".so"))
# Must match WALK_ABI in walk.c.
ABI = 1
MAX_CELLS = 64
CFLAGS = ("-O2", "-shared", "-fPIC", "-std=c99", "-Wall", "-Wextra")
# walk.c's return codes below 0.
_FULL, _NO_MEMORY, _BAD_INPUT = -1, -2, -3
# First output buffers of a thread, in words and path cells; they double when a board
# needs more.
_FIRST_WORDS = 2048
_FIRST_CELLS = 16 * _FIRST_WORDS

_int32_p = ctypes.c_void_p  # addresses go in as plain ints: no ctypes array per call


class BuildError(SolverError):
    """The C core could not be compiled (no compiler, or the compiler failed)."""


def source_digest(source: Path = SOURCE) -> str:
    """The SHA-256 of ``walk.c``: built into the library, so a changed source makes it stale."""
    return hashlib.sha256(source.read_bytes()).hexdigest()


def find_compiler() -> list[str] | None:
    """The C compiler command: $CC, the one Python was built with, else cc, gcc or clang."""
    candidates = [os.environ.get("CC"), sysconfig.get_config_var("CC"), "cc", "gcc", "clang"]
    for candidate in candidates:
        command = shlex.split(candidate or "")
        if command and shutil.which(command[0]):
            return command
    return None


def build(library: Path = LIBRARY, *, source: Path = SOURCE, force: bool = False) -> bool:
    """Compile ``source`` into ``library`` unless it is already built from this source.

    Returns True if it compiled, False if the library was up to date. The library is
    compiled under a temporary name, checked to load, then renamed: a process loading it
    never sees half a file. Raises BuildError without a C compiler or when compiling fails.
    """
    library = Path(library)
    digest = source_digest(source)
    if not force and library_digest(library) == digest:
        return False
    compiler = find_compiler()
    if compiler is None:
        raise BuildError("no C compiler found (set CC, or install cc, gcc or clang)")
    library.parent.mkdir(parents=True, exist_ok=True)
    temporary = library.with_name(f".{library.name}.{os.getpid()}.tmp")
    command = [
        *compiler,
        *CFLAGS,
        f'-DWALK_SOURCE_DIGEST="{digest}"',
        "-o",
        str(temporary),
        str(source),
    ]
    try:
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise BuildError(f"{shlex.join(command)} failed:\n{result.stderr.strip()}")
        # Loaded under its temporary name: the loader caches libraries by path, so loading
        # `library` itself could return an older copy already loaded in this process.
        if _open(temporary, digest) is None:
            raise BuildError(f"{temporary} was compiled but does not load")
        os.replace(temporary, library)
    finally:
        temporary.unlink(missing_ok=True)
    return True


# Precedes the source digest in the library's bytes (walk.c, ``source_digest``).
_DIGEST_MARKER = re.compile(rb"boggle-walk-source-sha256=([0-9a-f]{64})")


def library_digest(library: Path) -> str | None:
    """The digest of the source a library was built from, read from its bytes (None if absent).

    Read without loading it, so that a stale library is never loaded.
    """
    try:
        match = _DIGEST_MARKER.search(Path(library).read_bytes())
    except OSError:
        return None
    return match.group(1).decode() if match else None


def load(library: Path = LIBRARY, *, source: Path = SOURCE) -> NativeWalk | None:
    """The compiled walk, or None (logged) if the library is missing, stale or corrupt.

    Stale: built from another ``walk.c`` than ``source`` (checked when ``source`` exists).
    Never compiles anything: only ``build`` does.
    """
    library = Path(library)
    if not library.exists():
        logger.debug("no compiled solver core at %s: the solver walks in Python", library)
        return None
    digest = source_digest(source) if source.exists() else None
    if digest is not None and library_digest(library) != digest:
        logger.info(
            "the solver core %s is stale or corrupt (not built from %s): the solver walks in "
            "Python until python -m solver.native build",
            library,
            source.name,
        )
        return None
    return _open(library, digest)


def _open(library: Path, digest: str | None) -> NativeWalk | None:
    """Load a library and check its ABI (and source digest, if given); None if unusable."""
    try:
        dll = ctypes.CDLL(str(library))
        dll.boggle_walk_abi.restype = ctypes.c_int32
        dll.boggle_walk_source_digest.restype = ctypes.c_char_p
        abi = dll.boggle_walk_abi()
        built_from = (dll.boggle_walk_source_digest() or b"").decode("ascii", "replace")
        function = dll.boggle_walk_board
    except (OSError, AttributeError) as error:
        logger.info(
            "cannot load the solver core %s (%s): the solver walks in Python", library, error
        )
        return None
    if abi != ABI or (digest is not None and built_from != digest):
        logger.info("the solver core %s does not match walk.c: rebuild it", library)
        return None
    function.restype = ctypes.c_int32
    function.argtypes = [
        _int32_p,  # table
        ctypes.c_int64,  # table_slots
        ctypes.c_int32,  # root
        ctypes.c_int32,  # width
        ctypes.c_int32,  # cells
        _int32_p,  # face_start
        _int32_p,  # face_syms
        ctypes.c_int32,  # syms
        _int32_p,  # text_start
        ctypes.c_char_p,  # face_text
        ctypes.c_int32,  # text_bytes
        _int32_p,  # nb_start
        _int32_p,  # nbs
        ctypes.c_int32,  # nb_count
        _int32_p,  # out_marks
        _int32_p,  # out_ends
        ctypes.c_int32,  # max_words
        _int32_p,  # out_cells
        ctypes.c_int32,  # max_cells
        ctypes.c_void_p,  # out_text
        ctypes.c_int32,  # max_text
        _int32_p,  # out_text_used
    ]
    return NativeWalk(function, library)


class Found(NamedTuple):
    """The words on a board, in the pure-Python walk's order: one mark, word, path each."""

    marks: list[int]  # word_id + 1
    words: list[str]
    paths: list[tuple[int, ...]]


class NativeWalk:
    """The C walk of one loaded library. Thread-safe: output buffers are per thread."""

    def __init__(
        self,
        function: Callable[..., int],
        library: Path,
        first_words: int = _FIRST_WORDS,
        first_cells: int = _FIRST_CELLS,
    ) -> None:
        self.function = function  # the C function, through ctypes
        self.library = library
        self._first = (max(first_words, 1), max(first_cells, 1))
        self._local = threading.local()
        # WordList -> its table's held buffer (None: not usable natively); dropped with it.
        self._tables: weakref.WeakKeyDictionary[WordList, _TableBuffer | None] = (
            weakref.WeakKeyDictionary()
        )

    def find(
        self, board: Board, word_list: WordList, cell_symbols: list[tuple[int, ...]]
    ) -> Found | None:
        """Every word on the board, as ``solve._find_marked_paths_python`` finds them.

        ``cell_symbols`` is each cell's face as alphabet symbols, () for an unusable cell.
        A word's text is its path's faces, which is its word list key (the key's letters are
        the symbols walked). Returns None when this board or word list cannot be walked
        natively (the caller walks in Python); raises WordListError if the C walk finds the
        table corrupt.
        """
        cells = len(cell_symbols)
        table = self._table(word_list)
        if table is None or cells > MAX_CELLS or cells != len(board.faces):
            return None
        nb_start, nbs = _neighbour_arrays(board.rows, board.cols)
        face_start = array("i", itertools.accumulate(map(len, cell_symbols), initial=0))
        face_syms = array("i", itertools.chain.from_iterable(cell_symbols))
        encoded = [face.encode() for face in board.faces]
        text_start = array("i", itertools.accumulate(map(len, encoded), initial=0))
        face_text = b"".join(encoded)
        text_used = array("i", [0])
        while True:
            out = self._buffers()
            count = self.function(
                table.address,
                table.slots,
                word_list.root,
                word_list.row_width,
                cells,
                face_start.buffer_info()[0],
                face_syms.buffer_info()[0],
                len(face_syms),
                text_start.buffer_info()[0],
                face_text,
                len(face_text),
                nb_start.buffer_info()[0],
                nbs.buffer_info()[0],
                len(nbs),
                out.marks.buffer_info()[0],
                out.ends.buffer_info()[0],
                len(out.marks),
                out.cells.buffer_info()[0],
                len(out.cells),
                out.text.buffer_info()[0],
                len(out.text),
                text_used.buffer_info()[0],
            )
            if count != _FULL:
                break
            self._local.buffers = _Buffers(2 * len(out.marks), 2 * len(out.cells))
        if count == _NO_MEMORY:
            raise MemoryError("the solver core could not grow its word set")
        if count == _BAD_INPUT:
            raise WordListError(
                f"the node table of word list {word_list.name!r} is corrupt; compile it again"
            )
        if count < 0:
            raise SolverError(f"the solver core returned {count}")
        if not count:
            return Found([], [], [])
        ends = out.ends[:count].tolist()
        path_cells = out.cells[: ends[-1]].tolist()
        # A slice of the cells per word, by map rather than a Python loop: faster per word.
        paths = list(map(tuple, map(path_cells.__getitem__, map(slice, [0, *ends[:-1]], ends))))
        # The words' texts are one '\n'-terminated run: one decode and one split for all.
        words = out.text[: text_used[0] - 1].tobytes().decode().split("\n")
        return Found(out.marks[:count].tolist(), words, paths)

    def _buffers(self) -> _Buffers:
        buffers = getattr(self._local, "buffers", None)
        if buffers is None:
            buffers = self._local.buffers = _Buffers(*self._first)
        return buffers

    def _table(self, word_list: WordList) -> _TableBuffer | None:
        try:
            return self._tables[word_list]
        except KeyError:
            pass
        try:
            table: _TableBuffer | None = _TableBuffer(word_list.table)
        except (TypeError, ValueError, BufferError, AttributeError) as error:
            # AttributeError: a Python without PyObject_GetBuffer in ctypes.pythonapi.
            logger.info("word list %r: walked in Python (%s)", word_list.name, error)
            table = None
        # Two threads may both wrap a new word list: one copy wins, the other is released.
        self._tables[word_list] = table
        return table


class _Buffers:
    """One thread's output arrays: marks and path ends (one per word), path cells, text."""

    def __init__(self, words: int, cells: int) -> None:
        self.marks = array("i", [0]) * words
        self.ends = array("i", [0]) * words
        self.cells = array("i", [0]) * cells
        # A cell's face is at most two letters of at most 4 bytes of UTF-8 each.
        self.text = array("B", [0]) * (8 * cells + words)


@cache
def _neighbour_arrays(rows: int, cols: int) -> tuple[array, array]:
    """The neighbour table of a shape as offsets and a flat list, in ``neighbour_table`` order."""
    table = neighbour_table(rows, cols)
    starts = array("i", itertools.accumulate(map(len, table), initial=0))
    return starts, array("i", itertools.chain.from_iterable(table))


class _PyBuffer(ctypes.Structure):
    """CPython's ``Py_buffer`` (stable ABI since 3.11); pointers kept as plain addresses."""

    _fields_ = [
        ("buf", ctypes.c_void_p),
        ("obj", ctypes.c_void_p),
        ("len", ctypes.c_ssize_t),
        ("itemsize", ctypes.c_ssize_t),
        ("readonly", ctypes.c_int),
        ("ndim", ctypes.c_int),
        ("format", ctypes.c_void_p),
        ("shape", ctypes.c_void_p),
        ("strides", ctypes.c_void_p),
        ("suboffsets", ctypes.c_void_p),
        ("internal", ctypes.c_void_p),
    ]


_PYBUF_SIMPLE = 0  # a contiguous buffer of bytes


@cache
def _buffer_api() -> tuple[Callable[..., int], Callable[..., None]]:
    """CPython's PyObject_GetBuffer and PyBuffer_Release, as ctypes functions.

    ctypes' from_buffer refuses read-only buffers such as the memory-mapped table, so the
    address comes from the buffer protocol itself. PyDLL prototypes: called with the GIL, and
    an error raises. Our own prototypes leave ctypes.pythonapi's shared ones untouched.
    """
    get = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(_PyBuffer), ctypes.c_int)
    release = ctypes.PYFUNCTYPE(None, ctypes.POINTER(_PyBuffer))
    return (
        get(("PyObject_GetBuffer", ctypes.pythonapi)),
        release(("PyBuffer_Release", ctypes.pythonapi)),
    )


class _TableBuffer:
    """A held export of a node table's buffer: its address stays valid while this lives.

    The export also keeps the table alive (and its mmap open) until released.
    """

    def __init__(self, table: object) -> None:
        self._view = _PyBuffer()
        if getattr(table, "itemsize", None) != 4:
            raise TypeError("the node table is not an array of 4-byte ints")
        get_buffer, self._release = _buffer_api()
        get_buffer(ctypes.py_object(table), ctypes.byref(self._view), _PYBUF_SIMPLE)
        self.address: int = self._view.buf or 0
        self.slots = self._view.len // 4
        if self.address % 4:
            self.release()
            raise ValueError("the node table is not 4-byte aligned")

    def release(self) -> None:
        if self._view.obj:  # PyBuffer_Release clears it: a second call does nothing
            self._release(ctypes.byref(self._view))

    def __del__(self) -> None:
        self.release()
