"""WordNet's morphy and reading its files: pure logic on small data, then the real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from meanings import wordnet
from meanings.store import lookup
from tests.meanings.support import require_definitions

LEMMAS = {
    ("wolf", "noun"),
    ("run", "verb"),
    ("running", "noun"),
    ("good", "adj"),
    ("glass", "noun"),
}
# As in WordNet's verb.exc: doubled consonants are irregular ("running run").
EXCEPTIONS = {
    ("wolves", "noun"): ["wolf"],
    ("better", "adj"): ["good", "well"],
    ("running", "verb"): ["run"],
}


def morphy(word: str) -> list[tuple[str, str]]:
    return wordnet.morphy(
        word,
        lambda lemma, pos: (lemma, pos) in LEMMAS,
        lambda form, pos: EXCEPTIONS.get((form, pos), []),
    )


def test_irregular_forms_come_from_the_exception_lists() -> None:
    assert morphy("wolves") == [("wolf", "noun")]
    assert morphy("better") == [("good", "adj")]


def test_detachment_rules_find_the_lemma_and_the_word_itself_counts() -> None:
    assert morphy("running") == [("running", "noun"), ("run", "verb")]
    assert morphy("runs") == [("run", "verb")]
    assert morphy("wolfs") == [("wolf", "noun")]


def test_unknown_words_and_nouns_in_ss_give_nothing() -> None:
    assert morphy("zzyzx") == []
    # "glass" is a lemma; "gla" (glass minus its s) is never tried, and "glas" is nothing.
    assert morphy("glas") == []
    assert morphy("glass") == [("glass", "noun")]


def test_a_synset_line_gives_its_words_and_definition_without_examples(tmp_path: Path) -> None:
    line = (
        b"02084071 05 n 03 dog 0 domestic_dog 0 Canis_familiaris 0 001 @ 02083346 n 0000 "
        b'| a member of the genus Canis; occurs in many breeds; "the dog barked all night"  \n'
    )
    words, gloss = wordnet.read_synset(b"licence\n" + line, len(b"licence\n"))
    assert words == ("dog", "domestic_dog", "Canis_familiaris")
    assert gloss == "a member of the genus Canis; occurs in many breeds"


def test_index_lines_give_offsets_in_frequency_order(tmp_path: Path) -> None:
    index = tmp_path / "index.noun"
    index.write_text("  1 licence line\ndog n 2 1 @ 2 1 02084071 10114209  \n")
    [entry] = wordnet.read_index(index, "noun")
    assert (entry.lemma, entry.offsets, entry.tagged_senses) == ("dog", (2084071, 10114209), 1)


@pytest.mark.parametrize(
    ("word", "lemma"),
    [("wolves", "wolf"), ("geese", "goose"), ("dogs", "dog"), ("sang", "sing")],
)
def test_the_compiled_english_file_resolves_inflected_forms(word: str, lemma: str) -> None:
    require_definitions("en")
    entry = lookup("en", word)
    assert entry is not None and entry.lemma == lemma and entry.source == "wordnet"
    assert entry.senses and all(sense.text for sense in entry.senses)


def test_the_compiled_english_file_knows_running_and_better() -> None:
    require_definitions("en")
    running = lookup("en", "running")
    assert running is not None and "run" in running.lemmas
    assert any(sense.lemma == "run" and sense.part_of_speech == "verb" for sense in running.senses)
    better = lookup("en", "better")
    assert better is not None and "good" in better.lemmas
    assert lookup("en", "qzxv") is None
    # Names are not what a player spelled: "wolf" is the animal, not the composer.
    wolf = lookup("en", "wolf")
    assert wolf is not None and not any("composer" in sense.text for sense in wolf.senses)
