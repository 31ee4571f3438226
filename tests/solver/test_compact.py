"""The compact word list browsers keep for offline practice (solver.compact): front-coded
lines that give back exactly the words, in order, and refuse what they cannot carry."""

from __future__ import annotations

import pytest

from solver import compact, dictionaries
from solver.errors import WordListError


def test_words_come_back_sorted_once_with_the_header() -> None:
    text = compact.encode(["cats", "cat", "catsup", "dog", "cat"], {"dictionary": "tiny"})
    assert text.splitlines() == [
        compact.MAGIC,
        '{"dictionary":"tiny"}',
        "0cat",
        "3s",
        "4up",
        "0dog",
    ]
    assert compact.decode(text) == ({"dictionary": "tiny"}, ["cat", "cats", "catsup", "dog"])


def test_a_shared_start_longer_than_one_digit_carries_is_repeated() -> None:
    long = "a" * 50
    text = compact.encode([long, long + "b"], {})
    assert text.splitlines()[3] == "Z" + "a" * 15 + "b"
    assert compact.decode(text)[1] == [long, long + "b"]


def test_accented_letters_round_trip() -> None:
    words = ["été", "étés", "œuvre", "zoë"]
    assert compact.decode(compact.encode(words, {}))[1] == sorted(words)


def test_the_english_list_round_trips_at_a_third_of_its_size() -> None:
    word_list = dictionaries.load("english")
    words = list(word_list.trie.keys())
    text = compact.encode(words, {})
    assert compact.decode(text)[1] == sorted(words)
    assert len(text) < sum(len(word) + 1 for word in words) / 2


@pytest.mark.parametrize("word", ["", "two\nlines", "\U0001f600"])
def test_what_a_line_cannot_carry_is_refused(word: str) -> None:
    with pytest.raises(WordListError):
        compact.encode(["cat", word], {})


@pytest.mark.parametrize(
    "text",
    [
        "",
        "BOGGLE-WORDS 2\n{}\n0cat\n",
        "BOGGLE-WORDS 1\n{broken\n0cat\n",
        "BOGGLE-WORDS 1\n{}\n5cat\n",  # shares more than the word before has
        "BOGGLE-WORDS 1\n{}\n0cat\n3\n",  # shares all, adds nothing
        "BOGGLE-WORDS 1\n{}\n!cat\n",
    ],
)
def test_a_broken_list_is_refused(text: str) -> None:
    with pytest.raises(WordListError):
        compact.decode(text)
