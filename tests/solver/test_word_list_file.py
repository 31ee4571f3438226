"""The compiled .lex format: round trips, damaged files, and explain()."""

from __future__ import annotations

import json
import random
import struct

import pytest

from solver import (
    WordListError,
    WordRules,
    compile_word_list,
    load_word_list,
    roll,
    solve,
    write_word_list,
)
from solver.wordlist import MAGIC, read_header

WORDS = [
    "cat", "cats", "coat", "dog", "dogs", "god", "gods", "queen", "queue", "quiz", "tea", "teas",
    "eat", "eats", "seat", "east", "state", "taste", "rose", "sore", "ores", "tin", "tins", "into",
    "nite", "tine", "inert", "inter", "niter", "stone", "tones", "notes", "onset",
]  # fmt: skip


@pytest.fixture
def small(tmp_path):
    word_list, _ = compile_word_list(WORDS, WordRules(), name="small")
    path = tmp_path / "small.lex"
    write_word_list(word_list, path)
    return word_list, path


def test_round_trip_keeps_words_rules_and_meta(small):
    word_list, path = small
    loaded = load_word_list(path)
    assert set(loaded.trie.keys()) == set(WORDS)
    assert len(loaded) == len(WORDS)
    assert loaded.rules == word_list.rules
    assert loaded.name == "small"
    assert loaded.meta["report"]["kept"] == len(WORDS)
    assert loaded.meta["words"] == len(WORDS)
    assert read_header(path)["name"] == "small"
    for word in WORDS:
        assert word in loaded
        assert loaded.word(loaded.trie[word]) == word


def test_round_trip_gives_the_same_solutions(small):
    word_list, path = small
    loaded = load_word_list(path)
    for name in ("classic", "classic-1976", "big", "super-big"):
        for seed in range(30):
            board = roll(name, seed)
            assert solve(board, loaded) == solve(board, word_list)


def test_round_trip_of_non_default_rules(tmp_path):
    rules = WordRules(fold_accents=True, qu_rule=False, min_length=2, keep_capitalised=True)
    word_list, _ = compile_word_list(["été", "Qat", "at"], rules)
    write_word_list(word_list, tmp_path / "deep" / "er" / "x.lex")
    loaded = load_word_list(tmp_path / "deep" / "er" / "x.lex")
    assert loaded.rules == rules
    assert set(loaded.trie.keys()) == {"ete", "qat", "at"}


def test_rewriting_a_loaded_word_list(small, tmp_path):
    _, path = small
    again = tmp_path / "again.lex"
    write_word_list(load_word_list(path), again)
    assert set(load_word_list(again).trie.keys()) == set(WORDS)


def test_write_leaves_no_temporary_files(small):
    _, path = small
    assert [p.name for p in path.parent.iterdir()] == ["small.lex"]


def test_every_truncation_is_a_word_list_error(tmp_path):
    word_list, _ = compile_word_list(["cat", "dog", "quiz"], WordRules())
    write_word_list(word_list, tmp_path / "tiny.lex")
    data = (tmp_path / "tiny.lex").read_bytes()
    not_refused = []
    for length in range(len(data)):
        # A new file each time (rewriting a file that an earlier load still maps is slow).
        damaged = tmp_path / "damaged.lex"
        damaged.write_bytes(data[:length])
        try:
            load_word_list(damaged)
        except WordListError:
            pass
        else:
            not_refused.append(length)  # another exception fails the test at once
        finally:
            damaged.unlink()
    assert not_refused == []


def test_messages_for_damaged_files(small, tmp_path):
    _, path = small
    data = path.read_bytes()
    damaged = tmp_path / "damaged.lex"

    damaged.write_bytes(b"")
    with pytest.raises(WordListError, match="cannot open dictionary"):
        load_word_list(damaged)

    damaged.write_bytes(b"hello\nworld\n")
    with pytest.raises(WordListError, match="is not a compiled dictionary"):
        load_word_list(damaged)

    damaged.write_bytes(data[: len(data) - 4])
    with pytest.raises(WordListError, match="truncated or corrupt"):
        load_word_list(damaged)

    damaged.write_bytes(data + b"\0\0\0\0")
    with pytest.raises(WordListError, match="truncated or corrupt"):
        load_word_list(damaged)

    with pytest.raises(WordListError, match="cannot open dictionary"):
        load_word_list(tmp_path / "missing.lex")


def _with_header(header: object) -> bytes:
    payload = json.dumps(header).encode()
    return MAGIC + struct.pack("<I", len(payload)) + payload


def test_foreign_or_broken_headers_are_word_list_errors(small, tmp_path):
    _, path = small
    good = read_header(path)
    damaged = tmp_path / "damaged.lex"
    for header in ([], None, "x", 3, {}, {"format": 1}, {**good, "format": 2}):
        damaged.write_bytes(_with_header(header))
        with pytest.raises(WordListError):
            load_word_list(damaged)
    damaged.write_bytes(_with_header({**good, "format": 2}))
    with pytest.raises(WordListError, match="format 2, expected 1"):
        load_word_list(damaged)
    damaged.write_bytes(MAGIC + struct.pack("<I", 5) + b"{nope")
    with pytest.raises(WordListError, match="corrupt header"):
        load_word_list(damaged)


def test_random_garbage_is_a_word_list_error(tmp_path):
    rng = random.Random(7)
    damaged = tmp_path / "garbage.lex"
    for size in (1, 7, 8, 12, 100, 5000):
        damaged.write_bytes(bytes(rng.randrange(256) for _ in range(size)))
        with pytest.raises(WordListError):
            load_word_list(damaged)
        # The right magic followed by garbage.
        damaged.write_bytes(MAGIC + bytes(rng.randrange(256) for _ in range(size)))
        with pytest.raises(WordListError):
            load_word_list(damaged)


def test_scrambled_word_set_is_a_word_list_error(small, tmp_path):
    _, path = small
    data = bytearray(path.read_bytes())
    header = read_header(path)
    (header_length,) = struct.unpack("<I", data[8:12])
    start = 12 + header_length
    rng = random.Random(3)
    for index in range(start, start + header["trie_bytes"]):
        data[index] = rng.randrange(256)
    damaged = tmp_path / "damaged.lex"
    damaged.write_bytes(bytes(data))
    with pytest.raises(WordListError, match="corrupt word set"):
        load_word_list(damaged)


# --- explain ------------------------------------------------------------------------------


def test_explain_gives_the_reason(small):
    word_list, path = small
    for lex in (word_list, load_word_list(path)):
        assert lex.explain("cat") == (True, "'cat' is in the dictionary")
        assert lex.explain("  CATS ") == (True, "'cats' is in the dictionary")
        assert lex.explain("cow") == (False, "'cow' is not in the word list")
        assert lex.explain("Coat") == (False, "proper noun (capitalised)")
        assert lex.explain("qat") == (False, "q not followed by u")
        assert lex.explain("at") == (False, "too short")
        assert lex.explain("coat-tail") == (False, "characters outside the alphabet")
        assert lex.explain("café") == (False, "characters outside the alphabet")
        assert lex.explain("a" * 37) == (False, "too long")


def test_explain_with_folding():
    word_list, _ = compile_word_list(["été", "œuvre"], WordRules(fold_accents=True))
    assert word_list.explain("été") == (True, "'ete' is in the dictionary")
    assert word_list.explain("ete") == (True, "'ete' is in the dictionary")
    assert word_list.explain("OEUVRE") == (True, "'oeuvre' is in the dictionary")
    assert word_list.normalise("Œuvre") is None
    assert word_list.normalise("ÉTÉ") == "ete"
    assert word_list.drop_reason("qi") is not None
