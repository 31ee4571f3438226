"""Named dictionaries: building, caching, loading by name or path, and the real lists."""

from __future__ import annotations

import dataclasses
import gzip
import re
import unicodedata
from pathlib import Path

import pytest

from solver import WordListError, WordRules, compile_word_list, dictionaries, write_word_list
from solver.compiler import CompileReport

KNOWN = "english, english-common, dutch, french"


def plain_words(lines, fold: bool = False) -> set[str]:
    """An independent reading of the default rules: a-z only (after optional folding), 3 to
    36 letters, no q without u, capitalised words (not all capitals) dropped."""
    ligatures = {"œ": "oe", "æ": "ae", "ß": "ss"}
    words = set()
    for line in lines:
        entry = line.strip()
        if not entry or entry.startswith("#"):
            continue
        if entry[:1].isupper() and not entry.isupper():
            continue
        word = entry.lower()
        if fold:
            word = "".join(ligatures.get(ch, ch) for ch in word)
            decomposed = unicodedata.normalize("NFKD", word)
            word = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
        if re.fullmatch(r"[a-z]{3,36}", word) and not re.search(r"q(?!u)", word):
            words.add(word)
    return words


def test_english_is_the_shipped_list_under_the_default_rules(english, english_words):
    source = dictionaries.NAMED_LISTS["english"].source
    lines = gzip.decompress(source.read_bytes()).decode("utf-8").splitlines()
    assert english_words == plain_words(lines)
    assert len(english) == len(english_words) > 270_000
    assert english.name == "english"
    assert english.rules == WordRules()
    for word in ("cat", "queen", "quiz", "zebra", "aardvark"):
        assert word in english
    assert english.explain("qat") == (False, "q not followed by u")


def test_build_is_a_no_op_when_current_and_recompiles_when_forced(fresh_dictionary_dir):
    report = dictionaries.build("english-common")
    assert isinstance(report, CompileReport)
    target = dictionaries.compiled_path("english-common")
    assert target == fresh_dictionary_dir / "english-common.lex"
    assert target.exists()
    # Most of the common list's drops are possessives ("abbey's").
    assert report.dropped["characters outside the alphabet"] > 5000
    assert dictionaries.build("english-common") is None
    forced = dictionaries.build("english-common", force=True)
    assert isinstance(forced, CompileReport)
    assert forced.to_dict() == report.to_dict()
    word_list = dictionaries.load("english-common")
    assert len(word_list) == report.kept
    assert "house" in word_list
    assert "abbey" in word_list and "abbey's" not in word_list


def test_a_damaged_compiled_file_is_rebuilt(fresh_dictionary_dir):
    dictionaries.build("english-common")
    target = dictionaries.compiled_path("english-common")
    target.write_bytes(b"not a lexicon")
    assert dictionaries.build("english-common") is not None
    assert len(dictionaries.load("english-common")) > 30_000


def test_a_compiled_file_from_other_rules_or_source_is_rebuilt(fresh_dictionary_dir):
    # A valid word list file under the english-common name, but from another list.
    word_list, _ = compile_word_list(["cat", "dog"], WordRules(), name="english-common")
    write_word_list(word_list, dictionaries.compiled_path("english-common"))
    assert dictionaries.build("english-common") is not None
    assert len(dictionaries.load("english-common")) > 30_000


def test_load_by_name_compiles_on_first_use(fresh_dictionary_dir):
    assert not fresh_dictionary_dir.exists()
    word_list = dictionaries.load("english-common")
    assert (fresh_dictionary_dir / "english-common.lex").exists()
    assert word_list.name == "english-common"


def test_cache_dir_defaults_to_var_dictionaries(monkeypatch):
    monkeypatch.delenv("BOGGLE_DICTIONARY_DIR", raising=False)
    repository = Path(dictionaries.__file__).resolve().parent.parent
    assert dictionaries.cache_dir() == repository / "var" / "dictionaries"
    monkeypatch.setenv("BOGGLE_DICTIONARY_DIR", "/somewhere/else")
    assert dictionaries.compiled_path("french") == Path("/somewhere/else/french.lex")


def test_unknown_names_list_the_known_ones(fresh_dictionary_dir):
    with pytest.raises(WordListError, match=f"unknown dictionary 'klingon'; known: {KNOWN}"):
        dictionaries.build("klingon")
    with pytest.raises(WordListError, match=f"no dictionary named 'klingon'.*known: {KNOWN}"):
        dictionaries.load("klingon")


def test_a_missing_debian_list_says_which_package_to_install(monkeypatch, fresh_dictionary_dir):
    entry = dictionaries.NAMED_LISTS["french"]
    gone = dataclasses.replace(entry, source=fresh_dictionary_dir / "no-such-list")
    monkeypatch.setitem(dictionaries.NAMED_LISTS, "french", gone)
    with pytest.raises(
        WordListError, match=r"french word list .* is missing.*apt-get install wfrench"
    ):
        dictionaries.load("french")


def test_a_plain_word_list_file_compiles_and_loads(fresh_dictionary_dir, tmp_path):
    source = tmp_path / "house-rules.txt"
    source.write_text("# our list\nzyx\nwvu\nParis\nqat\n", encoding="utf-8")
    word_list = dictionaries.load(source)
    assert set(word_list.trie.keys()) == {"zyx", "wvu"}
    assert word_list.name == "house-rules.txt"
    cached = list((fresh_dictionary_dir / "files").glob("*.lex"))
    assert len(cached) == 1
    # The same content again: the cached file, no new compile.
    assert set(dictionaries.load(str(source)).trie.keys()) == {"zyx", "wvu"}
    assert list((fresh_dictionary_dir / "files").glob("*.lex")) == cached
    # Changed content: a new compile.
    source.write_text("zyx\nabc\n", encoding="utf-8")
    assert set(dictionaries.load(source).trie.keys()) == {"zyx", "abc"}
    assert len(list((fresh_dictionary_dir / "files").glob("*.lex"))) == 2


def test_a_gzipped_word_list_file_loads(fresh_dictionary_dir, tmp_path):
    source = tmp_path / "list.txt.gz"
    source.write_bytes(gzip.compress("café\nabc\n".encode("latin-1")))
    assert set(dictionaries.load(source).trie.keys()) == {"abc"}


def test_a_lex_file_path_loads(fresh_dictionary_dir, tmp_path):
    word_list, _ = compile_word_list(["alpha", "beta"], WordRules(), name="greek")
    path = tmp_path / "greek.lex"
    write_word_list(word_list, path)
    loaded = dictionaries.load(str(path))
    assert set(loaded.trie.keys()) == {"alpha", "beta"}
    assert loaded.name == "greek"
    assert not fresh_dictionary_dir.exists()  # nothing compiled


def test_bad_paths_are_word_list_errors(fresh_dictionary_dir, tmp_path):
    with pytest.raises(WordListError, match="no such file"):
        dictionaries.load(tmp_path / "missing.txt")
    binary = tmp_path / "photo.jpg"
    binary.write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00")
    with pytest.raises(WordListError, match="binary file"):
        dictionaries.load(binary)
    bogus = tmp_path / "bogus.lex"
    bogus.write_text("cat\ndog\n")
    with pytest.raises(WordListError, match="not a compiled dictionary"):
        dictionaries.load(bogus)
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing here\n\n")
    with pytest.raises(WordListError, match="no usable words"):
        dictionaries.load(empty)


def test_a_directory_is_not_a_dictionary(fresh_dictionary_dir, tmp_path):
    with pytest.raises(WordListError, match="no such file"):
        dictionaries.load(tmp_path)


def _debian_list(name: str) -> Path:
    source = dictionaries.NAMED_LISTS[name].source
    if not source.exists():
        package = dictionaries.NAMED_LISTS[name].debian_package
        pytest.skip(f"{source} is missing: install the Debian package {package}")
    return source


def test_french_folds_accents(fresh_dictionary_dir):
    source = _debian_list("french")
    french = dictionaries.load("french")
    assert french.rules.fold_accents
    assert "ete" in french and "été" not in french
    assert "cafe" in french
    assert "oeuvre" in french
    assert french.explain("été") == (True, "'ete' is in the dictionary")
    assert french.explain("Été") == (False, "proper noun (capitalised)")
    lines = source.read_text(encoding="utf-8").splitlines()
    assert "été" in lines and "ete" not in lines  # "ete" only exists by folding
    assert set(french.trie.keys()) == plain_words(lines, fold=True)


def test_dutch_folds_accents(fresh_dictionary_dir):
    source = _debian_list("dutch")
    dutch = dictionaries.load("dutch")
    assert "een" in dutch and "cafe" in dutch
    assert dutch.explain("één") == (True, "'een' is in the dictionary")
    assert dutch.explain("café") == (True, "'cafe' is in the dictionary")
    lines = source.read_text(encoding="utf-8").splitlines()
    assert set(dutch.trie.keys()) == plain_words(lines, fold=True)
