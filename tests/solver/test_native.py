"""The compiled core (solver/native) against the pure-Python walk: the same words, paths and
order on 5,000 dice rolls and on random boards; and the fallback to Python when the library
is missing, stale or corrupt.

The core is compiled here, into a temporary directory, so these tests never depend on (or
touch) the library that ``python -m solver.native build`` keeps in solver/native/.
"""

from __future__ import annotations

import importlib
import logging
import os
import random
import subprocess
import sys
from array import array
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from solver import Board, WordRules, compile_word_list, from_faces, native, roll
from solver.errors import SolverError, WordListError
from solver.wordlist import WordList

# solver/__init__.py exports the function solve, which hides the module of that name.
solve_module = importlib.import_module("solver.solve")
REPO = Path(__file__).resolve().parents[2]

# 5,000 rolls: 4,000 4x4 (the three 4x4 sets; Qu dice), 700 5x5 (a Qu die) and 300 6x6
# (blank faces, i.e. blocked cells, and the two-letter faces qu in th er he an).
ROLLS = [("classic", 2500), ("classic-1976", 1000), ("classic-fr", 500), ("big", 700)]
ROLLS += [("super-big", 300)]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The C core, compiled for this test module."""
    if native.find_compiler() is None:
        pytest.skip("no C compiler (cc, gcc or clang; or $CC): the C core cannot be built")
    path = tmp_path_factory.mktemp("native") / "walk.so"
    assert native.build(path) is True
    return path


@pytest.fixture(scope="module")
def walker(library: Path) -> native.NativeWalk:
    loaded = native.load(library)
    assert loaded is not None, "a library just built from walk.c must load"
    return loaded


@pytest.fixture
def native_engine(walker: native.NativeWalk, monkeypatch: pytest.MonkeyPatch) -> None:
    """solve(..., engine="native") uses this module's build, whatever solver/native holds."""
    monkeypatch.setattr(solve_module, "_NATIVE", walker)


def native_marked_paths(
    walker: native.NativeWalk, board: Board, word_list: WordList
) -> dict[int, tuple[int, ...]]:
    found = walker.find(board, word_list, solve_module._cell_symbols(board, word_list))
    assert found is not None
    return dict(zip(found.marks, found.paths, strict=True))


def differences(
    walker: native.NativeWalk, board: Board, word_list: WordList
) -> tuple[list[str], int]:
    """How the two walks differ on a board (none when they agree, order included), and how
    many words the Python walk found."""
    expected = solve_module._find_marked_paths_python(board, word_list)
    found = walker.find(board, word_list, solve_module._cell_symbols(board, word_list))
    assert found is not None
    problems = []
    if list(zip(found.marks, found.paths, strict=True)) != list(expected.items()):
        problems.append(f"{board.to_text()}: marks or paths differ")
    words = [word_list.word(mark - 1) for mark in expected]
    if found.words != words:
        problems.append(f"{board.to_text()}: words differ")
    return problems, len(expected)


def test_native_and_python_walks_agree_on_5000_rolls(
    english: WordList, walker: native.NativeWalk
) -> None:
    problems: list[str] = []
    boards = words = 0
    seen_faces: set[str] = set()
    for name, count in ROLLS:
        for seed in range(count):
            board = roll(name, seed)
            board_problems, board_words = differences(walker, board, english)
            problems += board_problems
            boards += 1
            words += board_words
            seen_faces.update(board.faces)
    assert not problems, f"{len(problems)} differences, e.g. {problems[:5]}"
    assert boards == 5000
    assert words > 5000 * 50  # the rolls are real boards, most with many words
    # The sample takes in blocked cells and every multi-letter face.
    assert {"#", "qu", "in", "th", "er", "he", "an"} <= seen_faces


def test_solutions_are_equal_with_either_engine(english: WordList, native_engine: None) -> None:
    for name, count in (("classic", 200), ("big", 50), ("super-big", 50)):
        for seed in range(count):
            board = roll(name, seed)
            python = solve_module.solve(board, english, engine="python")
            assert solve_module.solve(board, english, engine="native") == python
            assert solve_module.solve(board, english, 3, engine="native") == solve_module.solve(
                board, english, 3, engine="python"
            )
            assert solve_module.find_paths(board, english, engine="native") == (
                solve_module.find_paths(board, english, engine="python")
            )


# --- random boards and word lists: blocked cells, letters outside the alphabet, one-letter
# words, multi-letter faces whose first letter ends a word (a leaf in the table) ---------

ALPHABET = "abehnqtu"
# In the alphabet, outside it (x, z, and i and r of "in" and "er"), blocked, multi-letter.
FACES = [*ALPHABET, "x", "z", "#", "qu", "th", "he", "an", "in", "er"]
WEIGHTS = [6] * len(ALPHABET) + [1, 1, 2, 3, 3, 3, 3, 1, 1]


def random_words(rng: random.Random) -> list[str]:
    letters = ALPHABET.replace("q", "")  # "q" only as the Qu die spells it, mostly
    words = {"".join(rng.choices(letters, k=rng.randint(1, 7))) for _ in range(3000)}
    words |= {"q", "qu", "qua", "quat", "th", "the", "then", "he", "an", "ant", "han"}
    return sorted(words)


def test_native_and_python_walks_agree_on_random_boards(walker: native.NativeWalk) -> None:
    rng = random.Random(20240611)
    rules = WordRules(alphabet=ALPHABET, min_length=1, qu_rule=False)
    word_list = compile_word_list(random_words(rng), rules)[0]
    problems: list[str] = []
    shapes = [(3, 3), (3, 5), (4, 4), (5, 4), (5, 5), (6, 6), (6, 3)]
    for index in range(600):
        rows, cols = shapes[index % len(shapes)]
        board = from_faces(rng.choices(FACES, WEIGHTS, k=rows * cols), rows=rows)
        problems += differences(walker, board, word_list)[0]
    assert not problems, f"{len(problems)} differences, e.g. {problems[:5]}"


def test_output_buffers_grow_when_a_board_has_more_words(
    english: WordList, walker: native.NativeWalk, library: Path
) -> None:
    # One word and one cell to start with: every board overflows, and the walk is redone.
    tiny = native.NativeWalk(walker.function, library, first_words=1, first_cells=1)
    for seed in range(20):
        board = roll("super-big", seed)
        expected = solve_module._find_marked_paths_python(board, english)
        assert native_marked_paths(tiny, board, english) == expected


def test_solves_in_threads_agree(english: WordList, walker: native.NativeWalk) -> None:
    boards = [roll("classic", seed) for seed in range(200)]
    expected = [native_marked_paths(walker, board, english) for board in boards]
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda board: native_marked_paths(walker, board, english), boards))
    assert results == expected


def test_a_corrupt_table_raises_instead_of_reading_outside_it(walker: native.NativeWalk) -> None:
    word_list = compile_word_list(["ab", "abc", "ba"], WordRules(alphabet="abc", min_length=1))[0]
    board = from_faces(["a", "b", "c"] * 3, rows=3)
    assert native_marked_paths(walker, board, word_list)  # sound: finds words
    for bad in (10**9, -(2**31)):
        table = array("i", word_list.table)
        table[word_list.root] = bad  # the child of "a" (symbol 0)
        broken = WordList(word_list.trie, table, word_list.root, word_list.rules)
        with pytest.raises(WordListError, match="corrupt"):
            walker.find(board, broken, solve_module._cell_symbols(board, broken))


def test_a_table_without_a_buffer_is_walked_in_python(walker: native.NativeWalk) -> None:
    word_list = compile_word_list(["ab", "ba"], WordRules(alphabet="ab", min_length=1))[0]
    as_list = WordList(word_list.trie, list(word_list.table), word_list.root, word_list.rules)  # type: ignore[arg-type]
    board = from_faces(["a", "b", "a", "b"] * 4, rows=4)
    assert walker.find(board, as_list, solve_module._cell_symbols(board, as_list)) is None


# --- building and loading ---------------------------------------------------------------------


def test_build_is_idempotent(library: Path) -> None:
    assert native.build(library) is False  # up to date: nothing compiled
    assert native.library_digest(library) == native.source_digest()
    assert native.build(library, force=True) is True


def test_build_without_a_compiler_fails_clearly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(native, "find_compiler", lambda: None)
    with pytest.raises(native.BuildError, match="no C compiler"):
        native.build(tmp_path / "walk.so")
    assert not (tmp_path / "walk.so").exists()


def test_a_missing_library_falls_back_to_python(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    missing = tmp_path / "missing.so"
    with caplog.at_level(logging.DEBUG, logger="solver"):
        assert native.load(missing) is None
        assert solve_module.select_engine(missing) == ("python", None)
    assert "walks in Python" in caplog.text


@pytest.mark.parametrize(
    "content",
    [
        b"not a shared library",
        b"",
        # The right digest, so the check by bytes passes and loading itself fails.
        b"\x7fELF garbage boggle-walk-source-sha256=" + native.source_digest().encode(),
    ],
)
def test_a_corrupt_library_falls_back_to_python(
    tmp_path: Path, content: bytes, english: WordList
) -> None:
    corrupt = tmp_path / "corrupt.so"
    corrupt.write_bytes(content)
    assert native.load(corrupt) is None
    assert solve_module.select_engine(corrupt) == ("python", None)
    board = roll("classic", 1)
    assert solve_module.solve(board, english, engine="python").words  # Python still solves


def test_a_stale_library_is_not_loaded(tmp_path: Path, library: Path) -> None:
    changed = tmp_path / "walk.c"
    changed.write_text(native.SOURCE.read_text() + "\n/* changed */\n")
    stale = tmp_path / "stale.so"
    assert native.build(stale, source=changed) is True
    assert native.load(stale) is None  # built from another walk.c than solver/native's
    assert native.load(stale, source=changed) is not None
    assert native.load(library) is not None


def test_the_environment_variable_forces_python(
    library: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(solve_module.ENGINE_ENV, "python")
    assert solve_module.select_engine(library) == ("python", None)
    monkeypatch.setenv(solve_module.ENGINE_ENV, "auto")
    engine, walker = solve_module.select_engine(library)
    assert engine == "native" and walker is not None
    monkeypatch.delenv(solve_module.ENGINE_ENV)
    assert solve_module.select_engine(library)[0] == "native"


def test_importing_the_solver_with_python_forced() -> None:
    environment = {**os.environ, solve_module.ENGINE_ENV: "python"}
    script = "from solver.solve import ENGINE; from solver import solve, roll; print(ENGINE)"
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO,
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == "python"


def test_unknown_or_unloaded_engines_are_refused(
    english: WordList, monkeypatch: pytest.MonkeyPatch
) -> None:
    board = roll("classic", 0)
    with pytest.raises(SolverError, match="unknown solver engine"):
        solve_module.solve(board, english, engine="fortran")
    monkeypatch.setattr(solve_module, "_NATIVE", None)
    with pytest.raises(SolverError, match="not loaded"):
        solve_module.solve(board, english, engine="native")
