"""Dutch and French lemmas from regular endings, checked against a dictionary's words."""

from __future__ import annotations

import pytest

from meanings.inflections import guess_lemmas

FRENCH = {"maison", "chanter", "cheval", "grand", "vendre", "finir", "actif"}
DUTCH = {"huis", "lopen", "boom", "bom", "groot", "grot", "werken", "tafel", "dag", "brief", "wit"}


@pytest.mark.parametrize(
    ("word", "lemma"),
    [
        ("maisons", "maison"),
        ("chantaient", "chanter"),
        ("chevaux", "cheval"),
        ("grandes", "grand"),
        ("vendu", "vendre"),
        ("finissons", "finir"),
        ("actives", "actif"),
    ],
)
def test_french_forms_find_their_lemma(word: str, lemma: str) -> None:
    assert guess_lemmas(word, "fr", FRENCH.__contains__)[0] == lemma


@pytest.mark.parametrize(
    ("word", "lemma"),
    [
        ("huizen", "huis"),
        ("loopt", "lopen"),
        ("bomen", "boom"),  # a long vowel before -en: not "bom"
        ("grote", "groot"),
        ("werkte", "werken"),
        ("gewerkt", "werken"),
        ("tafels", "tafel"),
        ("dagen", "dag"),
        ("brieven", "brief"),
        ("witte", "wit"),
    ],
)
def test_dutch_forms_find_their_lemma(word: str, lemma: str) -> None:
    assert guess_lemmas(word, "nl", DUTCH.__contains__)[0] == lemma


def test_nothing_is_guessed_without_a_known_lemma_or_rules() -> None:
    assert guess_lemmas("xyzzies", "fr", FRENCH.__contains__) == []
    assert guess_lemmas("maisons", "de", FRENCH.__contains__) == []  # no rules for German
    assert guess_lemmas("maison", "fr", FRENCH.__contains__) == []  # never the word itself
