"""Fixtures shared by the solver tests.

The shipped English list is compiled once per session into a temporary dictionary
directory. ``BOGGLE_DICTIONARY_DIR`` points there only while a fixture needs it (and is
restored right after), so nothing leaks into other tests.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from solver import dictionaries
from solver.wordlist import WordList

ENV = "BOGGLE_DICTIONARY_DIR"


@contextmanager
def dictionary_dir_set_to(path: Path) -> Iterator[None]:
    """Point BOGGLE_DICTIONARY_DIR at ``path`` for the duration of the block."""
    before = os.environ.get(ENV)
    os.environ[ENV] = str(path)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = before


@pytest.fixture(scope="session")
def session_dictionary_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A dictionary cache directory shared by the whole session (never var/dictionaries)."""
    return tmp_path_factory.mktemp("dictionaries")


@pytest.fixture(scope="session")
def english(session_dictionary_dir: Path) -> WordList:
    """The shipped English list, compiled once per session into the temporary cache."""
    with dictionary_dir_set_to(session_dictionary_dir):
        return dictionaries.load("english")


@pytest.fixture(scope="session")
def english_words(english: WordList) -> frozenset[str]:
    """Every word of the compiled English word list."""
    return frozenset(english.trie.keys())


@pytest.fixture
def use_session_dictionaries(
    english: WordList, session_dictionary_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """For one test: BOGGLE_DICTIONARY_DIR is the session cache, where english is compiled."""
    monkeypatch.setenv(ENV, str(session_dictionary_dir))
    return session_dictionary_dir


@pytest.fixture
def fresh_dictionary_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """For one test: an empty dictionary cache of its own."""
    path = tmp_path / "dictionaries"
    monkeypatch.setenv(ENV, str(path))
    return path
