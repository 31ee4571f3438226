"""WordList rules, word-list reading and compiling, and the compile report."""

from __future__ import annotations

import gzip

import pytest

from solver import (
    DropReason,
    WordListError,
    WordRules,
    compile_word_list,
    fold_accents,
    normalise_word,
    read_wordlist,
    read_wordlist_bytes,
)
from solver.compiler import EXAMPLES_PER_REASON, compile_file
from solver.wordlist import load_word_list

DEFAULT = WordRules()
FOLDING = WordRules(fold_accents=True)


def words_of(lines, rules=DEFAULT) -> set[str]:
    word_list, _ = compile_word_list(lines, rules)
    return set(word_list.trie.keys())


# --- one word at a time ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "rules", "expected"),
    [
        ("cat", DEFAULT, ("cat", None)),
        ("  cat \n", DEFAULT, ("cat", None)),
        ("CAT", DEFAULT, ("cat", None)),  # a list written in capitals
        ("Cat", DEFAULT, (None, DropReason.PROPER_NOUN)),
        ("McDonald", DEFAULT, (None, DropReason.PROPER_NOUN)),
        ("Paris", WordRules(keep_capitalised=True), ("paris", None)),
        ("été", DEFAULT, (None, DropReason.OUTSIDE_ALPHABET)),
        ("été", FOLDING, ("ete", None)),
        ("œuvre", FOLDING, ("oeuvre", None)),
        ("Œuvre", FOLDING, (None, DropReason.PROPER_NOUN)),
        ("ŒUVRE", FOLDING, ("oeuvre", None)),
        ("straße", FOLDING, ("strasse", None)),
        ("straße", DEFAULT, (None, DropReason.OUTSIDE_ALPHABET)),
        ("naïve", FOLDING, ("naive", None)),
        ("façade", FOLDING, ("facade", None)),
        ("don't", DEFAULT, (None, DropReason.OUTSIDE_ALPHABET)),
        ("ice-cream", DEFAULT, (None, DropReason.OUTSIDE_ALPHABET)),
        ("ice cream", DEFAULT, (None, DropReason.OUTSIDE_ALPHABET)),
        ("abc1", DEFAULT, (None, DropReason.OUTSIDE_ALPHABET)),
        ("abbey's", DEFAULT, (None, DropReason.OUTSIDE_ALPHABET)),
        ("qat", DEFAULT, (None, DropReason.Q_WITHOUT_U)),
        ("iraq", WordRules(keep_capitalised=True), (None, DropReason.Q_WITHOUT_U)),
        ("quiz", DEFAULT, ("quiz", None)),
        ("qat", WordRules(qu_rule=False), ("qat", None)),
        ("at", DEFAULT, (None, DropReason.TOO_SHORT)),
        ("at", WordRules(min_length=2), ("at", None)),
        ("abcdefgh", WordRules(max_length=7), (None, DropReason.TOO_LONG)),
        ("abcdefg", WordRules(max_length=7), ("abcdefg", None)),
        # Lengths count letters after folding: "œuf" is four letters.
        ("œuf", WordRules(fold_accents=True, min_length=4), ("oeuf", None)),
        ("œuf", WordRules(fold_accents=True, max_length=3), (None, DropReason.TOO_LONG)),
        # A word written with a combining accent folds like the precomposed one.
        ("e\u0301te\u0301", FOLDING, ("ete", None)),
    ],
)
def test_normalise_word(raw, rules, expected):
    assert normalise_word(raw, rules) == expected


def test_custom_alphabet():
    dutch_ij = WordRules(alphabet="abcdefghijklmnopqrstuvwxyzé")
    assert normalise_word("été", dutch_ij) == ("été", None)
    assert normalise_word("ète", dutch_ij) == (None, DropReason.OUTSIDE_ALPHABET)


def test_fold_accents():
    assert fold_accents("été") == "ete"
    assert fold_accents("œuvre") == "oeuvre"
    assert fold_accents("straße") == "strasse"
    assert fold_accents("æther") == "aether"
    assert fold_accents("ångström") == "angstrom"
    assert fold_accents("plain") == "plain"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"alphabet": ""}, "non-empty"),
        ({"alphabet": "abca"}, "without repeats"),
        ({"alphabet": "ABC"}, "lower-case"),
        ({"min_length": 0}, "min_length"),
        ({"min_length": 5, "max_length": 4}, "got 5, 4"),
    ],
)
def test_bad_rules_are_refused(kwargs, message):
    with pytest.raises(WordListError, match=message):
        WordRules(**kwargs)


def test_rules_round_trip_through_a_dict():
    rules = WordRules(alphabet="abc", fold_accents=True, qu_rule=False, min_length=2)
    assert WordRules.from_dict(rules.to_dict()) == rules
    assert "_letters" not in rules.to_dict()
    # Unknown keys (from a newer writer) are ignored.
    assert WordRules.from_dict({**rules.to_dict(), "future": 1}) == rules


# --- compiling a list and its report -----------------------------------------------------


def test_compile_keeps_and_drops_as_the_rules_say():
    lines = [
        "# a comment",
        "",
        "cat",
        "Dog",  # proper noun
        "QUIZ",  # capitals: kept
        "qat",  # q without u
        "at",  # too short
        "café",  # outside the alphabet (no folding)
        "cat",  # duplicate
        "CAT",  # duplicate after lower-casing
        "   ",
        "  bird  ",
    ]
    word_list, report = compile_word_list(lines, DEFAULT)
    assert set(word_list.trie.keys()) == {"cat", "quiz", "bird"}
    assert len(word_list) == 3
    assert "cat" in word_list and "bird" in word_list
    assert "dog" not in word_list and "Dog" not in word_list and 3 not in word_list
    assert report.lines == 12
    assert report.ignored_lines == 3
    assert report.kept == 3
    assert report.dropped == {
        "proper noun (capitalised)": 1,
        "q not followed by u": 1,
        "too short": 1,
        "characters outside the alphabet": 1,
        "duplicate": 2,
    }
    assert report.dropped_total == 6
    assert report.lines == report.ignored_lines + report.kept + report.dropped_total
    assert report.examples["duplicate"] == ["cat", "CAT"]
    assert report.examples["proper noun (capitalised)"] == ["Dog"]
    assert report.to_dict()["dropped"] == report.dropped
    summary = report.summary()
    assert summary.splitlines()[0] == "3 words kept, 6 dropped"
    # The biggest reason comes first, with its examples.
    assert summary.splitlines()[1].split() == ["2", "duplicate", "(e.g.", "cat,", "CAT)"]
    assert "q not followed by u  (e.g. qat)" in summary


def test_duplicates_after_folding_are_counted():
    lines = ["été", "ete", "ÉTÉ", "Été", "œuvre", "oeuvre"]
    word_list, report = compile_word_list(lines, FOLDING)
    assert set(word_list.trie.keys()) == {"ete", "oeuvre"}
    # "ete" and "ÉTÉ" repeat "été", "oeuvre" repeats "œuvre"; "Été" is a proper noun.
    assert report.dropped == {"duplicate": 3, "proper noun (capitalised)": 1}
    # Without folding the accented words are outside the alphabet.
    word_list, report = compile_word_list(lines, DEFAULT)
    assert set(word_list.trie.keys()) == {"ete", "oeuvre"}
    assert report.dropped == {"characters outside the alphabet": 4}


def test_examples_are_capped_per_reason():
    lines = [f"x{'q' * n}a" for n in range(1, 12)] + ["word"]
    _, report = compile_word_list(lines, DEFAULT)
    assert report.dropped["q not followed by u"] == 11
    assert report.examples["q not followed by u"] == lines[:EXAMPLES_PER_REASON]


def test_keep_capitalised_and_no_qu_rule():
    lines = ["Paris", "qat", "quiz", "Qatar"]
    assert words_of(lines) == {"quiz"}
    assert words_of(lines, WordRules(keep_capitalised=True)) == {"paris", "quiz"}
    assert words_of(lines, WordRules(qu_rule=False)) == {"qat", "quiz"}
    both = WordRules(qu_rule=False, keep_capitalised=True)
    assert words_of(lines, both) == {"paris", "qat", "quiz", "qatar"}


def test_min_and_max_length():
    lines = ["ab", "abc", "abcd", "abcde", "abcdef"]
    assert words_of(lines, WordRules(min_length=4, max_length=5)) == {"abcd", "abcde"}
    assert words_of(lines, WordRules(min_length=1)) == set(lines)


def test_words_sharing_prefixes_all_survive():
    # Prefixes of each other, siblings, and single letters: the node table must keep them all.
    lines = ["a", "ab", "abc", "abd", "abcd", "b", "ba", "bab", "z", "zz", "zzz", "zzzz"]
    assert words_of(lines, WordRules(min_length=1)) == set(lines)


@pytest.mark.parametrize(
    "lines",
    [[], [""], ["   ", "\t"], ["# only", "# comments"], ["Paris", "qat", "x1"], ["# x", "ab"]],
)
def test_nothing_usable_is_a_word_list_error(lines):
    with pytest.raises(WordListError, match="no usable words"):
        compile_word_list(lines, DEFAULT)


# --- reading files -------------------------------------------------------------------------


def test_plain_utf8():
    assert read_wordlist_bytes("été\ncat\r\ndog\n".encode()) == ["été", "cat", "dog"]


def test_utf8_bom_is_dropped():
    lines = read_wordlist_bytes(b"\xef\xbb\xbfapple\nbanana\n")
    assert lines == ["apple", "banana"]
    assert words_of(lines) == {"apple", "banana"}


def test_latin1_input():
    data = "café\nété\nnaïve\n".encode("latin-1")
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    assert read_wordlist_bytes(data) == ["café", "été", "naïve"]
    assert words_of(read_wordlist_bytes(data), FOLDING) == {"cafe", "ete", "naive"}


def test_gzip_input():
    data = gzip.compress("# list\nzebra\nété\n".encode())
    assert read_wordlist_bytes(data) == ["# list", "zebra", "été"]
    latin = gzip.compress("café\n".encode("latin-1"))
    assert read_wordlist_bytes(latin) == ["café"]


def test_binary_data_is_refused():
    with pytest.raises(WordListError, match="binary file, not a word list"):
        read_wordlist_bytes(b"cat\x00dog\n")
    utf16 = "cat\ndog\n".encode("utf-16")
    with pytest.raises(WordListError, match="binary file"):
        read_wordlist_bytes(utf16)
    with pytest.raises(WordListError, match="binary file"):
        read_wordlist_bytes(gzip.compress(b"\x00\x01\x02"))


def test_truncated_gzip_is_refused():
    data = gzip.compress(b"apple\nbanana\ncherry\n" * 100)
    for cut in (3, 10, len(data) // 2, len(data) - 1):
        with pytest.raises(WordListError, match="gzip file is corrupt"):
            read_wordlist_bytes(data[:cut])


@pytest.mark.parametrize("payload", [b"hello\nworld\n" * 50, b"apple\nbanana\ncherry\n" * 100])
@pytest.mark.parametrize("mask", [0x01, 0x55, 0xFF])
def test_corrupt_gzip_body_is_refused(payload, mask):
    # A valid gzip header then a scrambled deflate stream: depending on the damage, gzip
    # reports an early end or zlib reports invalid data. Either way: a WordListError.
    data = bytearray(gzip.compress(payload))
    for index in range(12, len(data) - 8):
        data[index] ^= mask
    with pytest.raises(WordListError, match="gzip file is corrupt"):
        read_wordlist_bytes(bytes(data))


def test_corrupt_gzip_checksum_is_refused():
    data = bytearray(gzip.compress(b"apple\nbanana\n"))
    data[-8] ^= 0xFF  # the CRC32 of the trailer
    with pytest.raises(WordListError, match="gzip file is corrupt"):
        read_wordlist_bytes(bytes(data))


def test_read_wordlist_files(tmp_path):
    plain = tmp_path / "words.txt"
    plain.write_text("one\ntwo\n", encoding="utf-8")
    assert read_wordlist(plain) == ["one", "two"]
    packed = tmp_path / "words.txt.gz"
    packed.write_bytes(gzip.compress(b"three\n"))
    assert read_wordlist(str(packed)) == ["three"]
    with pytest.raises(WordListError, match=r"cannot read word list .*missing\.txt"):
        read_wordlist(tmp_path / "missing.txt")
    with pytest.raises(WordListError, match="cannot read word list"):
        read_wordlist(tmp_path)


def test_compile_file_writes_a_loadable_word_list(tmp_path):
    source = tmp_path / "list.txt.gz"
    source.write_bytes(gzip.compress("cat\nDog\nquiz\n".encode("latin-1")))
    target = tmp_path / "out" / "list.lex"
    report = compile_file(source, target, DEFAULT, name="mine")
    assert report.kept == 2
    word_list = load_word_list(target)
    assert set(word_list.trie.keys()) == {"cat", "quiz"}
    assert word_list.name == "mine"
    assert word_list.meta["report"]["dropped"] == {"proper noun (capitalised)": 1}
    assert len(word_list.meta["source_sha256"]) == 64


def test_compile_file_with_a_missing_source_is_a_word_list_error(tmp_path):
    with pytest.raises(WordListError, match=r"missing\.txt"):
        compile_file(tmp_path / "missing.txt", tmp_path / "out.lex", DEFAULT)
    assert not (tmp_path / "out.lex").exists()


def test_compile_file_with_binary_source_is_a_word_list_error(tmp_path):
    source = tmp_path / "image.png"
    source.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(WordListError, match="binary file"):
        compile_file(source, tmp_path / "out.lex", DEFAULT)
    assert not (tmp_path / "out.lex").exists()


# --- refusing what is not a word list ------------------------------------------------------


def random_bytes_without_nul(size: int, seed: int = 7) -> bytes:
    import random

    rng = random.Random(seed)
    return bytes(rng.randrange(1, 256) for _ in range(size))


@pytest.mark.parametrize("seed", range(5))
def test_random_binary_without_nul_bytes_is_refused(seed):
    """Not "ready with one word": decoded as Latin-1 it is full of control characters."""
    data = random_bytes_without_nul(20_000, seed)
    with pytest.raises(WordListError, match=r"control character|not a word list"):
        compile_word_list(read_wordlist_bytes(data), DEFAULT)


def test_a_control_character_names_its_line():
    with pytest.raises(WordListError, match=r"line 2 has a control character \(U\+0007\)"):
        compile_word_list(["cat", "do\x07g", "went"], DEFAULT)


def test_a_line_longer_than_a_word_is_refused():
    with pytest.raises(WordListError, match="line 3 is 65 characters long"):
        compile_word_list(["cat", "dog", "a" * 65], DEFAULT)
    # Comments (licence text) may be longer; a 64-letter line is still a (too long) word.
    word_list, report = compile_word_list(["# " + "x" * 300, "cat", "a" * 64], DEFAULT)
    assert set(word_list.trie.keys()) == {"cat"} and report.dropped == {"too long": 1}


def test_printable_junk_is_refused_when_few_lines_look_like_words():
    lines = ["cat", "dog", "x1!", "@@", "12345", "a=b", "{}"]
    with pytest.raises(WordListError, match=r"only 2 of 7 lines \(29%\) look like words"):
        compile_word_list(lines, DEFAULT)


def test_a_list_in_another_alphabet_is_refused():
    lines = ["кот", "собака", "дом", "cat"]
    with pytest.raises(WordListError, match="look like words"):
        compile_word_list(lines, DEFAULT)


def test_possessives_proper_nouns_and_accents_look_like_words():
    """Half the lines may be dropped by the rules and the list is still a word list."""
    lines = ["cat", "dog's", "Paris", "well-known", "été", "Zoë", "o'clock", "qat"]
    word_list, report = compile_word_list(lines, DEFAULT)
    assert set(word_list.trie.keys()) == {"cat"}
    assert report.wordlike == len(lines)


def test_a_huge_binary_line_is_refused_without_reading_it_whole():
    data = b"cat\n" + b"\x01" * 100_000 + b"\n"
    with pytest.raises(WordListError, match="longer than 4096 characters"):
        read_wordlist_bytes(data)


def test_files_are_streamed(tmp_path):
    """iter_wordlist yields lines lazily (gzip too) and agrees with the in-memory reader."""
    from solver.compiler import digest, digest_file, iter_wordlist

    text = "# list\r\nzebra\nété\n\nlast"
    for data in (text.encode(), text.encode("latin-1"), gzip.compress(text.encode())):
        path = tmp_path / "list"
        path.write_bytes(data)
        lines = iter_wordlist(path)
        assert next(lines) == "# list"
        assert list(lines) == ["zebra", "été", "", "last"]
        assert read_wordlist_bytes(data) == ["# list", "zebra", "été", "", "last"]
        assert digest_file(path, DEFAULT) == digest(data, DEFAULT)
