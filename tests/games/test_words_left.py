""" "Words left" during a round and the results' common words (games.common_words): counts per
length in the viewer's state, never the unfound words themselves; points and a common flag
for every word of the results; wordfreq's lists read from its wheel."""

from __future__ import annotations

import json
from collections import Counter

import pytest
import wordfreq

from games import common_words, rounds, state
from games.models import Round
from tests.games.test_rounds_and_words import make_room, running_round
from tests.games.words_helpers import submit_word

pytestmark = pytest.mark.django_db


def zipf_common(word: str) -> bool:
    """The oracle: wordfreq's own look-up against the documented threshold."""
    return wordfreq.zipf_frequency(word, "en") >= common_words.COMMON_ZIPF


def test_the_solution_stores_which_words_are_common():
    """Each solution entry carries its flag, as wordfreq rates the word."""
    ann, _ = make_room()
    round_ = running_round(ann)
    flags = {entry[0]: entry[3] for entry in round_.solution}
    assert flags == {word: zipf_common(word) for word in flags}
    assert flags["cats"] and flags["went"], "everyday words are common"
    assert not all(flags.values()), "the broad list has rare words on this board"


def test_words_left_counts_per_length_and_never_the_words():
    """The player's state has counts per length, all and common, minus the words found; no
    unfound word appears anywhere in it before the round ends."""
    ann, bob = make_room()
    round_ = running_round(ann)
    assert submit_word(bob, "cats").accepted
    view = state.room_state(round_.room, bob)
    left = view["words_left"]
    solution = [entry[0] for entry in round_.solution]
    totals = Counter(len(word) for word in solution)
    commons = Counter(len(word) for word in solution if zipf_common(word))
    assert [row["length"] for row in left["by_length"]] == sorted(totals)
    for row in left["by_length"]:
        n = row["length"]
        assert row["total"] == totals[n] and row["common"] == commons[n]
        assert row["left"] == totals[n] - (n == 4)  # "cats" found
        assert row["common_left"] == commons[n] - (n == 4)
    assert left["verdicts_hidden"] is False
    assert view["round"]["word_counts"] == [
        {"length": row["length"], "total": row["total"], "common": row["common"]}
        for row in left["by_length"]
    ], "the round itself carries the counts, for every player"
    text = json.dumps(view)
    unfound = [word for word in solution if word != "cats"]
    leaked = [word for word in unfound if f'"{word}"' in text]
    assert not leaked, f"unfound words in the state: {leaked}"
    assert state.room_state(round_.room, None)["words_left"] is None, "a watcher gets none"


def test_hidden_verdicts_subtract_nothing():
    """With verdicts held until the end, the counts do not tell which entries count."""
    ann, bob = make_room(instant_verdicts=False)
    running_round(ann)
    submit_word(bob, "cats")
    left = state.room_state(bob.room, bob)["words_left"]
    assert left["verdicts_hidden"] is True
    assert all(row["left"] == row["total"] for row in left["by_length"])


def test_results_have_points_and_common_flags():
    """Each word of the results has its points and its flag; the common maximum and each
    player's share of it are measured on the common words."""
    ann, bob = make_room()
    round_ = running_round(ann)
    submit_word(bob, "cats")
    rounds.do_end_round(round_.id)
    round_ = Round.objects.get(pk=round_.pk)
    results = state.room_state(round_.room, bob)["results"]
    assert state.room_state(round_.room, bob)["words_left"] is None, "no counts after the end"
    by_word = {entry["word"]: entry for entry in results["solution"]}
    assert all(entry["common"] == zipf_common(word) for word, entry in by_word.items())
    assert all(isinstance(entry["points"], int) for entry in by_word.values())
    common_max = sum(e["points"] for e in by_word.values() if e["common"])
    assert results["common_max_points"] == common_max < results["max_points"]
    assert results["common_word_count"] == sum(1 for e in by_word.values() if e["common"])
    player = next(p for p in results["players"] if p["nickname"] == "Bob")
    assert player["words"] == [
        {
            "word": "cats",
            "points": 1,
            "cancelled": False,
            "path": by_word["cats"]["path"],
            "common": True,
        }
    ]
    assert player["share_of_common_max"] == round(1 / common_max, 4)


def test_rounds_without_flags_are_looked_up():
    """Solution entries stored before flags existed (or added on a challenge) get one."""
    ann, _ = make_room()
    round_ = running_round(ann)
    old = [entry[:3] for entry in round_.solution]
    assert common_words.round_common_words(old, "english") == {
        entry[0] for entry in round_.solution if entry[3]
    }


def test_wordfreq_data_ships_in_the_package(monkeypatch):
    """The frequency lists are files of the installed wheel (nothing to download), for the
    languages of the named dictionaries."""
    import os

    for language in ("en", "nl", "fr"):
        assert os.path.exists(os.path.join(wordfreq.DATA_PATH, f"large_{language}.msgpack.gz"))
    assert common_words.is_common("maison", "french")
    assert common_words.is_common("ete", "french"), "accents folded as the lexicon does"
    assert common_words.is_common("huis", "dutch")
